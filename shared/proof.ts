/**
 * The proofs of the handshake. The service keeps a 32-byte secret readable only by its user; a
 * connector sends a fresh nonce and accepts the service only if it answers with the HMAC of that
 * nonce under the secret (so a process squatting the socket path cannot pass for the service),
 * and the service admits the connector only if it answers the service's own fresh challenge the
 * same way (so a process that can reach the socket but not the secret is never a peer). The two
 * proofs sign different labels, so neither can be replayed as the other.
 *
 * @module
 */

import { encodeBase64 } from "./base64.ts";

/** The size of an instance secret. */
export const SECRET_BYTES = 32;

/** Makes a fresh random nonce for one hello. */
export function freshNonce(): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** Computes the proof a genuine service gives for a hello's nonce and role. */
export async function computeProof(
  secret: Uint8Array,
  hello: { nonce: string; role: string },
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    secret as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const message = new TextEncoder().encode(`ghostlight-proof-v1\n${hello.role}\n${hello.nonce}`);
  return encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, message)));
}

/**
 * Computes the proof a genuine connector gives for the service's challenge, bound to its own
 * hello's nonce and role.
 */
export async function computePeerProof(
  secret: Uint8Array,
  exchange: { role: string; nonce: string; challenge: string },
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    secret as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const message = new TextEncoder().encode(
    `ghostlight-peer-proof-v1\n${exchange.role}\n${exchange.challenge}\n${exchange.nonce}`,
  );
  return encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, message)));
}

/** Compares two proofs without an early exit. */
export function proofsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Reads the instance secret, refusing one that others can read or that has the wrong size. */
export async function readSecret(path: string): Promise<Uint8Array> {
  const info = await Deno.stat(path);
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new Error(`${path} is readable by other users; remove it and restart the service`);
  }
  if (info.uid !== null && info.uid !== Deno.uid()) {
    throw new Error(`${path} is owned by another user; remove it and restart the service`);
  }
  const secret = await Deno.readFile(path);
  if (secret.length !== SECRET_BYTES) throw new Error(`${path} is not a Ghostlight secret`);
  return secret;
}
