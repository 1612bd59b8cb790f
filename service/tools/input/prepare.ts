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
import { type RuntimeAnswer, type RuntimeCall, runtimeCall } from "../page/in_page.ts";
import {
  aimedRead,
  type Command,
  knownMain,
  type MainFrameRead,
  readWorld,
  VALUE_PATH,
} from "../page/main_frame_read.ts";
import { lookupRef, refGone, tabPages } from "../page/refs.ts";
import {
  type Before,
  carriesOneMessage,
  CHANGED_KEPT,
  counterKey,
  type Described,
  noteBefore,
} from "./receipt.ts";

/** What the page runtime's `prepareAction` reports. */
type PreparedState = RuntimeAnswer<"prepareAction">;

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
function prepareCall(workspace: Workspace, localId: number): RuntimeCall<PreparedState> {
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
 * makes first, then the input, each of its commands aimed by the lookup's replies. The
 * extension sends an aimed command only when the lookup found the element visible, on a page in
 * front, in the document the frame tree still shows, and gives it the element's centre as its x
 * and y; otherwise nothing of the action is sent.
 */
export interface AimedLookup {
  /** The lookup's two commands, which open the message. */
  commands: Command[];
  /**
   * `command`, at `index` in the message, sent only when the lookup found its target ready;
   * with `point`, at the target's centre.
   */
  aim(command: Command, index: number, point: boolean): Command;
  /**
   * What the lookup found, from the message's replies: with `fired`, whether the aimed commands
   * went out (decided on the same replies by the same rule as the extension's), and the page
   * before them, noted as of `tabSerial` (when the message was sent). Null when the world was not
   * current (nothing was sent: the caller prepares the ordinary way). Throws when the element is
   * gone.
   */
  found(
    replies: Record<string, unknown>[],
    tabSerial: number,
  ): Promise<
    { fired: true; prepared: Prepared } | { fired: false; found: Omit<Prepared, "before"> } | null
  >;
}

/**
 * The aimed lookup for `ref`, or null when the extension cannot carry it (`reply_values`, and
 * `after_replies` for the receipt's read after the input) or the ref is not in the main frame's
 * known world: the caller then prepares in a round trip of its own.
 */
export function aimByRef(
  workspace: Workspace,
  target: TabTarget,
  ref: string,
): AimedLookup | null {
  if (!carriesOneMessage(target)) return null;
  const pages = tabPages(workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { tabId: target.tabId });
  if (knownMain(target, pages) !== frame) return null;
  const read = aimedRead<PreparedState>(
    frame,
    prepareCall(workspace, localId),
    [
      { path: ["described", "box", "visible"], equals: true },
      { path: ["before", "hidden"], equals: false },
      // Input that would land in a frame of another origin waits for the policy's word on it.
      { path: ["framed"], equals: false },
    ],
  );
  if (!read) return null;
  const owned = new Set(workspace.tabs);
  return {
    commands: read.commands,
    aim(command, index, point) {
      const aimed = read.aim(command, index);
      if (!point) return aimed;
      // The evaluation is the message's first command: `index` back from this one.
      return {
        ...aimed,
        paramsFrom: [
          { reply: index, path: [...VALUE_PATH, "point", "x"], param: "x" },
          { reply: index, path: [...VALUE_PATH, "point", "y"], param: "y" },
        ],
      };
    },
    async found(replies, tabSerial) {
      const answer = read.answer(replies);
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
