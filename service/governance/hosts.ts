/**
 * Hosts and host patterns, as the policy speaks of them. A web page's host is the hostname of
 * its URL, lower-cased, without port or trailing dot; a blank page touches no site; any other
 * page (`data:`, `file:`, the browser's own) is named by its scheme, which only `*` matches.
 *
 * @module
 */

import { z } from "zod";

/** The host of a page, `null` for a blank page (it shows nothing of anyone's). */
export type PageHost = string | null;

/** Pages that show nothing: checking them against a site would mean nothing. */
const BLANK = new Set(["", "about:blank", "about:srcdoc"]);

/** The host a URL's page belongs to, as policy matches it. */
export function hostOfUrl(url: string): PageHost {
  if (BLANK.has(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "unknown:";
  }
  // A blob's page belongs to the origin that made it.
  if (parsed.protocol === "blob:") return hostOfUrl(parsed.pathname);
  if (!WEB.has(parsed.protocol) || parsed.hostname === "") return parsed.protocol;
  return normalHost(parsed.hostname);
}

/** Schemes whose pages belong to a site; any other page is named by its scheme. */
const WEB = new Set(["http:", "https:"]);

/**
 * The browser's own pages (settings, extensions, Ghostlight's own popup, DevTools): never
 * touched, like a sacred site, since driving them is driving the browser and the person's
 * controls.
 */
export const BROWSER_PAGES: ReadonlySet<string> = new Set([
  "chrome:",
  "chrome-extension:",
  "chrome-untrusted:",
  "chrome-search:",
  "devtools:",
  "edge:",
  "brave:",
  "opera:",
  "vivaldi:",
]);

/**
 * A host as policy compares it, from the hostname a URL parser gave (already ASCII): lower-cased,
 * without its trailing dot (`Example.COM.` is `example.com`), and an IPv4-mapped IPv6 address as
 * the IPv4 address it reaches (`[::ffff:127.0.0.2]`, which the parser writes `[::ffff:7f00:2]`,
 * is `127.0.0.2`). Every host the policy sees goes through here: a page's, a pattern's, and the
 * one `policy explain` is asked about.
 */
function normalHost(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, "");
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(lower);
  if (!mapped) return lower;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/**
 * The host a person names (`policy explain --host`), as enforcement would see a page there:
 * `BÜCHER.Example.` is `xn--bcher-kva.example`. Null when `name` is not a bare host.
 */
export function hostOfName(name: string): string | null {
  return asciiHost(name.trim().toLowerCase());
}

/**
 * What a host pattern says, checked: `*` (any page), `*.domain` (its subdomains, at any depth,
 * not the domain itself) or one exact host (a name, an IPv4 address or a bracketed IPv6 one).
 * Internationalised names are compared in their ASCII form, as browsers report them.
 */
export const HostPattern = z.string().transform((raw, context) => {
  const pattern = raw.trim().toLowerCase();
  if (pattern === "*") return pattern;
  const wildcard = pattern.startsWith("*.");
  const host = wildcard ? pattern.slice(2) : pattern;
  const ascii = asciiHost(host);
  if (ascii === null) {
    context.addIssue({
      code: "custom",
      message: `${JSON.stringify(raw)} is not a host pattern: write a host such as ` +
        '"example.com" or "127.0.0.1", "*.example.com" for its subdomains, or "*" for any ' +
        "page, without scheme, port or path",
    });
    return z.NEVER;
  }
  return wildcard ? `*.${ascii}` : ascii;
});

/** The ASCII form of a bare host, or null when `host` is not one. */
function asciiHost(host: string): string | null {
  if (host === "" || /[/:@?#\s*]/.test(host.replace(/^\[[0-9a-f:.]+\]$/, "v6"))) return null;
  try {
    const parsed = new URL(`http://${host}/`);
    return parsed.hostname === "" ? null : normalHost(parsed.hostname);
  } catch {
    return null;
  }
}

/** Whether a (checked) host pattern matches a page's host. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return pattern === host;
}

/**
 * Whether a sacred entry covers a host. A sacred entry covers its domain and every subdomain
 * (`bank.example` covers `www.bank.example`): for a site that must never be touched, matching
 * too much is the safe side.
 */
export function sacredCovers(entry: string, host: string): boolean {
  if (entry === "*") return true;
  const domain = entry.startsWith("*.") ? entry.slice(2) : entry;
  return host === domain || host.endsWith(`.${domain}`);
}
