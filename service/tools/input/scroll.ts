/**
 * Scrolling: a wheel turn at a point (or the middle of what scrolls), with where the page and the
 * inner scroller under that point stood before and after; and a ref scrolled into view. computer
 * and act_on scroll through it.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { success, type ToolContext } from "../core/context.ts";
import { cdp, type TabTarget } from "../core/target.ts";
import type { ScrollProbe } from "../page_runtime/contract.ts";
import { mainWorldCall, resolveRef, type RuntimeCall } from "../page/frames.ts";
import { checkFrames } from "./act.ts";
import { toViewport } from "./coordinates.ts";
import { dispatch, mouse } from "./send.ts";

/** CSS pixels one scroll_amount step moves. */
const SCROLL_STEP_PX = 100;

/** A scroll asked for: which way, how many steps, and at which screenshot pixel (if given). */
export interface ScrollIntent {
  direction: string;
  amount: number;
  coordinate?: number[];
}

/** Turns the wheel; answers where the page and the scroller under the point stood around it. */
export async function scrollBy(
  context: ToolContext,
  target: TabTarget,
  intent: ScrollIntent,
): Promise<{ from: ScrollProbe | null; to: ScrollProbe | null }> {
  const { direction, amount, coordinate } = intent;
  const given = coordinate
    ? await toViewport(context.workspace, target, coordinate, "coordinate")
    : null;
  const from = await pageValue(target, mainWorldCall("scrollProbe", given));
  // A background tab renders no frames: bring it to the front, as a user scrolling would.
  if (from?.hidden) await cdp(target, "Page.bringToFront");
  const point = given ?? (from ? { x: from.centre[0], y: from.centre[1] } : { x: 100, y: 100 });
  await checkFrames(context, target, "scroll", point);
  const distance = amount * SCROLL_STEP_PX;
  const deltaX = direction === "left" ? -distance : direction === "right" ? distance : 0;
  const deltaY = direction === "up" ? -distance : direction === "down" ? distance : 0;
  await dispatch(target, [mouse("mouseWheel", point, { deltaX, deltaY })]);
  await pageValue(target, mainWorldCall("scrollSettled"));
  const to = await pageValue(target, mainWorldCall("scrollProbe", point));
  return { from, to };
}

async function pageValue<T>(target: TabTarget, expression: RuntimeCall<T>): Promise<T | null> {
  const reply = await target.link.call("cdp", {
    tab_id: target.native,
    method: "Runtime.evaluate",
    params: { expression, returnByValue: true, awaitPromise: true },
  }).catch(() => null);
  return ((reply?.result as { value?: T } | undefined)?.value ?? null) as T | null;
}

/** Scrolls a ref into view and says where its box now is (computer's and act_on's scroll_to). */
export async function scrollToRef(
  context: ToolContext,
  target: TabTarget,
  ref: string,
): Promise<Outcome> {
  const element = await resolveRef(context.workspace, target, ref, { scroll: true });
  const box = element.box;
  return success(
    `Scrolled ${ref} into view; its box is now x ${Math.round(box.x)}, y ${Math.round(box.y)}, ${
      Math.round(box.width)
    }×${Math.round(box.height)} CSS px${
      element.inViewport ? "" : " (still outside the viewport)"
    }.`,
    { tabId: target.tabId, ref, box, inViewport: element.inViewport },
  );
}
