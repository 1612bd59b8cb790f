/**
 * The listing `tab.frames` answers: a tab's child sessions (out-of-process frames), with the ones
 * whose renderer did not take auto-attach in time marked `held` (decision 0700) only when the
 * service asked for the mark (feature `frame_holds`, decision 0761). A service from before the
 * mark does not ask: its schema of the listing has no such field and would refuse the whole
 * listing for it, so it is given the sessions unmarked, as it knew them.
 *
 * @module
 */

import type { OperationResult } from "../../shared/browser_protocol.ts";

/** One child session of a tab, as the listing names it. */
export type ChildSession = OperationResult<"tab.frames">["sessions"][number];

/**
 * The listing of `children`, the sessions in `held` marked when `mark` (the service asked);
 * every other field as the session was reported.
 */
export function frameListing(
  children: readonly ChildSession[],
  held: ReadonlySet<string>,
  mark: boolean,
): ChildSession[] {
  return children.map(({ held: _, ...child }) =>
    mark && held.has(child.session_id) ? { ...child, held: true as const } : child
  );
}
