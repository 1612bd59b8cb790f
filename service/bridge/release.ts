/**
 * Releasing a workspace's tabs without lying about them: the release waits for the call running
 * in the workspace's lane (it may be creating a tab right now), then gives back every tab the
 * workspace owns by then. Calls still queued in the lane are not waited for; they find the
 * workspace released when their turn comes and are not dispatched (`work.ts`).
 *
 * @module
 */

import type { BrowserHub } from "../browser/mod.ts";
import type { Scheduler } from "../scheduler/mod.ts";
import { releaseTabs } from "../tools/mod.ts";
import type { Workspace } from "../workspace/mod.ts";

/** What `WorkspaceHolds` calls to give a released workspace's tabs back to the user. */
export function releaseAfterRunning(
  scheduler: Scheduler,
  browsers: BrowserHub,
): (workspace: Workspace) => void {
  return (workspace) => {
    scheduler.afterRunning(workspace.id).then(() => releaseTabs(workspace, browsers));
  };
}
