/**
 * Redaction of URLs shown to the model: credential-like query values (tokens, keys, session
 * ids, OAuth codes), the password in the user-info part, and anything else that looks like a
 * secret.
 *
 * @module
 */

import { REDACTED, redactSecrets } from "./redact.ts";
import { rememberLast } from "./last_value.ts";

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
