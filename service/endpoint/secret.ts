/**
 * The instance secret the service proves itself with (HMAC over each connector's nonce), so a
 * process squatting on the socket path cannot pass for the service.
 *
 * @module
 */

import { readSecret, SECRET_BYTES } from "../../shared/proof.ts";

/**
 * Creates the instance secret (0600) if it does not exist yet, and returns it. Only the service
 * creates it; connectors only read it to check the service's proof.
 */
export async function ensureSecret(path: string): Promise<Uint8Array> {
  try {
    return await readSecret(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const secret = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  await Deno.writeFile(path, secret, { mode: 0o600, createNew: true });
  return secret;
}
