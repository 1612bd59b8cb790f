/**
 * Acting on a tab with pointer and keys: a handler states what it wants as an {@linkcode Intent}
 * (a click at a ref or a coordinate, a hover, a drag, typing, a key chord) and gets back the
 * receipt of what changed ({@linkcode Acted}), which {@linkcode actedOutcome} renders as the
 * call's answer. Where a ref can be, the target is found, aimed at and acted on in one message
 * to the page (decisions 0239, 0241), its whole program declared in {@linkcode aimedPointer}:
 * the lookup (the runtime's `prepareAction`: the element described, scrolled into view when it
 * is visible but outside the viewport, what covers its centre, the page noted for the receipt),
 * the frame check, the mouse events at the lookup's centre, and the receipt's settle read.
 * Otherwise the target is found first and the input follows. Input into a frame the policy
 * refuses is refused before any is sent.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { capabilitiesFor } from "../../catalog/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import { checkInputFrames, frameGuard } from "../page/collect.ts";
import {
  answerPath,
  type Command,
  knownMain,
  type LeadingRead,
  leadingRead,
  lookupRef,
  type MainFrameRead,
  readWorld,
  refGone,
  resolveRef,
  type RuntimeAnswer,
  type RuntimeCall,
  runtimeCall,
  tabPages,
} from "../page/frames.ts";
import { type Point, toViewport } from "./coordinates.ts";
import { chordEvents, parseChords, parseModifiers, typeEvents } from "./input.ts";
import { type At as Named, compile, program } from "../core/program.ts";
import {
  type Assurance,
  type Before,
  type Blocker,
  CHANGED_KEPT,
  counterKey,
  type Described,
  leadBefore,
  noteBefore,
  observeAfter,
  observeBefore,
  type Receipt,
  renderReceipt,
  type SettleRead,
  settleStep,
} from "./receipt.ts";
import {
  type AimedProgram,
  dispatchSettling,
  execute,
  mayPipeline,
  mouse,
  type NavigationWatch,
  unlessClosed,
  watchNavigation,
} from "./send.ts";
import { likelyBehind } from "./front.ts";
import {
  KEYS_UNHEARD,
  type TypeMode,
  typeModeCommands,
  typeModeFrom,
  typeModeQuestion,
} from "./type_mode.ts";

/** Intermediate mouse positions of a drag, so pages that track movement see one. */
const DRAG_STEPS = 8;

/**
 * The pressure a mouse reports while a button is held: a page's `pointerdown` reads it as
 * `pressure` (0.5 by the Pointer Events spec; the DevTools default of 0 tells a script a mouse
 * was never pressed).
 */
const HELD = { force: 0.5 };

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
        events: [{ type: "mouseMoved" }],
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
  const events: MouseEvent[] = [{ type: "mouseMoved", modifiers }];
  for (let count = 1; count <= clicks; count++) {
    const common = { button, clickCount: count, modifiers };
    events.push({ type: "mousePressed", ...common, buttons: button === "left" ? 1 : 2, ...HELD });
    events.push({ type: "mouseReleased", ...common, buttons: 0 });
  }
  return pointerAction(intent.at, context, target, {
    action,
    events,
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
    mouse("mousePressed", from, { button: "left", buttons: 1, clickCount: 1, ...HELD }),
  ];
  for (let step = 1; step <= DRAG_STEPS; step++) {
    const point = {
      x: from.x + (to.x - from.x) * step / DRAG_STEPS,
      y: from.y + (to.y - from.y) * step / DRAG_STEPS,
    };
    events.push(mouse("mouseMoved", point, { button: "left", buttons: 1, ...HELD }));
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
  const ordinary = async () => {
    const before = await observeBefore(context.workspace, target, {
      beside: ask ? typeModeCommands() : [],
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
  };
  if (!ask) return await ordinary();
  return await execute(context, target, aimedTyping(context, target, text), {
    acted: ({ before }, sent) =>
      answer(context, target, "type", { assurance: "none", before }, sent, lead),
    // Nothing of the text went out: one key press per character, in a message of their own.
    async withheld({ before }, done) {
      await done;
      return await act(
        context,
        target,
        "type",
        { assurance: "none", before },
        typeEvents(text),
        lead,
      );
    },
    ordinary,
  });
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

/**
 * The blocker of a pointer action whose point a hit test found `cover` at, not the target:
 * something on top of it, or (`around`) the element holding it, when the target itself takes no
 * pointer input.
 */
function overlay(cover: string | null, ref: string, action: string, around = false): Blocker[] {
  if (!cover) return [];
  if (around) {
    return [{
      kind: "missed",
      summary: `The ${action} reached ${cover}, which holds ${ref}, not ${ref} itself: it takes ` +
        "no pointer input (pointer-events: none) or lets it through.",
      nextStep: "Act on the control that holds it, or on another element the page offers.",
    }];
  }
  return [{
    kind: "overlay",
    summary: `${cover} lies on top of ${ref}, so the ${action} reached it instead.`,
    nextStep: "Close or dismiss what covers it (Escape, its close button), then retry.",
  }];
}

function notVisible(ref: string, role: string, name: string, action: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} (${role} "${name}") is not visible, so it cannot be ${action}ed.`,
    "Open whatever hides it (a menu, a tab), or find a visible element instead.",
  );
}

/** No part of the target could be scrolled into the viewport: nothing was sent. */
function outOfView(ref: string, role: string, name: string, action: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} (${role} "${name}") lies outside the viewport even after scrolling, so no ` +
      `${action} was sent.`,
    "Scroll the page or resize the window so it shows, or use another element.",
  );
}

/**
 * The target is in a frame shown in perspective: where it appears is not computed, so nothing
 * was sent rather than input at a wrong point (decision 0490).
 */
function tilted(ref: string, role: string, name: string, action: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} (${role} "${name}") is inside a frame the page shows in 3D perspective, where ` +
      `Ghostlight cannot compute the point on screen it appears at, so no ${action} was sent.`,
    "Take a screenshot and act at the point where it shows (computer with a coordinate).",
  );
}

/** The refusal for a ref with no point to act at: in perspective, or out of view. */
function noPoint(
  found: { tilted: boolean; element: Described },
  ref: string,
  action: string,
): ToolError {
  const { role, name } = found.element;
  return found.tilted ? tilted(ref, role, name, action) : outOfView(ref, role, name, action);
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
      const { element } = prepared;
      if (!prepared.visible) throw notVisible(args.ref, element.role, element.name, action);
      if (!prepared.centre) throw noPoint(prepared, args.ref, action);
      return {
        point: prepared.centre,
        assurance: "ref",
        ref: args.ref,
        element,
        blockers: overlay(prepared.cover, args.ref, action, prepared.around),
        before: prepared.before,
        framed: prepared.framed,
      };
    }
    // In a frame of another origin: that frame's world aims (scrolling only when no point of
    // the element can be reached where it is), in its own viewport, placed in the tab's here.
    // Each look is a read, bounded in a frame held since (decision 0780); only an aim that
    // scrolls is an action's command, sent after a bounded look.
    let element = await resolveRef(context.workspace, target, args.ref);
    if (!element.visible) throw notVisible(args.ref, element.role, element.name, action);
    let aimed = await element.read("aim", true);
    const scrolled = aimed?.scrollHelps === true;
    if (scrolled) aimed = await element.call("aim");
    element = await resolveRef(context.workspace, target, args.ref, { scrolled });
    const local = await element.read("box");
    if (!aimed?.point || !local || !element.inViewport) {
      throw outOfView(args.ref, element.role, element.name, action);
    }
    return {
      point: {
        x: aimed.point.x + element.box.x - local.x,
        y: aimed.point.y + element.box.y - local.y,
      },
      assurance: "ref",
      ref: args.ref,
      element: {
        role: element.role,
        name: element.name,
        tag: "",
        ...(element.enabled ? {} : { disabled: true }),
      },
      blockers: overlay(aimed.hit, args.ref, action, aimed.around),
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

/** What the page runtime's `prepareAction` reports. */
type PreparedState = RuntimeAnswer<"prepareAction">;

/** A ref's target ready for a pointer action. */
interface Prepared {
  visible: boolean;
  /**
   * Where the action lands, in top-level viewport CSS pixels: a point of the element a hit test
   * reaches, or null when no part of it is in the viewport even after scrolling.
   */
  centre: { x: number; y: number } | null;
  element: Described;
  /** What a hit test finds at that point instead of the element, when something else is. */
  cover: string | null;
  /** Whether that holds the element (which takes no pointer input) rather than covering it. */
  around: boolean;
  /** No centre because the element is in a frame shown in perspective. */
  tilted: boolean;
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
async function prepareByRef(
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
  const point = read.value!.point;
  return {
    visible: described.box.visible,
    centre: point && Number.isFinite(point.x) && Number.isFinite(point.y) ? point : null,
    element: {
      role: described.role,
      name: described.name,
      tag: "",
      ...(described.enabled ? {} : { disabled: true }),
    },
    cover: read.value!.cover,
    around: read.value!.around === true,
    tilted: read.value!.tilted === true,
    framed: read.value!.framed !== false,
  };
}

/**
 * A pointer action by ref in one message (decision 0239): the lookup {@linkcode prepareByRef}
 * makes, as the read that opens the action's page program, and what it found from its replies.
 */
interface RefLookup {
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

/**
 * The lookup for `ref` as the read opening a page program, or null when the ref is not in the
 * main frame's known world: the caller then prepares in a round trip of its own.
 */
function lookupByRef(
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
      const point = found.centre;
      const fired = found.visible && value.before.hidden === false && value.framed === false &&
        value.aimed === true;
      if (!fired || !point) return { fired: false, found };
      const noted = await noteBefore(workspace, target, value.before, answer);
      return {
        fired: true,
        prepared: { ...found, centre: point, before: { ...noted, tabSerial, owned } },
      };
    },
  };
}

/** What a ref's lookup found, as its page program's lead answered. */
type Looked = NonNullable<Awaited<ReturnType<RefLookup["found"]>>>;

/**
 * A ref click (or hover) as one page program (decision 0239), the whole of it declared here: the
 * lookup that finds, scrolls to and notes the target, and the look at the frame tree (the lead);
 * the condition "ready" on their replies (the target visible, the page in front, the centre in no
 * frame of another origin, the frame still showing the lookup's document; the same rule
 * {@linkcode lookupByRef}'s `found` applies to the same replies); the mouse events, built here at
 * the centre the lookup found, named; and the receipt's settle read. The events and the settle
 * read go out only when "ready" holds. Null when it cannot go this way (a ref outside the main
 * frame's known world): the ordinary path then.
 */
function aimedPointer(
  context: ToolContext,
  target: TabTarget,
  ref: string,
  events: MouseEvent[],
): AimedProgram<Looked> | null {
  const lookup = lookupByRef(context.workspace, target, ref);
  const presses = events.filter((event) => event.type === "mousePressed").length;
  const settle = settleStep(context.workspace, target, { presses });
  if (!lookup || !settle) return null;
  const { read } = lookup;
  // A tab behind another of its window is brought to the front first, in the same message: the
  // lookup then finds it shown, instead of withholding the input for a second trip (0494).
  const front = likelyBehind(target) ? [{ method: "Page.bringToFront", params: {} }] : [];
  const declared = program()
    .each("front", () => front)
    .step("lookup", () => read.evaluate)
    .step("look", () => read.look)
    .lead()
    .condition("ready", (at) => [
      {
        value: at("lookup", ...answerPath("prepareAction", "described", "box", "visible")),
        equals: true,
      },
      { value: at("lookup", ...answerPath("prepareAction", "before", "hidden")), equals: false },
      { value: at("lookup", ...answerPath("prepareAction", "framed")), equals: false },
      { value: at("lookup", ...answerPath("prepareAction", "aimed")), equals: true },
      ...frameShown(at, read.frame),
    ])
    .each("input", (at) => {
      // The point is the lookup's centre, named: the extension fills each event's x and y from
      // the lookup's reply.
      const centre = answerPath("prepareAction", "point");
      const x = at("lookup", ...centre, "x");
      const y = at("lookup", ...centre, "y");
      return events.map(({ type, ...extra }) => ({
        method: "Input.dispatchMouseEvent",
        params: { type, x, y, ...extra },
        when: ["ready"],
      }));
    })
    .step("settle", () => ({ ...settle.command, when: ["ready"] }));
  const compiled = compile(declared);
  return {
    program: compiled,
    // The input alone decides it: the lead is a read, the settle step waits for every reply.
    pipeline: mayPipeline(compiled.commands.slice(compiled.lead, compiled.indexOf("settle"))),
    decide: (lead, tabSerial) =>
      lookup.found(compiled.reply("lookup", lead), compiled.reply("look", lead), tabSerial),
    fired: (looked) => looked.fired ? looked.prepared.before : null,
    settle: settle.read,
  };
}

/** The tests that the look at the frame tree shows the document `frame` (a lead's read's). */
function frameShown(at: Named<"look">, frame: { id: string; loaderId: string }) {
  return [
    { value: at("look", "frameTree", "frame", "id"), equals: frame.id },
    { value: at("look", "frameTree", "frame", "loaderId"), equals: frame.loaderId },
  ];
}

/**
 * `type` as one page program where the text can go in at once (decision 0241): the page before
 * it and the look at the frame tree (the lead), the question whether the page listens for keys,
 * and the insertion and the receipt's read, the last two sent only when the page is in front,
 * the frame shows the lead's document ("ready") and the question's replies say nothing listens
 * ("quiet"). Null when no main-frame world is known: the ordinary path then.
 */
function aimedTyping(
  context: ToolContext,
  target: TabTarget,
  text: string,
): AimedProgram<{ before: Before; mode: TypeMode }> | null {
  const lead = leadBefore(context.workspace, target);
  const settle = settleStep(context.workspace, target, { presses: 0 });
  if (!lead || !settle) return null;
  const { read } = lead;
  const question = typeModeQuestion();
  const declared = program()
    .step("lookup", () => read.evaluate)
    .step("look", () => read.look)
    .step("text target", () => question.textTarget)
    .step("window", () => question.window)
    .step("target listeners", () => ({ ...question.targetListeners, objectOf: "text target" }))
    .step("window listeners", () => ({ ...question.windowListeners, objectOf: "window" }))
    .step("release", () => question.release)
    .lead()
    .condition("ready", (at) => [
      { value: at("lookup", ...answerPath("observeBefore", "hidden")), equals: false },
      ...frameShown(at, read.frame),
    ])
    .condition("quiet", (at) => [
      { value: at("target listeners", "listeners"), lacks: KEYS_UNHEARD },
      { value: at("window listeners", "listeners"), lacks: KEYS_UNHEARD },
    ])
    .step("insert", () => ({
      method: "Input.insertText",
      params: { text },
      when: ["ready", "quiet"],
    }))
    .step("settle", () => ({ ...settle.command, when: ["ready", "quiet"] }));
  const compiled = compile(declared);
  return {
    program: compiled,
    pipeline: true,
    async decide(replies, tabSerial) {
      const before = await lead.found(
        compiled.reply("lookup", replies),
        compiled.reply("look", replies),
        tabSerial,
      );
      const answers = replies.slice(compiled.indexOf("text target"));
      return before && { before, mode: typeModeFrom(answers) };
    },
    fired: ({ before, mode }) => mode === "insert" ? before : null,
    settle: settle.read,
  };
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
  const { action, events, lead } = pointing;
  const ordinary = async () => {
    const where = await pointFor(at, context, target, action);
    return await act(context, target, action, where, eventsAt(where.point, events), lead(where));
  };
  if (!("ref" in at)) return await ordinary();
  const { ref } = at;
  return await execute(context, target, aimedPointer(context, target, ref, events), {
    async acted({ prepared }: Extract<Looked, { fired: true }>, sent) {
      const where: Where & { before: Before } = {
        point: prepared.centre ?? undefined,
        assurance: "ref",
        ref,
        element: prepared.element,
        blockers: overlay(prepared.cover, ref, action, prepared.around),
        before: prepared.before,
      };
      return await answer(context, target, action, where, sent, lead(where));
    },
    withheld(looked) {
      const missed = "found" in looked ? looked.found : null;
      if (missed && !missed.visible) {
        throw notVisible(ref, missed.element.role, missed.element.name, action);
      }
      if (missed && !missed.centre) throw noPoint(missed, ref, action);
      return ordinary();
    },
    ordinary,
  });
}

/** A mouse event as a pointer action declares it: everything but where it lands. */
type MouseEvent = { type: string } & Record<string, unknown>;

/** A pointer action: its name, its mouse events, and its receipt's first line. */
interface Pointing {
  action: string;
  /** The events in order; where they land is the ref's centre or the coordinate's point. */
  events: MouseEvent[];
  lead: (where: Where) => string;
}

/** A pointer action's events at a point found before they are sent. */
function eventsAt(point: Point, events: MouseEvent[]): Command[] {
  return events.map(({ type, ...extra }) => mouse(type, point, extra));
}
