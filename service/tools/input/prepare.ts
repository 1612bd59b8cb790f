/**
 * A pointer action's target by ref, made ready in one visit to the page: the element described,
 * scrolled into view when it is visible but outside the viewport, what covers its centre, and
 * the page noted for the receipt. Only for refs in the main frame's world, whose check that the
 * world is current travels in the same round trip; a ref elsewhere takes the ordinary path.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { runtimeCall } from "../page/in_page.ts";
import { readWorld } from "../page/main_frame_read.ts";
import { lookupRef, refGone, tabPages } from "../page/refs.ts";
import {
  type Before,
  type BeforeState,
  CHANGED_KEPT,
  counterKey,
  type Described,
  noteBefore,
} from "./receipt.ts";

/** What the page runtime's `prepareAction` reports. */
interface PreparedState {
  described: {
    role: string;
    name: string;
    enabled: boolean;
    box: { x: number; y: number; width: number; height: number; visible: boolean } | null;
  } | null;
  cover: string | null;
  before: BeforeState;
}

/** A ref's target ready for a pointer action. */
export interface Prepared {
  visible: boolean;
  /** Where the action lands, in top-level viewport CSS pixels. */
  centre: { x: number; y: number };
  element: Described;
  /** What lies on top of the element's centre, when something does. */
  cover: string | null;
  before: Before;
}

/**
 * Prepares `ref` in one round trip, or null when it is not in the main frame's current world
 * (the caller then resolves it the ordinary way, which also says when it is gone). Throws the
 * model-facing error for a malformed ref or one whose element is gone.
 */
export async function prepareByRef(
  workspace: Workspace,
  target: TabTarget,
  ref: string,
): Promise<Prepared | null> {
  const pages = tabPages(workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { tabId: target.tabId });
  const read = await readWorld<PreparedState>(
    target,
    frame,
    runtimeCall("prepareAction", counterKey(workspace), localId, { keep: CHANGED_KEPT }),
    [],
    // It answers at once (it finds, scrolls and looks without a promise): the evaluation and the
    // look at the frame tree go out together.
    { synchronous: true },
  );
  if (!read) return null;
  const described = read.value?.described;
  if (!described || !described.box) throw refGone(ref);
  const box = described.box;
  return {
    visible: box.visible,
    centre: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
    element: {
      role: described.role,
      name: described.name,
      tag: "",
      ...(described.enabled ? {} : { disabled: true }),
    },
    cover: read.value!.cover,
    before: await noteBefore(workspace, target, read.value!.before, read),
  };
}
