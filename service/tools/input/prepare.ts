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
import {
  knownMain,
  type LeadingRead,
  leadingRead,
  type MainFrameRead,
  readWorld,
  VALUE_PATH,
} from "../page/main_frame_read.ts";
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
  /** The box's centre, rounded (absent from a runtime older than decision 0239). */
  point?: { x: number; y: number } | null;
  /** Whether the centre lands in a frame the world cannot enter (decision 0270). */
  framed?: boolean;
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
  /**
   * Whether the centre lands in a frame of another origin (an iframe over the element, or the
   * element an iframe): that frame is decided before the input is sent. True when not known.
   */
  framed: boolean;
  before: Before;
}

/** The page runtime's preparation of element `localId` for a pointer action. */
function prepareCall(workspace: Workspace, localId: number): string {
  return runtimeCall("prepareAction", counterKey(workspace), localId, { keep: CHANGED_KEPT });
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
    prepareCall(workspace, localId),
    [],
    // It answers at once (it finds, scrolls and looks without a promise): the evaluation and the
    // look at the frame tree go out together.
    { synchronous: true },
  );
  if (!read) return null;
  const found = foundIn(read, ref);
  return { ...found, before: await noteBefore(workspace, target, read.value!.before, read) };
}

/** The target as the lookup found it, the page's state before it aside; throws when gone. */
function foundIn(read: MainFrameRead<PreparedState>, ref: string): Omit<Prepared, "before"> {
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
    framed: read.value!.framed !== false,
  };
}

/**
 * A pointer action by ref in one message (decision 0239): the lookup {@linkcode prepareByRef}
 * makes, as the read that opens the action's page program, and what it found from its replies.
 */
export interface RefLookup {
  /** The lookup's two commands (the evaluation and the look at the frame tree). */
  read: LeadingRead<PreparedState>;
  /**
   * What the lookup found: with `fired`, whether the aimed commands went out (decided on the same
   * replies by the same rule as the program's condition), and the page before them, noted as of
   * `tabSerial` (when the message was sent). Null when the world was not current (nothing was
   * sent: the caller prepares the ordinary way). Throws when the element is gone.
   */
  found(
    lookup: Record<string, unknown>,
    look: Record<string, unknown>,
    tabSerial: number,
  ): Promise<
    { fired: true; prepared: Prepared } | { fired: false; found: Omit<Prepared, "before"> } | null
  >;
}

/** Where the lookup's value holds the centre the input is aimed at. */
export const AIM_POINT = [...VALUE_PATH, "point"];

/**
 * The tests of the lookup's value under which the input goes out: the element is visible, the
 * page in front, and the centre in no frame of another origin (that frame waits for the policy).
 */
export const AIM_READY: { path: string[]; equals: boolean }[] = [
  { path: [...VALUE_PATH, "described", "box", "visible"], equals: true },
  { path: [...VALUE_PATH, "before", "hidden"], equals: false },
  { path: [...VALUE_PATH, "framed"], equals: false },
];

/**
 * The lookup for `ref` as the read opening a page program, or null when the ref is not in the
 * main frame's known world: the caller then prepares in a round trip of its own.
 */
export function lookupByRef(
  workspace: Workspace,
  target: TabTarget,
  ref: string,
): RefLookup | null {
  const pages = tabPages(workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { tabId: target.tabId });
  if (knownMain(target, pages) !== frame) return null;
  const read = leadingRead<PreparedState>(frame, prepareCall(workspace, localId));
  if (!read) return null;
  const owned = new Set(workspace.tabs);
  return {
    read,
    async found(lookup, look, tabSerial) {
      const answer = read.answer(lookup, look);
      if (!answer) return null;
      const found = foundIn(answer, ref);
      const value = answer.value!;
      const point = value.point;
      const fired = found.visible && value.before.hidden === false && value.framed === false &&
        Number.isFinite(point?.x) && Number.isFinite(point?.y);
      if (!fired || !point) return { fired: false, found };
      const noted = await noteBefore(workspace, target, value.before, answer);
      return {
        fired: true,
        prepared: { ...found, centre: point, before: { ...noted, tabSerial, owned } },
      };
    },
  };
}
