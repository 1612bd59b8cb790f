/**
 * The provenance record that goes with page-sourced structured content, so a client that reads
 * `structuredContent` instead of the fenced text still sees that names and values came from the
 * page and are untrusted.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { originOf } from "../core/safe_text.ts";

/** Provenance of content read from a page (the shape in the team's output schemas). */
export interface Provenance {
  pageSourced: true;
  untrusted: true;
  topOrigin: string;
  frameOrigin?: string;
  sessionNonce: string;
}

/** The provenance of content read from the page at `url`. */
export function provenance(
  workspace: Workspace,
  url: string,
  frameUrl?: string,
): Provenance {
  const topOrigin = originOf(url);
  const frameOrigin = frameUrl === undefined ? undefined : originOf(frameUrl);
  return {
    pageSourced: true,
    untrusted: true,
    topOrigin,
    ...(frameOrigin && frameOrigin !== topOrigin ? { frameOrigin } : {}),
    sessionNonce: workspace.fenceNonce,
  };
}
