/**
 * Provenance fencing: page-sourced text goes to the model inside a fence that names its origin
 * and carries the workspace's nonce, so text injected by a page cannot close the fence.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { rememberLast } from "./last_value.ts";
import { displayUrl } from "./redact_url.ts";

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
