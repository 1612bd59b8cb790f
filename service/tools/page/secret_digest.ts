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

/** Where in `text` a substring of `length` has one of `hashes` (`"h1:h2"`): each match's start. */
function matchesOf(text: string, length: number, hashes: Set<string>, base: number): number[] {
  if (length === 0 || length > text.length) return [];
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
    if (hashes.has(`${r1}:${r2}`)) found.push(start);
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
  if (digests.length === 0 || text === "") return text;
  const runs: { start: number; end: number; quoted: boolean }[] = [];
  const [w1, w2] = digestOf(text, base, MODULI);
  // One rolling pass per length and kind, however many secrets share it: a page with many
  // fields costs passes by their distinct lengths, not by their number.
  const passes = new Map<string, { length: number; quoted: boolean; hashes: Set<string> }>();
  for (const { length, h1, h2, match } of digests) {
    if (match === "whole") {
      if (length === text.length && h1 === w1 && h2 === w2) {
        runs.push({ start: 0, end: length, quoted: false });
      }
      continue;
    }
    const key = `${match}:${length}`;
    const pass = passes.get(key) ?? { length, quoted: match === "quoted", hashes: new Set() };
    pass.hashes.add(`${h1}:${h2}`);
    passes.set(key, pass);
  }
  for (const { length, quoted, hashes } of passes.values()) {
    for (const start of matchesOf(text, length, hashes, base)) {
      runs.push({ start, end: start + length, quoted });
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

/** The parts of a URL between its separators, each judged decoded as well as written. */
const URL_PART = /[^/?&=#;]+/g;

/**
 * A URL with every secret found by `digests` replaced: in the text as written, and in each part
 * between separators decoded (percent-escapes, and `+` as a space), since a page sends a value in
 * a URL encoded and the digests are of the value as the field held it. A part that holds a
 * secret once decoded is replaced whole.
 */
export function redactUrlByDigests(url: string, digests: SecretDigest[], base: number): string {
  if (digests.length === 0) return url;
  return redactByDigests(url, digests, base).replace(URL_PART, (part) => {
    for (const decoded of new Set([part.replaceAll("+", " "), part])) {
      let plain = decoded;
      try {
        plain = decodeURIComponent(decoded);
      } catch {
        // A malformed escape: judged as written.
      }
      if (plain !== part && redactByDigests(plain, digests, base) !== plain) return "[redacted]";
    }
    return part;
  });
}

/**
 * `kept` with the digests of `added` it lacks appended, and only the newest `max` of all: what a
 * tab keeps across reads of its page (decision 0282).
 */
export function keepDigests(kept: SecretDigest[], added: SecretDigest[], max: number): void {
  const key = (d: SecretDigest) => `${d.match}:${d.length}:${d.h1}:${d.h2}`;
  const known = new Set(kept.map(key));
  for (const digest of added) {
    if (!known.has(key(digest))) {
      known.add(key(digest));
      kept.push(digest);
    }
  }
  kept.splice(0, Math.max(0, kept.length - max));
}
