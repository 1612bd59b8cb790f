/**
 * The file-system path of a `file:` URL. A URL's `pathname` keeps percent-encoding: a source root
 * in "Claude Extensions" comes out as `Claude%20Extensions`, a folder that does not exist. JSR's
 * `fromFileUrl` is not reachable from this project, so this is its small equivalent.
 *
 * @module
 */

/** The path `url` (a `file:` URL) names, decoded; a Windows drive path loses its leading slash. */
export function pathOfFileUrl(url: URL | string): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") throw new Error(`${parsed.href} is not a file: URL`);
  const path = decodeURIComponent(parsed.pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}
