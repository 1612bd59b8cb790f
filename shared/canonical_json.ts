/**
 * JSON with object keys sorted at every depth, so that equal values give equal text: what the
 * audit hashes and what the handshake's proofs sign.
 *
 * @module
 */

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
