/**
 * Redaction of secret-looking strings in page-sourced text before it reaches the client: API
 * keys with well-known prefixes, JSON Web Tokens, private keys, long random tokens, and values
 * stored under secret-sounding keys. The values of secret fields (passwords, one-time codes, card
 * codes) are already redacted in the page (`../page_runtime/secrets.ts`).
 *
 * Page text is hostile and can be large, so every pattern runs in time linear in the text: no
 * unbounded run is followed by something that can fail and make the engine retry the run from
 * each of its characters. Runs that must be followed by something are bounded or made atomic
 * (`(?=(x+))\1` takes the whole run and never gives part of it back).
 *
 * @module
 */

/** What replaces a secret. */
export const REDACTED = "[redacted]";

const PATTERNS: readonly RegExp[] = [
  /(?<![A-Za-z0-9_-])eyJ(?=([A-Za-z0-9_-]{8,}))\1\.(?=([A-Za-z0-9_-]{8,}))\2\.[A-Za-z0-9_-]{8,}/g,
  /\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];

const PEM_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/g;

/** PEM private key blocks, found by scanning forward once (a lazy `[\s\S]*?` is quadratic). */
function redactPrivateKeys(text: string): string {
  let out = "";
  let from = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    PEM_END.lastIndex = PEM_BEGIN.lastIndex;
    const end = PEM_END.exec(text);
    // Without an end after this begin there is none after any later begin either.
    if (!end) break;
    out += text.slice(from, begin.index) + REDACTED;
    from = PEM_END.lastIndex;
    PEM_BEGIN.lastIndex = from;
  }
  return out + text.slice(from);
}

/** Values under keys like these are secrets whatever they look like. */
const SECRET_KEY =
  /(["']?)((?:[a-z0-9_-]{0,40}?)(?:password|passwd|secret|token|api[_-]?key|apikey|authorization|auth|session[_-]?id|cookie|private[_-]?key|access[_-]?key|otp|cvv|cvc))\1(\s*[:=]\s*)(["'])((?:(?!\4)[^\\\n]|\\.){4,})\4/gi;

/** A long unbroken run of letters and digits with both in it, as random tokens are. */
const LONG_TOKEN = /\b[A-Za-z0-9_+=-]{32,}\b/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function looksRandom(text: string): boolean {
  if (!/[0-9]/.test(text) || !/[A-Za-z]/.test(text) || UUID.test(text)) return false;
  // Slugs and ids join words and numbers with dashes; random tokens mix them inside one run.
  const mixed = text.split(/[-_]+/).filter((part) => /[0-9]/.test(part) && /[A-Za-z]/.test(part));
  return mixed.some((part) => part.length >= 16) || mixed.join("").length >= 24;
}

/** The text with secret-looking parts replaced by {@linkcode REDACTED}. */
export function redactSecrets(text: string): string {
  let out = redactPrivateKeys(text);
  for (const pattern of PATTERNS) out = out.replace(pattern, REDACTED);
  out = out.replace(
    SECRET_KEY,
    (_all, q: string, key: string, sep: string, vq: string) =>
      `${q}${key}${q}${sep}${vq}${REDACTED}${vq}`,
  );
  out = out.replace(LONG_TOKEN, (token) => looksRandom(token) ? REDACTED : token);
  return out;
}
