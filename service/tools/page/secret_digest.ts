/**
 * Redacting a page's secret field values from text without the values leaving the page.
 *
 * Before an agent's script runs, the page's isolated world hashes each secret field's value
 * (password, one-time code, ...) with a polynomial hash whose base the service picks at random
 * for that call, and hands back only the lengths and hashes. If a JavaScript dialog then freezes
 * the page before the result can be redacted in the page, the service still finds those values
 * in the result by rolling the same hash over it. Two moduli below 2^26 keep every product
 * exact in a double and make a false match about one in 2^52 (a false match only hides text).
 *
 * @module
 */

/**
 * A secret's digest: its length and hash, and how it matches: `whole` only the entire text,
 * `run` anywhere, `quoted` a JSON string literal anywhere (replaced by `"[redacted]"`).
 */
export interface SecretDigest {
  length: number;
  h1: number;
  h2: number;
  match: "whole" | "run" | "quoted";
}

/** The two moduli, primes just below 2^26. */
export const MODULI: readonly [number, number] = [67_108_859, 67_108_837];
const [M1, M2] = MODULI;

/**
 * The hash of `text` under `base` and the two `moduli`, as `[h1, h2]`. Injected into the page by
 * its source, so it uses nothing from its surroundings.
 */
export function digestOf(
  text: string,
  base: number,
  [m1, m2]: readonly [number, number],
): [number, number] {
  let h1 = 0;
  let h2 = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = (h1 * base + c) % m1;
    h2 = (h2 * base + c) % m2;
  }
  return [h1, h2];
}

/** A fresh random base for one call, so digests from one call say nothing about another's. */
export function randomBase(): number {
  const [n] = crypto.getRandomValues(new Uint32Array(1));
  return 65_537 + (n % (M2 - 65_537));
}

/** Where in `text` a substring of `length` has the hash `[h1, h2]`: the start of each match. */
function matchesOf(text: string, digest: SecretDigest, base: number): number[] {
  const { length, h1, h2 } = digest;
  if (length === 0 || length > text.length) return [];
  if (digest.match === "whole") {
    const [w1, w2] = digestOf(text, base, MODULI);
    return length === text.length && w1 === h1 && w2 === h2 ? [0] : [];
  }
  // base^(length-1), to take the leading character out of the window.
  let p1 = 1;
  let p2 = 1;
  for (let i = 1; i < length; i++) {
    p1 = (p1 * base) % M1;
    p2 = (p2 * base) % M2;
  }
  let [r1, r2] = digestOf(text.slice(0, length), base, MODULI);
  const found: number[] = [];
  for (let start = 0;; start++) {
    if (r1 === h1 && r2 === h2) found.push(start);
    const next = start + length;
    if (next >= text.length) return found;
    const out = text.charCodeAt(start);
    const into = text.charCodeAt(next);
    r1 = (((r1 - (out * p1) % M1 + M1) % M1) * base + into) % M1;
    r2 = (((r2 - (out * p2) % M2 + M2) % M2) * base + into) % M2;
  }
}

/** `text` with every run whose digest is one of `digests` replaced by `[redacted]`. */
export function redactByDigests(text: string, digests: SecretDigest[], base: number): string {
  const runs: { start: number; end: number; quoted: boolean }[] = [];
  for (const digest of digests) {
    for (const start of matchesOf(text, digest, base)) {
      runs.push({ start, end: start + digest.length, quoted: digest.match === "quoted" });
    }
  }
  // Earliest first, the longest of those that start together; overlaps join the run before.
  runs.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  for (const run of runs) {
    if (run.start < at) {
      at = Math.max(at, run.end);
      continue;
    }
    out += text.slice(at, run.start) + (run.quoted ? '"[redacted]"' : "[redacted]");
    at = run.end;
  }
  return out + text.slice(at);
}
