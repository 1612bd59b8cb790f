/**
 * The instance's keys, one per role (decision 0250). The service makes them at its start when
 * they are missing, each 0600 in the state folder:
 *
 * - `service.key`, the service's own 32-byte secret, which only the service's permission set
 *   reads. From it come the service's Ed25519 signing key, the key of the control socket's proofs
 *   and the audit's secret, each derived under a label of its own.
 * - `service.pub`, the signing key's public half, which every connector reads to check the
 *   service's signature: no connector's key lets a process pose as the service.
 * - `mcp.key` and `browser.key`, each read only by its connector's set and by the service: the
 *   bridge socket admits only the first, the browser socket only the second.
 *
 * The one `secret` every role shared before is removed when found: no role proves it any more.
 *
 * @module
 */

import { decodeBase64 } from "../../shared/base64.ts";
import type { InstancePaths, KeyFiles } from "../../shared/instance.ts";
import { hmac, KEY_BYTES, readKeyFile } from "../../shared/proof.ts";

/** What the service holds of its keys. */
export interface ServiceKeys {
  /** The Ed25519 key the service signs every hello's exchange with. */
  signer: CryptoKey;
  /** Each connector role's key, as the service checks its proof. */
  roles: { mcp: Uint8Array; browser: Uint8Array };
  /** The key control requests that change something are proved with. */
  control: Uint8Array;
  /** The secret the audit's key is derived from. */
  audit: Uint8Array;
}

const encoder = new TextEncoder();

/** A key derived from the service's secret for one use, named by `label`. */
function derive(secret: Uint8Array, label: string): Promise<Uint8Array> {
  return hmac(secret, encoder.encode(label));
}

/** PKCS #8's fixed prefix of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = "302e020100300506032b657004220420".match(/../g)!.map((byte) =>
  parseInt(byte, 16)
);

/** The service's signing key and its public half, from the service's secret. */
async function signingKey(secret: Uint8Array): Promise<{ signer: CryptoKey; public: Uint8Array }> {
  const seed = await derive(secret, "ghostlight-signing-key-v1");
  const pkcs8 = new Uint8Array([...ED25519_PKCS8_PREFIX, ...seed]);
  const exportable = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, [
    "sign",
  ]);
  const { x } = await crypto.subtle.exportKey("jwk", exportable);
  const publicKey = decodeBase64(x!.replaceAll("-", "+").replaceAll("_", "/") + "=");
  const signer = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, [
    "sign",
  ]);
  return { signer, public: publicKey };
}

const CONTROL_LABEL = "ghostlight-control-key-v1";
const AUDIT_LABEL = "ghostlight-audit-secret-v1";

/**
 * The secret the audit's keys are derived from, made from the bytes of the service's key file
 * the way the service makes it: what `audit verify` and `audit reset` check and seal with.
 */
export function auditSecret(serviceKey: Uint8Array): Promise<Uint8Array> {
  return derive(serviceKey, AUDIT_LABEL);
}

/**
 * The control socket's proof key, read from the service's secret the way the service derives it:
 * what the person's commands and doctor prove their POSTs with.
 */
export async function controlKey(keys: KeyFiles): Promise<Uint8Array> {
  return await derive(await readKeyFile(keys.service), CONTROL_LABEL);
}

/**
 * Writes `bytes` to `path` (0600) whole: through a temporary file linked into place, so no
 * reader sees half a key and of two services starting at once only one key is kept. False when
 * the file exists already.
 */
async function createWhole(path: string, bytes: Uint8Array): Promise<boolean> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeFile(temporary, bytes, { mode: 0o600, createNew: true });
  try {
    await Deno.link(temporary, path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
}

/** Reads the key at `path`, making a fresh one (0600) first if there is none. */
async function ensureKey(path: string): Promise<Uint8Array> {
  try {
    return await readKeyFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await createWhole(path, crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
  return await readKeyFile(path);
}

/** Writes the service's public key where connectors read it, unless it is there already. */
async function publish(path: string, publicKey: Uint8Array): Promise<void> {
  const current = await readKeyFile(path).catch(() => null);
  if (current !== null && current.every((byte, i) => byte === publicKey[i])) return;
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeFile(temporary, publicKey, { mode: 0o600, createNew: true });
  await Deno.rename(temporary, path);
}

/**
 * Makes the instance's keys that are missing, publishes the service's public key, removes the
 * old shared secret, and returns what the service holds. `onRemovedLegacy` hears when the old
 * secret was found (an instance upgraded from before roles had keys).
 */
export async function ensureKeys(
  paths: InstancePaths,
  options: { onRemovedLegacy?: () => void } = {},
): Promise<ServiceKeys> {
  const secret = await ensureKey(paths.keys.service);
  const mcp = await ensureKey(paths.keys.mcp);
  const browser = await ensureKey(paths.keys.browser);
  const signing = await signingKey(secret);
  await publish(paths.keys.servicePublic, signing.public);
  try {
    await Deno.remove(paths.legacySecretFile);
    options.onRemovedLegacy?.();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return {
    signer: signing.signer,
    roles: { mcp, browser },
    control: await derive(secret, CONTROL_LABEL),
    audit: await auditSecret(secret),
  };
}
