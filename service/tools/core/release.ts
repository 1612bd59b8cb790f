/**
 * Giving a workspace's tabs back to the person when the workspace is released: the bridge calls
 * it, below the tool handlers.
 *
 * @module
 */

import { type BrowserHub, decomposeTabId } from "../../browser/mod.ts";
import { log } from "../../log/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";

/**
 * Gives a released workspace's tabs back to the user: each is detached from the debugger and no
 * longer observed. Best effort and in the background (a tab may be gone, a browser may be
 * disconnected); the log gets counts.
 */
export function releaseTabs(workspace: Workspace, hub: BrowserHub): void {
  const calls = [...workspace.tabs].map(async (tabId) => {
    const parts = decomposeTabId(tabId);
    const link = parts && hub.bySlot(parts.slot);
    if (!parts || !link) return false;
    const released = await link.call("tab.release", { tab_id: parts.native });
    return released.detached;
  });
  Promise.allSettled(calls).then((results) => {
    const detached = results.filter((r) => r.status === "fulfilled" && r.value).length;
    log("info", `released a workspace's ${results.length} tab(s); ${detached} detached`);
  });
}
