/**
 * Provenance fencing: page-sourced text goes to the model inside a fence that names its origin
 * and carries the workspace's nonce, so text injected by a page cannot close the fence.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { rememberLast } from "./last_value.ts";

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
