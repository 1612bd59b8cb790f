/**
 * `narrate`: a caption ribbon over the page so the user can follow the agent. The ribbon
 * (`page_runtime/narrate.ts`) lets clicks through, goes away on its own, and lives where no
 * reader looks, so it never comes back in read_page, find or get_page_text.
 *
 * @module
 */

import { type Handler, success } from "../core/context.ts";
import { ownedTab } from "../core/target.ts";
import type { CaptionPosition } from "../page_runtime/contract.ts";
import { inMainFrame, runtimeCall, tabPages } from "../page/frames.ts";

/** How long a caption shows when the call names no time. */
const DEFAULT_DURATION_MS = 5_000;

/** `narrate`. */
export const narrate: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const durationMs = (args.duration_ms as number | undefined) ?? DEFAULT_DURATION_MS;
  const shown = await inMainFrame(
    target,
    tabPages(context.workspace, target.tabId),
    runtimeCall("showCaption", args.text as string, {
      position: (args.position as "auto" | CaptionPosition | undefined) ?? "auto",
      durationMs,
    }),
    { synchronous: true },
  );
  return success(
    `Showing your caption at the ${shown.position} of tab ${target.tabId} for ` +
      `${durationMs / 1000} s. It lets clicks through and is not part of what you read.`,
    { tabId: target.tabId, position: shown.position, durationMs },
  );
};
