/**
 * Keyed hashes for the audit: a call's arguments and its workspace are recorded as HMACs under a
 * key derived from the instance secret, so equal arguments can be matched across records while
 * nobody without the secret can test a guess of what they were (a typed password, a URL).
 *
 * The hashes are made with `node:crypto`, synchronously in this thread: WebCrypto's `subtle` sends
 * each to a worker thread and back, 50–70 µs a hash on this machine against 1–10 µs here, and every
 * call needs two or three (decision 0216). The HMAC is RFC 2104's two SHA-256 passes over the key's
 * pads, made once: `createHmac` builds a stream object and prepares its key on every call, 80–125
 * µs of each call in the service against a third of that (issue 14). The bytes are the same
 * HMAC-SHA-256.
 *
 * @module
 */

import { createHash, createHmac } from "node:crypto";
import { canonicalJson } from "../../shared/canonical_json.ts";

export { canonicalJson };

/** SHA-256's block size: an HMAC key is padded to it. */
const BLOCK_BYTES = 64;

/** Workspace tags remembered before the memory starts over (a few per agent). */
const MAX_WORKSPACE_TAGS = 1_024;

/** Lower-case hex of bytes. */
export function encodeHex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** HMAC-SHA-256 under one derived key, its pads made once; hex out. */
class PaddedHmac {
  /** The key XOR the inner and the outer pad (RFC 2104), made once. */
  readonly #innerPad: Uint8Array;
  readonly #outerPad: Uint8Array;

  constructor(key: Uint8Array) {
    // The derived key is one SHA-256 output, shorter than a block, so it is padded as it is.
    if (key.length > BLOCK_BYTES) throw new Error("an audit key is at most one block long");
    this.#innerPad = keyPad(key, 0x36);
    this.#outerPad = keyPad(key, 0x5c);
  }

  mac(text: string): string {
    const inner = createHash("sha256").update(this.#innerPad).update(text, "utf8").digest();
    return createHash("sha256").update(this.#outerPad).update(inner).digest("hex");
  }
}

/**
 * The key that chains the audit's records and MACs its anchor (decision 0285). The one place it
 * is made: from the service's own secret, the bytes only the service and the person's own
 * commands read. Whoever lacks them cannot recompute a record's hash after editing it.
 */
export class ChainKey {
  readonly #hmac: PaddedHmac;

  private constructor(key: Uint8Array) {
    this.#hmac = new PaddedHmac(key);
  }

  /** The chain key of the service whose secret is `serviceSecret`. */
  static derive(serviceSecret: Uint8Array): ChainKey {
    return new ChainKey(hmac(serviceSecret, "ghostlight-audit-chain-v1"));
  }

  /** The keyed hash of a record's line or an anchor's text, `hmac-sha256:` + hex. */
  mac(text: string): string {
    return `hmac-sha256:${this.#hmac.mac(text)}`;
  }
}

/** The audit's HMAC key for arguments and workspaces, derived from the instance secret. */
export class AuditKey {
  readonly #hmac: PaddedHmac;
  /** Workspace tags already made: a workspace's tag never changes, and every call needs it. */
  readonly #workspaces = new Map<string, string>();

  private constructor(key: Uint8Array) {
    this.#hmac = new PaddedHmac(key);
  }

  /** Derives the audit key from the instance secret (HMAC of a fixed label under the secret). */
  static derive(secret: Uint8Array): AuditKey {
    return new AuditKey(hmac(secret, "ghostlight-audit-key-v1"));
  }

  /** `hmac-sha256:` + hex of the arguments in canonical JSON (keys sorted, at every depth). */
  arguments(args: Record<string, unknown>): string {
    return `hmac-sha256:${this.#mac(`args\n${canonicalJson(args)}`)}`;
  }

  /** A short tag that tells one workspace's records apart without naming its id. */
  workspace(id: string): string {
    let tag = this.#workspaces.get(id);
    if (tag === undefined) {
      if (this.#workspaces.size >= MAX_WORKSPACE_TAGS) this.#workspaces.clear();
      tag = `ws-${this.#mac(`workspace\n${id}`).slice(0, 16)}`;
      this.#workspaces.set(id, tag);
    }
    return tag;
  }

  #mac(text: string): string {
    return this.#hmac.mac(text);
  }
}

/** `key` zero-filled to a block, each byte XOR `pad`. */
function keyPad(key: Uint8Array, pad: number): Uint8Array {
  const out = new Uint8Array(BLOCK_BYTES).fill(pad);
  key.forEach((byte, i) => out[i] ^= byte);
  return out;
}

/** HMAC-SHA-256 of `text` (UTF-8) under `key`. */
function hmac(key: Uint8Array, text: string): Uint8Array {
  return new Uint8Array(createHmac("sha256", key).update(text, "utf8").digest());
}
