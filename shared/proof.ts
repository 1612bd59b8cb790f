/**
 * The proofs of the handshake (decision 0250). Each role has a key of its own: the service a
 * signing key whose public half every connector holds, each connector a 32-byte key the service
 * also holds. A connector sends a hello with a fresh nonce; the service answers with its
 * signature over the whole exchange so far (so a process squatting the socket path, even one
 * holding a connector's key, cannot pass for the service), and the connector answers the
 * service's fresh challenge with the HMAC of the same exchange under its role's key (so a process
 * holding another role's key, or none, is never a peer). Both proofs cover every field of both
 * hellos, whatever fields a hello carries, and sign different labels, so neither can be replayed
 * as the other.
 *
 * @module
 */

import { decodeBase64, encodeBase64 } from "./base64.ts";
import { canonicalJson } from "./canonical_json.ts";
import { readRegularFile } from "./files.ts";

/** The size of a role's key, of the service's secret, and of the service's public key. */
export const KEY_BYTES = 32;

/** Makes a fresh random nonce for one hello. */
export function freshNonce(): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** What both sides said before the proofs: the connector's hello, the service's without proof. */
export interface Exchange {
  connector: Record<string, unknown>;
  service: Record<string, unknown>;
}

function exchangeBytes(label: string, exchange: Exchange): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${label}\n${canonicalJson(exchange)}`);
}

const SERVICE_LABEL = "ghostlight-service-proof-v2";
const PEER_LABEL = "ghostlight-peer-proof-v2";

/** The service's proof: its Ed25519 signature over the exchange. */
export async function signAsService(signer: CryptoKey, exchange: Exchange): Promise<string> {
  const signature = await crypto.subtle.sign(
    "Ed25519",
    signer,
    exchangeBytes(SERVICE_LABEL, exchange),
  );
  return encodeBase64(new Uint8Array(signature));
}

/** True when `proof` is the service's signature over the exchange, checked with its public key. */
export async function verifyServiceProof(
  publicKey: Uint8Array,
  exchange: Exchange,
  proof: string,
): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = decodeBase64(proof) as Uint8Array<ArrayBuffer>;
  } catch {
    return false;
  }
  const key = await crypto.subtle.importKey(
    "raw",
    publicKey as Uint8Array<ArrayBuffer>,
    { name: "Ed25519" },
    false,
    ["verify"],
  );
  return await crypto.subtle.verify(
    "Ed25519",
    key,
    signature,
    exchangeBytes(SERVICE_LABEL, exchange),
  );
}

/** HMAC-SHA-256 of `message` under `key`. */
export async function hmac(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey(
    "raw",
    key as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(
    await crypto.subtle.sign("HMAC", imported, message as Uint8Array<ArrayBuffer>),
  );
}

/** A connector's proof: the HMAC of the exchange under its role's key. */
export async function computePeerProof(roleKey: Uint8Array, exchange: Exchange): Promise<string> {
  return encodeBase64(await hmac(roleKey, exchangeBytes(PEER_LABEL, exchange)));
}

/** Compares two proofs without an early exit. */
export function proofsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Reads a key file, refusing one that others can read, that another user owns, that is not a
 * plain file, or that has the wrong size.
 */
export async function readKeyFile(path: string): Promise<Uint8Array> {
  const info = await Deno.lstat(path);
  if (!info.isFile) {
    throw new Error(`${path} is not a plain file; remove it and restart the service`);
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new Error(`${path} is readable by other users; remove it and restart the service`);
  }
  if (info.uid !== null && info.uid !== Deno.uid()) {
    throw new Error(`${path} is owned by another user; remove it and restart the service`);
  }
  if (info.size !== KEY_BYTES) throw new Error(`${path} is not a Ghostlight key`);
  // Opened as the file just checked, or not at all: a name swapped for a link, a FIFO or another
  // file since is refused (decision 0339).
  const key = await readRegularFile(path, { maxBytes: KEY_BYTES });
  if (key === null) throw new Deno.errors.NotFound(`${path} was removed while it was read`);
  if (key.length !== KEY_BYTES) throw new Error(`${path} is not a Ghostlight key`);
  return key;
}
