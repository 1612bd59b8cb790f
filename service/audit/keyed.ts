/**
 * Keyed hashes for the audit: a call's arguments and its workspace are recorded as HMACs under a
 * key derived from the instance secret, so equal arguments can be matched across records while
 * nobody without the secret can test a guess of what they were (a typed password, a URL).
 *
 * @module
 */

/** Workspace tags remembered before the memory starts over (a few per agent). */
const MAX_WORKSPACE_TAGS = 1_024;

/** Lower-case hex of bytes. */
export function encodeHex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The audit's HMAC key, derived from the instance secret for this one use. */
export class AuditKey {
  readonly #key: CryptoKey;
  /** Workspace tags already made: a workspace's tag never changes, and every call needs it. */
  readonly #workspaces = new Map<string, Promise<string>>();

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** Derives the audit key from the instance secret (HMAC of a fixed label under the secret). */
  static async derive(secret: Uint8Array): Promise<AuditKey> {
    const master = await crypto.subtle.importKey(
      "raw",
      secret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const derived = await crypto.subtle.sign(
      "HMAC",
      master,
      new TextEncoder().encode("ghostlight-audit-key-v1"),
    );
    return new AuditKey(
      await crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
      ]),
    );
  }

  /** `hmac-sha256:` + hex of the arguments in canonical JSON (keys sorted, at every depth). */
  async arguments(args: Record<string, unknown>): Promise<string> {
    return `hmac-sha256:${await this.#mac(`args\n${canonicalJson(args)}`)}`;
  }

  /** A short tag that tells one workspace's records apart without naming its id. */
  workspace(id: string): Promise<string> {
    let tag = this.#workspaces.get(id);
    if (tag === undefined) {
      if (this.#workspaces.size >= MAX_WORKSPACE_TAGS) this.#workspaces.clear();
      tag = this.#mac(`workspace\n${id}`).then((mac) => `ws-${mac.slice(0, 16)}`);
      this.#workspaces.set(id, tag);
      // A tag that could not be made is made again next time, not remembered as a failure.
      tag.catch(() => this.#workspaces.delete(id));
    }
    return tag;
  }

  async #mac(text: string): Promise<string> {
    const mac = await crypto.subtle.sign("HMAC", this.#key, new TextEncoder().encode(text));
    return encodeHex(new Uint8Array(mac));
  }
}

/** JSON with object keys sorted at every depth, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      item !== null && typeof item === "object" && !Array.isArray(item)
        ? Object.fromEntries(Object.keys(item).sort().map((key) => [key, item[key]]))
        : item,
  );
}
