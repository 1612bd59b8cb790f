/**
 * Acting on a tab with pointer and keys: a handler states what it wants as an {@linkcode Intent}
 * (a click at a ref or a coordinate, a hover, a drag, typing, a key chord) and gets back the
 * receipt of what changed ({@linkcode Acted}), which {@linkcode actedOutcome} renders as the
 * call's answer. Where a ref can be, the target is found, aimed at and acted on in one message
 * to the page (decisions 0239, 0241); otherwise the target is found first and the input follows.
 * Input into a frame the policy refuses is refused before any is sent.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { capabilitiesFor } from "../../catalog/mod.ts";
import { success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import { checkInputFrames, frameGuard } from "../page/collect.ts";
import type { Command } from "../page/main_frame_read.ts";
import { resolveRef, tabPages } from "../page/refs.ts";
import { type Point, toViewport } from "./coordinates.ts";
import { chordEvents, parseChords, parseModifiers, typeEvents } from "./input.ts";
import { aimByRef, prepareByRef } from "./prepare.ts";
import {
  aimBefore,
  type Assurance,
  type Before,
  type Blocker,
  type Described,
  observeAfter,
  observeBefore,
  type Receipt,
  renderReceipt,
  type SettleRead,
  watchNavigation,
} from "./receipt.ts";
import type { NavigationWatch } from "./navigation_watch.ts";
import {
  clickEvents,
  dispatchSettling,
  mayPipeline,
  mouse,
  sendAimed,
  unlessClosed,
} from "./send.ts";
import { typeModeChoice, typeModeFrom, typeModeQuestion } from "./type_mode.ts";

/** Intermediate mouse positions of a drag, so pages that track movement see one. */
const DRAG_STEPS = 8;

/** Where a pointer action lands: a ref's centre (scrolled into view), or a screenshot pixel. */
export type At = { ref: string } | { coordinate: number[] };

/** What a handler asks the input layer to do on an owned tab. */
export type Intent =
  | {
    kind: "click";
    /** The action's name, as the receipt reports it (left_click, double_click, ...). */
    action: string;
    at: At;
    button: "left" | "right";
    clicks: number;
    /** The keys held during the click, as named in the contract ("ctrl+shift"). */
    modifiers?: string;
  }
  | { kind: "hover"; at: At }
  | { kind: "drag"; from: number[]; to: number[] }
  | { kind: "type"; text: string }
  | { kind: "key"; keys: string; repeat: number };

/** What an action did: the receipt of what changed, and the line its answer leads with. */
export interface Acted {
  tabId: number;
  receipt: Receipt;
  lead: string;
}

/** Carries out `intent` on `target`; answers its receipt once what the input caused is over. */
export function perform(context: ToolContext, target: TabTarget, intent: Intent): Promise<Acted> {
  switch (intent.kind) {
    case "click":
      return click(context, target, intent);
    case "hover":
      return pointerAction(intent.at, context, target, {
        action: "hover",
        input: (point) => [mouse("mouseMoved", point)],
        lead: (where) => `Hovering at ${describeWhere(where)}.`,
      });
    case "drag":
      return drag(context, target, intent.from, intent.to);
    case "type":
      return typeText(context, target, intent.text);
    case "key":
      return pressKey(context, target, intent.keys, intent.repeat);
  }
}

/** An action's receipt as the call's answer: its lead, what changed, fenced page words. */
export function actedOutcome(context: ToolContext, acted: Acted): Outcome {
  const { receipt } = acted;
  return success(renderReceipt(context.workspace, receipt, acted.lead), {
    tabId: acted.tabId,
    receipt,
    provenance: {
      pageSourced: true,
      untrusted: true,
      topOrigin: receipt.page.origin,
      sessionNonce: context.workspace.fenceNonce,
    },
  });
}

function describeWhere(where: { ref?: string; coordinate?: number[] }): string {
  return where.ref ? where.ref : `(${where.coordinate![0]}, ${where.coordinate![1]})`;
}

/** A click: left, right, double or triple, with optional modifiers. */
function click(
  context: ToolContext,
  target: TabTarget,
  intent: Extract<Intent, { kind: "click" }>,
): Promise<Acted> {
  const { action, button, clicks } = intent;
  const modifiers = parseModifiers(intent.modifiers);
  return pointerAction(intent.at, context, target, {
    action,
    input: (point) => clickEvents(point, button, clicks, modifiers),
    lead: (where) =>
      `${action} at ${describeWhere(where)}${modifiers ? ` with ${intent.modifiers}` : ""}.`,
  });
}

async function drag(
  context: ToolContext,
  target: TabTarget,
  start: number[],
  end: number[],
): Promise<Acted> {
  const from = await toViewport(context.workspace, target, start, "start_coordinate");
  const to = await toViewport(context.workspace, target, end, "coordinate");
  await checkFrames(context, target, "left_click_drag", from);
  await checkFrames(context, target, "left_click_drag", to);
  const events = [
    mouse("mouseMoved", from),
    mouse("mousePressed", from, { button: "left", buttons: 1, clickCount: 1 }),
  ];
  for (let step = 1; step <= DRAG_STEPS; step++) {
    const point = {
      x: from.x + (to.x - from.x) * step / DRAG_STEPS,
      y: from.y + (to.y - from.y) * step / DRAG_STEPS,
    };
    events.push(mouse("mouseMoved", point, { button: "left", buttons: 1 }));
  }
  events.push(mouse("mouseReleased", to, { button: "left", buttons: 0, clickCount: 1 }));
  return await act(
    context,
    target,
    "left_click_drag",
    { point: from, assurance: "coordinate", coordinate: start },
    events,
    `Dragged from (${start.join(", ")}) to (${end.join(", ")}).`,
  );
}

/** Types `text` (checked by the caller: not empty, not too long) where the focus is. */
async function typeText(context: ToolContext, target: TabTarget, text: string): Promise<Acted> {
  await checkFrames(context, target, "type", null);
  // Where the text went is the receipt's to say: the focused field, or nowhere (a blocker).
  const lead = `Typed ${[...text].length} characters.`;
  // Text goes in at once where nothing listens for keys; Return and Tab do more than insert.
  const ask = !/[\r\n\t]/.test(text);
  if (ask) {
    const aimed = await typeAimed(context, target, text, lead);
    if (aimed) return aimed;
  }
  const before = await observeBefore(context.workspace, target, {
    beside: ask ? typeModeQuestion() : [],
  });
  const mode = ask ? typeModeFrom(before.beside) : "keys";
  return await act(
    context,
    target,
    "type",
    { assurance: "none", before },
    mode === "insert" ? [{ method: "Input.insertText", params: { text } }] : typeEvents(text),
    lead,
  );
}

async function pressKey(
  context: ToolContext,
  target: TabTarget,
  text: string,
  repeat: number,
): Promise<Acted> {
  const mac = /Macintosh|Mac OS X/.test(target.link.details.userAgent);
  const once = chordEvents(parseChords(text), { mac });
  const events = Array.from({ length: repeat }, () => once).flat();
  await checkFrames(context, target, "key", null);
  return await act(
    context,
    target,
    "key",
    { assurance: "none" },
    events,
    `Pressed ${text.trim()}${repeat > 1 ? ` ×${repeat}` : ""}.`,
  );
}

/** Where an action lands and what is known about its target beforehand. */
interface Where {
  point?: Point;
  assurance: Assurance;
  ref?: string;
  coordinate?: number[];
  element?: Described;
  blockers?: Blocker[];
  /** The page before the action, when finding the target already noted it. */
  before?: Before;
}

function overlay(cover: string | null, ref: string, action: string): Blocker[] {
  return cover
    ? [{
      kind: "overlay",
      summary: `${cover} lies on top of ${ref}, so the ${action} reached it instead.`,
      nextStep: "Close or dismiss what covers it (Escape, its close button), then retry.",
    }]
    : [];
}

function notVisible(ref: string, role: string, name: string, action: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} (${role} "${name}") is not visible, so it cannot be ${action}ed.`,
    "Open whatever hides it (a menu, a tab), or find a visible element instead.",
  );
}

/** Where a pointer action lands: on a ref's centre (scrolled into view) or at a coordinate. */
async function pointFor(
  at: At,
  context: ToolContext,
  target: TabTarget,
  action: string,
): Promise<Where & { point: Point }> {
  const where = await pointOf(at, context, target, action);
  // Input that would land in a frame of another origin is decided on that frame's own host.
  if (where.framed !== false) await checkFrames(context, target, action, where.point);
  return where;
}

/**
 * Input into a frame the policy refuses for `action` is refused before any is sent: at `point`,
 * or where the focus is (null).
 */
export function checkFrames(
  context: ToolContext,
  target: TabTarget,
  action: string,
  point: Point | null,
): Promise<void> {
  const guard = frameGuard(context, capabilitiesFor("computer", { action }));
  return checkInputFrames(target, tabPages(context.workspace, target.tabId), point, guard);
}

/** Where a pointer action lands, with whether it is known to stay out of other origins' frames. */
async function pointOf(
  at: At,
  context: ToolContext,
  target: TabTarget,
  action: string,
): Promise<Where & { point: Point; framed?: boolean }> {
  if ("ref" in at) {
    const args = at;
    // One visit to the page finds, scrolls, checks and notes, for a ref in the main frame.
    const prepared = await prepareByRef(context.workspace, target, args.ref);
    if (prepared) {
      if (!prepared.visible) {
        throw notVisible(args.ref, prepared.element.role, prepared.element.name, action);
      }
      return {
        point: prepared.centre,
        assurance: "ref",
        ref: args.ref,
        element: prepared.element,
        blockers: overlay(prepared.cover, args.ref, action),
        before: prepared.before,
        framed: prepared.framed,
      };
    }
    // Scroll only when needed: a page that moves under a visible target invalidates the
    // coordinates of the screenshot the model holds.
    let element = await resolveRef(context.workspace, target, args.ref);
    if (element.visible && !element.inViewport) {
      element = await resolveRef(context.workspace, target, args.ref, { scroll: true });
    }
    if (!element.visible) throw notVisible(args.ref, element.role, element.name, action);
    const cover = await element.call<string | null>("coveredBy").catch(() => null);
    return {
      point: element.centre,
      assurance: "ref",
      ref: args.ref,
      element: {
        role: element.role,
        name: element.name,
        tag: "",
        ...(element.enabled ? {} : { disabled: true }),
      },
      blockers: overlay(cover, args.ref, action),
    };
  }
  const { coordinate } = at;
  return {
    point: await toViewport(context.workspace, target, coordinate, "coordinate"),
    assurance: "coordinate",
    coordinate,
  };
}

async function act(
  context: ToolContext,
  target: TabTarget,
  action: string,
  where: Where,
  commands: { method: string; params: Record<string, unknown> }[],
  lead: string,
): Promise<Acted> {
  const before = where.before ??
    await observeBefore(context.workspace, target, { point: where.point });
  const watch = watchNavigation(target, before);
  let first: SettleRead | "leaving" | undefined;
  try {
    first = await dispatchSettling(context, target, commands, watch);
  } catch (error) {
    await unlessClosed(target, before, watch, error);
  }
  return await answer(context, target, action, { ...where, before }, { watch, first }, lead);
}

/**
 * A pointer action by ref in one message to the page (decision 0239): the lookup that finds,
 * scrolls to and notes the target, the input aimed at the centre it found, and the receipt's
 * settle read, each sent by the extension only when the lookup's replies say the target is
 * visible in the document the frame still shows, on a page in front. The lookup's replies come
 * ahead of the rest (the input may be held by a dialog it opened, or by the page it leaves).
 * Null when it cannot go this way (an older extension, a ref outside the main frame's known
 * world, a world no longer current, a page in the background): nothing of the action was sent,
 * and the caller takes the ordinary path.
 */
async function actAimed(
  context: ToolContext,
  target: TabTarget,
  ref: string,
  pointing: Pointing,
): Promise<Acted | null> {
  const { workspace } = context;
  const { action, input, lead } = pointing;
  const aimed = aimByRef(workspace, target, ref);
  if (!aimed) return null;
  const events = input({ x: 0, y: 0 });
  const start = aimed.commands.length;
  const message = sendAimed(context, target, {
    lead: aimed.commands,
    input: events.map((command, index) => aimed.aim(command, start + index, true)),
    aim: (command, index) => aimed.aim(command, index, false),
    pipeline: mayPipeline(events),
  });
  if (!message) return null;
  const found = await message.found((lookup) => aimed.found(lookup, message.tabSerial));
  if (!found?.fired) {
    message.watch.stop();
    const missed = found?.found;
    if (missed && !missed.visible) {
      throw notVisible(ref, missed.element.role, missed.element.name, action);
    }
    return null;
  }
  const { prepared } = found;
  const where: Where & { before: Before } = {
    point: prepared.centre,
    assurance: "ref",
    ref,
    element: prepared.element,
    blockers: overlay(prepared.cover, ref, action),
    before: prepared.before,
  };
  const first = await message.settled(prepared.before);
  return await answer(context, target, action, where, { watch: message.watch, first }, lead(where));
}

/**
 * `type` in one message where the text can go in at once (decision 0241): the page before it,
 * the question whether the page listens for keys, the insertion and the receipt's read, the last
 * two sent only when the question's replies say nothing listens. Otherwise, or when it cannot go
 * this way (an older extension, no known main-frame world, a world no longer current, a page in
 * the background), nothing of the text was sent: the key presses follow in a message of their
 * own once the page before them is known, or (null) the caller takes the ordinary path.
 */
async function typeAimed(
  context: ToolContext,
  target: TabTarget,
  text: string,
  lead: string,
): Promise<Acted | null> {
  const aimed = aimBefore(context.workspace, target);
  if (!aimed) return null;
  const { read } = aimed;
  const question = typeModeQuestion();
  const choice = typeModeChoice(read.commands.length);
  const atOnce = (command: Command, index: number): Command => {
    const aimedCommand = read.aim(command, index);
    return { ...aimedCommand, sendIf: [...aimedCommand.sendIf!, ...choice(index)] };
  };
  const start = read.commands.length + question.length;
  const message = sendAimed(context, target, {
    lead: [...read.commands, ...question],
    input: [atOnce({ method: "Input.insertText", params: { text } }, start)],
    aim: atOnce,
    pipeline: true,
  });
  if (!message) return null;
  const found = await message.found(async (lookup) => {
    const before = await aimed.found(lookup, message.tabSerial);
    return before && { before, mode: typeModeFrom(lookup.slice(read.commands.length)) };
  });
  if (!found) return null;
  const { before } = found;
  const where = { assurance: "none" as const, before };
  if (found.mode === "keys") {
    // Nothing of the text went out: one key press per character, in a message of their own.
    message.watch.stop();
    await message.done;
    return await act(context, target, "type", where, typeEvents(text), lead);
  }
  const first = await message.settled(before);
  return await answer(context, target, "type", where, { watch: message.watch, first }, lead);
}

/** The action's receipt, once what its input caused is over. */
async function answer(
  context: ToolContext,
  target: TabTarget,
  action: string,
  where: Where & { before: Before },
  sent: { watch: NavigationWatch; first: SettleRead | "leaving" | undefined },
  lead: string,
): Promise<Acted> {
  const { before } = where;
  const { watch, first } = sent;
  const receipt = await observeAfter(context.workspace, target, before, {
    watch,
    first,
    action,
    assurance: where.assurance,
    ref: where.ref,
    element: where.element,
    blockers: where.blockers,
    ...(where.coordinate ? { x: where.coordinate[0], y: where.coordinate[1] } : {}),
  });
  return { tabId: target.tabId, receipt, lead };
}
/**
 * A pointer action at a ref or a coordinate: by ref in one message where it can be (decision
 * 0239), otherwise the target is found first and the input follows.
 */
async function pointerAction(
  at: At,
  context: ToolContext,
  target: TabTarget,
  pointing: Pointing,
): Promise<Acted> {
  if ("ref" in at) {
    const aimed = await actAimed(context, target, at.ref, pointing);
    if (aimed) return aimed;
  }
  const { action, input, lead } = pointing;
  const where = await pointFor(at, context, target, action);
  return await act(context, target, action, where, input(where.point), lead(where));
}

/** A pointer action: its name, its input at a point, and its receipt's first line. */
interface Pointing {
  action: string;
  input: (point: Point) => Command[];
  lead: (where: Where) => string;
}
