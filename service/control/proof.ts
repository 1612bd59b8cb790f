/**
 * The control socket's proof (decision 0250). Reaching the socket is not enough to change
 * anything, or to read what the agents do: every POST and every revealing read carries a `Ghostlight-Proof` header, the HMAC, under a key derived from
 * the service's own secret, of its method, target, body, a time and a fresh nonce. Only the
 * service's permission set (the service and the person's `ghostlight` command) and the person's
 * doctor can read that secret; no connector's set can. A proof is accepted once, and only within
 * {@linkcode PROOF_WINDOW_MS} of the service's clock.
 *
 * @module
 */

import { encodeBase64 } from "../../shared/base64.ts";
import { freshNonce, hmac, proofsEqual } from "../../shared/proof.ts";

/** The header that carries a control request's proof. */
export const PROOF_HEADER = "ghostlight-proof";
/** How far a proof's time may be from the service's clock, either way. */
export const PROOF_WINDOW_MS = 30_000;
/**
 * Accepted proofs remembered, so none is accepted twice within the window. Only proven requests
 * are remembered: a process without the key cannot fill the memory.
 */
export const MAX_REMEMBERED_PROOFS = 1_024;

/** What a proof covers of a request. */
export interface ProvedRequest {
  method: string;
  /** The target as sent: path and query. */
  path: string;
  body: Uint8Array;
}

const encoder = new TextEncoder();

async function mac(key: Uint8Array, request: ProvedRequest, at: number, nonce: string) {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", request.body as Uint8Array<ArrayBuffer>),
  );
  const text = [
    "ghostlight-control-v1",
    request.method,
    request.path,
    String(at),
    nonce,
    encodeBase64(digest),
  ].join("\n");
  return encodeBase64(await hmac(key, encoder.encode(text)));
}

/** The `Ghostlight-Proof` header value for `request`, made at `at` with the control key. */
export async function proveRequest(
  key: Uint8Array,
  request: ProvedRequest,
  at: number = Date.now(),
): Promise<string> {
  const nonce = freshNonce();
  return `v1 ${at} ${nonce} ${await mac(key, request, at, nonce)}`;
}

/** Checks control requests' proofs for a running service. */
export class ControlProofs {
  readonly #key: Uint8Array;
  readonly #now: () => number;
  /** Accepted nonces and when each may be forgotten (past the window it is refused anyway). */
  readonly #seen = new Map<string, number>();

  constructor(key: Uint8Array, options: { now?: () => number } = {}) {
    this.#key = key;
    this.#now = options.now ?? Date.now;
  }

  /** Null when `header` proves `request`, else why not (for the refusal's words). */
  async check(request: ProvedRequest, header: string | null): Promise<string | null> {
    if (header === null) {
      return "this request changes or reveals something and carries no proof; only the " +
        "person's 'ghostlight' command may send it";
    }
    const [version, atText, nonce, proof, ...rest] = header.split(" ");
    const at = Number(atText);
    if (version !== "v1" || rest.length > 0 || !Number.isSafeInteger(at) || !nonce || !proof) {
      return "the request's proof is malformed";
    }
    const now = this.#now();
    if (Math.abs(now - at) > PROOF_WINDOW_MS) return "the request's proof is out of date";
    if (!proofsEqual(await mac(this.#key, request, at, nonce), proof)) {
      return "the request's proof is not the service's; only the person's 'ghostlight' " +
        "command may send it";
    }
    for (const [seen, until] of this.#seen) if (until < now) this.#seen.delete(seen);
    if (this.#seen.has(nonce)) return "the request's proof was used already";
    if (this.#seen.size >= MAX_REMEMBERED_PROOFS) {
      return "too many control requests in the last minute; try again";
    }
    this.#seen.set(nonce, at + PROOF_WINDOW_MS);
    return null;
  }
}
