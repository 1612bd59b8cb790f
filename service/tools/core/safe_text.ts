/**
 * Page-sourced text made fit for an answer, in the order an answer applies it: secrets redacted
 * (well-known key shapes, tokens, private keys, secret-keyed values), URLs shown without their
 * credentials and secret parameters, and what is left wrapped in a fence that names its origin
 * and carries the workspace's nonce, for text and for structured content alike. One module
 * (decision 0450): every answer that shows a page's words passes all of it, and each part leans
 * on the others (a fenced URL is a redacted one). The sections below keep what each part
 * guarantees.
 *
 * @module
 */

import { REDACTED } from "../page_runtime/contract.ts";
import type { Workspace } from "../../workspace/mod.ts";

// A one-entry memory for a pure function of a string: a call shows and judges its page's URL
// several times, and consecutive calls on one page the same URL, so the last answer is the one
// most often asked again.

/** `compute`, answering at once when asked again for the argument it was last given. */
export function rememberLast<T>(compute: (raw: string) => T): (raw: string) => T {
  let last: { raw: string; value: T } | null = null;
  return (raw) => {
    if (last?.raw === raw) return last.value;
    const value = compute(raw);
    last = { raw, value };
    return value;
  };
}

// Redaction of secret-looking strings in page-sourced text before it reaches the client: API
// keys with well-known prefixes, JSON Web Tokens, private keys, long random tokens, and values
// stored under secret-sounding keys. The values of secret fields (passwords, one-time codes, card
// codes) are already redacted in the page (`../page_runtime/secrets.ts`).
//
// Page text is hostile and can be large, so every pattern runs in time linear in the text: no
// unbounded run is followed by something that can fail and make the engine retry the run from
// each of its characters. Runs that must be followed by something are bounded or made atomic
// (`(?=(x+))\1` takes the whole run and never gives part of it back).

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

// Redaction of URLs shown to the model: credential-like query values (tokens, keys, session
// ids, OAuth codes), the password in the user-info part, and anything else that looks like a
// secret.

/** Query parameters whose values are credentials, whatever they look like. */
const SECRET_PARAM =
  /token|secret|^pass|passw|^pw$|^pwd$|^pin$|api[_-]?key|apikey|auth|session|signature|sig$|^code$|^key$|^otp$|cvv|cvc/i;

/** A URL with credential-like query values, its password and secret-looking parts replaced. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return redactSecrets(raw);
  }
  if (url.search.length > 1) {
    url.search = url.search.slice(1).split("&").map((pair) => {
      const name = pair.split("=", 1)[0];
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll("+", " "));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return SECRET_PARAM.test(decoded) ? `${name}=${REDACTED}` : pair;
    }).join("&");
  }
  const href = url.password ? url.href.replace(`:${url.password}@`, `:${REDACTED}@`) : url.href;
  return redactSecrets(href);
}

/** Longest URL shown; a page can make its own URL as long as it likes. */
const MAX_URL_CHARS = 2_000;

/**
 * A URL as it may leave the service, in text or structured content: redacted by
 * {@linkcode redactUrl} and cut to a bounded length. Every page URL shown goes through this.
 */
export const displayUrl: (raw: string) => string = rememberLast((raw) => {
  const url = redactUrl(raw);
  return url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url;
});

// Provenance fencing: page-sourced text goes to the model inside a fence that names its origin
// and carries the workspace's nonce, so text injected by a page cannot close the fence.

/** Wraps page-sourced text in an untrusted-content fence. */
export function fence(workspace: Workspace, origin: string, text: string): string {
  const tag = `page-content-${workspace.fenceNonce}`;
  return `<${tag} origin="${origin}" trust="untrusted">\n${text}\n</${tag}>`;
}

/** The origin of a URL, or the URL's scheme for opaque ones. */
export const originOf: (url: string) => string = rememberLast((url) => {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? `${parsed.protocol}` : parsed.origin;
  } catch {
    return "unknown";
  }
});

/**
 * A page's URL as an answer's text shows it (decision 0281): redacted and bounded like every URL
 * shown, its origin plain, since a page cannot change it without navigating (and the policy
 * decides every host it lands on), and the rest inside the untrusted fence, since a page can
 * rewrite its own path, query and fragment (`history.replaceState`). A URL with nothing after
 * its origin, and `about:blank`, is shown as it is.
 */
export function fencedUrl(workspace: Workspace, url: string): string {
  const shown = displayUrl(url);
  const origin = originOf(shown);
  const rest = shown.startsWith(origin) ? shown.slice(origin.length) : shown;
  if (rest === "" || rest === "/" || shown === "about:blank") return shown;
  return `${origin} ${fence(workspace, origin, rest)}`;
}

// One rule for page strings in structured content: every string in a result's structured content
// is fenced as untrusted, with the workspace's nonce, unless its key names a value the service
// itself made ({@linkcode SERVICE_KEYS}: refs, ids, origins, the service's own
// vocabularies). The rule is applied once, at the bridge's one door, to every call and every step,
// so a new tool's page strings are fenced without the tool doing anything; a key joins the list
// only when the service produced every value it can hold.

/**
 * Keys whose string values the service produced or validated, so the page cannot choose them:
 * ids the service minted, origins, and words from a fixed vocabulary. A URL is not one of them: a
 * page rewrites its own path, query and fragment (`history.replaceState`), so a `url` is fenced
 * whole like any page string, while its origin has its own key (decision 0281).
 */
export const SERVICE_KEYS: ReadonlySet<string> = new Set([
  "workspaceId",
  "ref",
  "origin",
  "topOrigin",
  "frameOrigin",
  "sessionNonce",
  "action",
  "targetAssurance",
  "kind",
  "tool",
  "imageId",
  "readyState",
  "delivery",
]);

/** Structured content with every page string fenced; service values and non-strings as they were. */
export function fenceStructured(
  workspace: Workspace,
  structured: Record<string, unknown>,
): Record<string, unknown> {
  return fenceObject(workspace, structured, "unknown");
}

/**
 * The origin page strings in `value` came from: its `url`'s, else the origin the service put
 * beside them (`origin`, `topOrigin`, or its provenance's `topOrigin`), else `inherited`.
 */
function originIn(value: Record<string, unknown>, inherited: string): string {
  if (typeof value.url === "string") return originOf(value.url);
  const provenance = value.provenance as { topOrigin?: unknown } | undefined;
  for (const known of [value.origin, value.topOrigin, provenance?.topOrigin]) {
    if (typeof known === "string" && known !== "") return known;
  }
  return inherited;
}

function fenceObject(
  workspace: Workspace,
  value: Record<string, unknown>,
  origin: string,
): Record<string, unknown> {
  const here = originIn(value, origin);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SERVICE_KEYS.has(key) ? keepServiceValue(workspace, item, here) : fenceValue(
      workspace,
      item,
      here,
    );
  }
  return out;
}

/** A service key's value: its strings stay; objects under it are walked like any other. */
function keepServiceValue(workspace: Workspace, value: unknown, origin: string): unknown {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((item) => keepServiceValue(workspace, item, origin));
  return fenceValue(workspace, value, origin);
}

function fenceValue(workspace: Workspace, value: unknown, origin: string): unknown {
  if (typeof value === "string") {
    return isFenced(workspace, value) ? value : fence(workspace, origin, value);
  }
  if (Array.isArray(value)) return value.map((item) => fenceValue(workspace, item, origin));
  if (value !== null && typeof value === "object") {
    return fenceObject(workspace, value as Record<string, unknown>, origin);
  }
  return value;
}

/** Whether `text` is one whole fence of this workspace (a step's result already fenced). */
export function isFenced(workspace: Workspace, text: string): boolean {
  const tag = `page-content-${workspace.fenceNonce}`;
  return text.startsWith(`<${tag} `) && text.endsWith(`\n</${tag}>`) &&
    text.indexOf(`</${tag}>`) === text.length - tag.length - 3;
}

/** The text inside a fence of this workspace; the text itself when it is not fenced. */
export function unfence(workspace: Workspace, text: string): string {
  if (!isFenced(workspace, text)) return text;
  return text.slice(text.indexOf(">\n") + 2, text.length - workspace.fenceNonce.length - 17);
}

/**
 * Structured content with this workspace's fences taken off again, for values that go back into
 * the page rather than to the model (`script`'s references).
 */
export function unfenceStructured(workspace: Workspace, value: unknown): unknown {
  if (typeof value === "string") return unfence(workspace, value);
  if (Array.isArray(value)) return value.map((item) => unfenceStructured(workspace, item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, unfenceStructured(workspace, item)]),
    );
  }
  return value;
}
