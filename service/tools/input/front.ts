/**
 * Which tab is likely behind another of its window (decision 0494): a tab the page runtime once
 * reported hidden, while the service has since brought another tab of the same browser to the
 * front. A ref click on such a tab brings it to the front inside its own message instead of
 * learning from the lookup that it is hidden and starting over. A hint only: a lookup that still
 * reports the tab hidden withholds the input as before.
 *
 * @module
 */

import type { TabState } from "../../browser/mod.ts";
import type { TabTarget } from "../core/target.ts";

/** Tabs a lookup found hidden at least once (behind another tab of their window). */
const seenBehind = new WeakSet<TabState>();
/** The tab each browser link last brought to the front, by its native id. */
const inFront = new WeakMap<object, number>();

/** Notes that `target` was found hidden, and brought to the front. */
export function broughtToFront(target: TabTarget): void {
  seenBehind.add(target.link.tab(target.native));
  inFront.set(target.link, target.native);
}

/**
 * Whether `target` is likely behind another tab now: once found hidden, and another tab was
 * brought to the front since. Notes it as in front, since the caller then brings it there.
 */
export function likelyBehind(target: TabTarget): boolean {
  const behind = seenBehind.has(target.link.tab(target.native)) &&
    inFront.get(target.link) !== target.native;
  if (behind) inFront.set(target.link, target.native);
  return behind;
}
