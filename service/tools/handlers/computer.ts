/**
 * `computer`: mouse, keyboard and screenshots. Coordinates are pixels of the tab's latest
 * screenshot and are mapped back to viewport CSS pixels with that screenshot's scale, so a
 * point the model read off a downscaled image lands on the same page pixel. Input goes through
 * CDP `Input.*` as real events (key down/up, mouse press/release), batched into one round trip;
 * typed text is inserted at once where the page listens for no key events (decision 0170).
 *
 * @module
 */

import type { ContentBlock, Outcome } from "../../../shared/bridge.ts";
import { type BrowserError, dialogOpenError, type OpenDialog } from "../../browser/mod.ts";
import { keepImage, type Workspace } from "../../workspace/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { mainWorldCall, type RuntimeCall } from "../page/in_page.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { answerDialog, untilDialog } from "../input/dialogs.ts";
import { chordEvents, parseChords, parseModifiers, typeEvents } from "../input/input.ts";
import {
  aimBefore,
  type Assurance,
  type Before,
  type Blocker,
  type Described,
  NAVIGATION_WAIT_MS,
  observeAfter,
  observeBefore,
  renderReceipt,
  settleAfterInput,
  type SettleRead,
  watchNavigation,
} from "../input/receipt.ts";
import { NavigationWatch } from "../input/navigation_watch.ts";
import { type Command, knownMain } from "../page/main_frame_read.ts";
import { aimByRef, prepareByRef } from "../input/prepare.ts";
import { typeModeChoice, typeModeFrom, typeModeQuestion } from "../input/type_mode.ts";
import { resolveRef, tabPages } from "../page/refs.ts";
import { checkInputFrames, frameGuard } from "../page/collect.ts";
import { capabilitiesFor } from "../../catalog/mod.ts";
import {
  capture,
  currentScale,
  latestScreenshot,
  screenshot,
  viewport,
} from "../page/screenshot.ts";
import { type Cover, coveredNote, pixelGuard } from "../page/withheld_pixels.ts";
import { cdp, ownedTab, type TabTarget } from "../core/target.ts";

/** CSS pixels one scroll_amount step moves. */
const SCROLL_STEP_PX = 100;
/** Intermediate mouse positions of a drag, so pages that track movement see one. */
const DRAG_STEPS = 8;
/** Input events per `cdp.sequence` message. */
const SEQUENCE_CHUNK = 500;
/** Longest text one `type` call sends. */
const MAX_TYPE_CHARS = 2_000;
/** Longest wait for the browser's report that an action closed its own tab. */
const CLOSE_REPORT_MS = 500;

type Args = Record<string, unknown>;
type Point = { x: number; y: number };

function example(action: string, extra: Args): string {
  return JSON.stringify({ action, ...extra, tabId: 123 });
}

function missing(field: string, action: string, extra: Args): ToolError {
  return new ToolError(
    "tool_failure",
    `${field} is required for ${action}.`,
    `Call ${example(action, extra)}.`,
  );
}

/** Maps a screenshot-pixel coordinate to viewport CSS pixels. */
export async function toViewport(
  workspace: Workspace,
  target: TabTarget,
  coordinate: number[],
  field: string,
): Promise<Point> {
  const [x, y] = coordinate;
  const image = latestScreenshot(workspace, target.tabId);
  if (image && (x < 0 || y < 0 || x > image.width || y > image.height)) {
    throw new ToolError(
      "tool_failure",
      `${field} [${x}, ${y}] is outside your latest screenshot (${image.width}×${image.height}).`,
      "Use a point inside the screenshot, or take a new screenshot first.",
    );
  }
  if (image) return { x: x * image.scale, y: y * image.scale };
  // No screenshot yet: the space is the one a screenshot taken now would have.
  const view = await viewport(target);
  const scale = await currentScale(target);
  const width = Math.round(view.clientWidth / scale);
  const height = Math.round(view.clientHeight / scale);
  if (x < 0 || y < 0 || x > width || y > height) {
    throw new ToolError(
      "tool_failure",
      `${field} [${x}, ${y}] is outside the viewport (${width}×${height} screenshot pixels).`,
      `Take a screenshot first (${example("screenshot", {})}) and use a point inside it, or ` +
        "pass a ref from find or read_page.",
    );
  }
  return { x: x * scale, y: y * scale };
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
  args: Args,
  context: ToolContext,
  target: TabTarget,
  action: string,
): Promise<Where & { point: Point }> {
  const where = await pointOf(args, context, target, action);
  // Input that would land in a frame of another origin is decided on that frame's own host.
  if (where.framed !== false) await checkFrames(context, target, action, where.point);
  return where;
}

/**
 * Input into a frame the policy refuses for `action` is refused before any is sent: at `point`,
 * or where the focus is (null).
 */
function checkFrames(
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
  args: Args,
  context: ToolContext,
  target: TabTarget,
  action: string,
): Promise<Where & { point: Point; framed?: boolean }> {
  if (typeof args.ref === "string") {
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
    const cover = await element.call("coveredBy").catch(() => null);
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
  const coordinate = args.coordinate as number[] | undefined;
  if (!coordinate) throw missing("coordinate (or ref)", action, { coordinate: [400, 300] });
  return {
    point: await toViewport(context.workspace, target, coordinate, "coordinate"),
    assurance: "coordinate",
    coordinate,
  };
}

function mouse(type: string, point: Point, extra: Args = {}) {
  return {
    method: "Input.dispatchMouseEvent",
    params: { type, x: point.x, y: point.y, ...extra },
  };
}

function clickEvents(point: Point, button: "left" | "right", clicks: number, modifiers: number) {
  const events = [mouse("mouseMoved", point, { modifiers })];
  for (let count = 1; count <= clicks; count++) {
    const common = { button, clickCount: count, modifiers };
    events.push(mouse("mousePressed", point, { ...common, buttons: button === "left" ? 1 : 2 }));
    events.push(mouse("mouseReleased", point, { ...common, buttons: 0 }));
  }
  return events;
}

/**
 * Whether input events may go out pipelined, each without waiting for the one before. Chrome runs
 * one session's commands in order and the renderer handles each input event to its end before
 * the next, so key presses and a click's move, presses and releases arrive as sent, and a click
 * no longer waits for the browser's answer to each of its events in turn (a pointer move waits
 * for the next frame when nothing follows it). Only a move while a button is held (a drag, which
 * the browser starts between moves) must wait for the event before it.
 */
export function mayPipeline(
  commands: { method: string; params: Record<string, unknown> }[],
): boolean {
  let held = false;
  for (const { method, params } of commands) {
    if (method === "Input.dispatchKeyEvent") continue;
    if (method !== "Input.dispatchMouseEvent") return false;
    if (params.type === "mousePressed") held = true;
    else if (params.type === "mouseReleased") held = false;
    else if (params.type !== "mouseMoved" || held) return false;
  }
  return true;
}

/**
 * Sends input events in one round trip, with `after` (commands that go out only once every
 * input command replied, decision 0212) at the end of the last message; answers their replies.
 * If the page opens a JavaScript dialog meanwhile, the browser holds the input until it is
 * answered: return then (null) instead of waiting.
 */
async function dispatch(
  target: TabTarget,
  commands: { method: string; params: Record<string, unknown> }[],
  after: Command[] = [],
): Promise<Record<string, unknown>[] | null> {
  let replies: Record<string, unknown>[] = [];
  const sent = await untilDialog(
    target,
    (async () => {
      // Chunks keep each message far below Chrome's 1 MiB limit toward the extension.
      for (let start = 0; start < commands.length; start += SEQUENCE_CHUNK) {
        const chunk = commands.slice(start, start + SEQUENCE_CHUNK);
        const last = start + SEQUENCE_CHUNK >= commands.length;
        const { results } = await target.link.call("cdp.sequence", {
          tab_id: target.native,
          commands: last ? [...chunk, ...after] : chunk,
          pipeline: mayPipeline(chunk),
        });
        if (last) replies = results.slice(chunk.length);
      }
    })(),
  );
  return sent === "dialog" ? null : replies;
}

/**
 * Sends the input with the receipt's settle read at the end of its message when the extension
 * can carry it there ({@linkcode settleAfterInput}); answers that read, or "leaving" when the
 * page was being left before the message was answered (a page being left may not answer until it
 * is gone, and the new page is read instead). Without it the input goes alone and the receipt
 * reads in a trip of its own.
 */
async function dispatchSettling(
  context: ToolContext,
  target: TabTarget,
  commands: { method: string; params: Record<string, unknown> }[],
  watch: NavigationWatch,
): Promise<SettleRead | "leaving" | undefined> {
  const settle = settleAfterInput(context.workspace, target);
  if (!settle) {
    await dispatch(target, commands);
    return undefined;
  }
  const sent = dispatch(target, commands, settle.commands);
  const first = await Promise.race([sent, watch.leaving.then(() => "leaving" as const)]);
  if (first === "leaving") {
    // The input's answer is no longer awaited: the navigation it started is what follows.
    sent.catch(() => {});
    return "leaving";
  }
  // A dialog held the message (null): the receipt reports the dialog and reads nothing.
  return first === null ? null : settle.read(first);
}

async function act(
  context: ToolContext,
  target: TabTarget,
  action: string,
  where: Where,
  commands: { method: string; params: Record<string, unknown> }[],
  lead: string,
) {
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
 * After input that failed: an action that closes its own tab (window.close()) detaches the
 * debugger mid-input, and its receipt says so; any other failure is the call's.
 */
async function unlessClosed(
  target: TabTarget,
  before: Before,
  watch: NavigationWatch,
  error: unknown,
): Promise<void> {
  if (!await closedSince(target, before.tabSerial)) {
    watch.stop();
    throw error;
  }
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
): Promise<Outcome | null> {
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

/** An action's one message to the page, sent (decisions 0239, 0241). */
interface AimedMessage {
  /** The tab's change serial when it was sent: the receipt's tab delta counts from it. */
  tabSerial: number;
  /** The navigation the input may start, watched from before it was sent. */
  watch: NavigationWatch;
  /**
   * What `decide` makes of the replies of the read that opens the message (ahead of the rest);
   * null, the watch stopped, when that read failed or `decide` answers null. The watch stops too
   * when `decide` throws.
   */
  found<T>(decide: (lookup: Record<string, unknown>[]) => Promise<T | null>): Promise<T | null>;
  /** Resolves once the whole message was answered (or failed). */
  done: Promise<unknown>;
  /**
   * The receipt's settle read from the rest of the message, once the input went out: null when
   * a dialog holds the input, "leaving" when the page was being left first. `before` is the
   * page before, for an input that closed its own tab.
   */
  settled(before: Before): Promise<SettleRead | "leaving" | undefined>;
}

/**
 * Sends an action as one message: `lead` (a read whose replies come back ahead of the rest),
 * `input` (already aimed by it), and the receipt's settle read aimed by `aim`. Null when the
 * extension cannot carry the settle read there or no main-frame world is known: nothing is sent.
 */
function sendAimed(
  context: ToolContext,
  target: TabTarget,
  parts: {
    lead: Command[];
    input: Command[];
    aim: (command: Command, index: number) => Command;
    pipeline: boolean;
  },
): AimedMessage | null {
  const settle = settleAfterInput(context.workspace, target);
  const main = knownMain(target, tabPages(context.workspace, target.tabId));
  if (!settle || !main?.loaderId) return null;
  const start = parts.lead.length;
  const end = start + parts.input.length;
  const commands = [
    ...parts.lead,
    ...parts.input,
    ...settle.commands.map((command, index) => parts.aim(command, end + index)),
  ];
  const tabSerial = target.link.tabChangeSerial;
  const watch = new NavigationWatch(
    target.link.tab(target.native),
    { frameId: main.frameId, loaderId: main.loaderId },
    NAVIGATION_WAIT_MS,
  );
  let ahead!: (results: Record<string, unknown>[]) => void;
  const leading = new Promise<Record<string, unknown>[]>((resolve) => ahead = resolve);
  const sent = target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands,
    pipeline: parts.pipeline,
    lead: start,
  }, { ahead });
  sent.catch(() => {});
  // Watched from the send, not from when the lookup's replies are in: the event of a dialog the
  // input opened may be handled in the same turn as the lead, before `settled` is asked for, and
  // a dialog the page opened before the lookup answered holds the lookup itself.
  const held = Promise.race([
    untilDialog(target, sent),
    watch.leaving.then(() => "leaving" as const),
  ]);
  held.catch(() => {});
  // Before the lead nothing of the input went out (it waits for the lookup's replies), and the
  // lookup answers only once the dialog is gone: the call answers with the dialog now.
  const dialogFirst = held.then(
    (first) => first === "dialog" ? Promise.reject(heldBy(target)) : new Promise<never>(() => {}),
    () => new Promise<never>(() => {}),
  );
  dialogFirst.catch(() => {});
  return {
    tabSerial,
    watch,
    // A result with no lead ahead of it sent nothing aimed by the lead: the read failed (the
    // sequence fails), or the extension withheld the lead for a dialog that held it.
    async found(decide) {
      try {
        const lookup = await Promise.race([
          leading,
          sent.then(() => null, () => null),
          dialogFirst,
        ]);
        const decided = lookup && await decide(lookup);
        if (!decided) watch.stop();
        return decided;
      } catch (error) {
        watch.stop();
        throw error;
      }
    },
    done: sent.catch(() => {}),
    async settled(before) {
      try {
        // A dialog holds the input (the receipt reports it); a page being left may not answer
        // until it is gone, and the new page is read instead.
        const first = await held;
        if (first === "done") return settle.read((await sent).results.slice(end));
        return first === "dialog" ? null : first;
      } catch (error) {
        await unlessClosed(target, before, watch, error);
        return undefined;
      }
    },
  };
}

/** The refusal for an action whose lookup the tab's open dialog holds. */
function heldBy(target: TabTarget): BrowserError {
  const dialog = target.link.tab(target.native).dialog;
  return dialogOpenError(dialog ?? { type: "alert", message: "" });
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
): Promise<Outcome | null> {
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

/** The action's receipt, once what its input caused is over, as the call's answer. */
async function answer(
  context: ToolContext,
  target: TabTarget,
  action: string,
  where: Where & { before: Before },
  sent: { watch: NavigationWatch; first: SettleRead | "leaving" | undefined },
  lead: string,
) {
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
  return success(renderReceipt(context.workspace, receipt, lead), {
    tabId: target.tabId,
    receipt,
    provenance: {
      pageSourced: true,
      untrusted: true,
      topOrigin: receipt.page.origin,
      sessionNonce: context.workspace.fenceNonce,
    },
  });
}

/** Whether the tab closed after `serial`; waits (bounded) for the browser's report. */
function closedSince(target: TabTarget, serial: number): Promise<boolean> {
  return target.link.tabChangeAfter(
    serial,
    (change) => change.kind === "closed" && change.native === target.native,
    CLOSE_REPORT_MS,
  );
}

function describeWhere(where: { ref?: string; coordinate?: number[] }): string {
  return where.ref ? where.ref : `(${where.coordinate![0]}, ${where.coordinate![1]})`;
}

async function shotContent(context: ToolContext, target: TabTarget) {
  const { image, covers } = await screenshot(
    context.workspace,
    target,
    pixelGuard(context, target),
  );
  const block: ContentBlock = { type: "image", data: image.data, mimeType: "image/jpeg" };
  return { image, block, ...withheldParts(covers, image.scale, { x: 0, y: 0 }) };
}

/**
 * The note (with a leading space) and the structured field on the regions an image leaves out,
 * in that image's pixels.
 */
function withheldParts(covers: Cover[], cssPerPixel: number, from: { x: number; y: number }) {
  const note = coveredNote(covers);
  if (note === null) return { note: "", withheld: {} };
  const px = (css: number, origin: number) => Math.round((css - origin) / cssPerPixel);
  return {
    note: ` ${note}`,
    withheld: {
      withheldRegions: covers.map((cover) => ({
        x: px(cover.x, from.x),
        y: px(cover.y, from.y),
        width: Math.round(cover.width / cssPerPixel),
        height: Math.round(cover.height / cssPerPixel),
        why: cover.why,
      })),
    },
  };
}

async function scroll(args: Args, context: ToolContext, target: TabTarget) {
  const direction = args.scroll_direction as string | undefined;
  if (!direction) {
    throw missing("scroll_direction", "scroll", { scroll_direction: "down", scroll_amount: 3 });
  }
  const amount = (args.scroll_amount as number | undefined) ?? 3;
  const coordinate = args.coordinate as number[] | undefined;
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
  const { image, block, note, withheld } = await shotContent(context, target);
  const same = (a?: number[], b?: number[]) => a?.[0] === b?.[0] && a?.[1] === b?.[1];
  const pageMoved = from && to && !same(from.page, to.page);
  const innerMoved = from?.inner && to?.inner && from.inner.name === to.inner.name &&
    !same(from.inner.at, to.inner.at);
  const text = pageMoved
    ? `Scrolled ${direction} ${amount}; the page is now at x ${to.page[0]}, y ${to.page[1]}.`
    : innerMoved
    ? `Scrolled ${direction} ${amount} inside "${to.inner!.name}", now at x ${to.inner!.at[0]}, y ${
      to.inner!.at[1]
    }; the page itself did not move.`
    : `Scrolled ${direction} ${amount}, but nothing moved: the page or the area under that ` +
      "point is already at its end, or does not scroll that way.";
  return success(
    `${text} Screenshot ${image.id} (${image.width}×${image.height}) follows.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      scroll: to?.page,
      ...(innerMoved ? { innerScroll: to!.inner } : {}),
      ...withheld,
    },
    [block],
  );
}

async function pageValue<T>(target: TabTarget, expression: RuntimeCall<T>): Promise<T | null> {
  const reply = await target.link.call("cdp", {
    tab_id: target.native,
    method: "Runtime.evaluate",
    params: { expression, returnByValue: true, awaitPromise: true },
  }).catch(() => null);
  return ((reply?.result as { value?: T } | undefined)?.value ?? null) as T | null;
}

async function zoom(args: Args, context: ToolContext, target: TabTarget) {
  const region = args.region as number[] | undefined;
  if (!region) throw missing("region", "zoom", { region: [0, 0, 400, 300] });
  const [x0, y0, x1, y1] = region;
  if (!(x1 > x0 && y1 > y0)) {
    throw new ToolError(
      "tool_failure",
      `region must be [x0, y0, x1, y1] with x1 > x0 and y1 > y0; got [${region.join(", ")}].`,
      `Call ${example("zoom", { region: [100, 100, 500, 400] })}.`,
    );
  }
  const topLeft = await toViewport(context.workspace, target, [x0, y0], "region");
  const bottomRight = await toViewport(context.workspace, target, [x1, y1], "region");
  const cssRegion = {
    x: topLeft.x,
    y: topLeft.y,
    width: bottomRight.x - topLeft.x,
    height: bottomRight.y - topLeft.y,
  };
  const shot = await capture(target, pixelGuard(context, target), {
    region: cssRegion,
    quality: 90,
    upscale: true,
  });
  const { note, withheld } = withheldParts(shot.covers, shot.cssPerPixel, cssRegion);
  const image = keepImage(context.workspace, {
    tabId: target.tabId,
    data: shot.data,
    width: shot.width,
    height: shot.height,
    scale: shot.cssPerPixel,
    region: cssRegion,
  });
  return success(
    `Zoom ${image.id} of [${region.join(", ")}] at ${image.width}×${image.height}. Coordinates ` +
      `for clicks still refer to your latest full screenshot, not to this zoom.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      ...withheld,
    },
    [{ type: "image", data: image.data, mimeType: "image/jpeg" }],
  );
}

async function wait(args: Args, context: ToolContext, target: TabTarget) {
  const seconds = args.duration as number | undefined;
  if (seconds === undefined) throw missing("duration", "wait", { duration: 2 });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    context.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
  return success(`Waited ${seconds} s on tab ${target.tabId}.`, {
    tabId: target.tabId,
    waited: seconds,
  });
}

async function scrollTo(args: Args, context: ToolContext, target: TabTarget) {
  if (typeof args.ref !== "string") throw missing("ref", "scroll_to", { ref: "ref_12" });
  const element = await resolveRef(context.workspace, target, args.ref, { scroll: true });
  const box = element.box;
  return success(
    `Scrolled ${args.ref} into view; its box is now x ${Math.round(box.x)}, y ${
      Math.round(box.y)
    }, ${Math.round(box.width)}×${Math.round(box.height)} CSS px${
      element.inViewport ? "" : " (still outside the viewport)"
    }.`,
    { tabId: target.tabId, ref: args.ref, box, inViewport: element.inViewport },
  );
}

/**
 * While a JavaScript dialog is open, `key` Return/Escape and `type` (for a prompt) answer it,
 * as a user's keyboard would.
 */
async function answerByKeyboard(
  args: Args,
  workspace: Workspace,
  target: TabTarget,
  dialog: OpenDialog,
) {
  const text = String(args.text ?? "").trim();
  if (args.action === "type") {
    if (dialog.type !== "prompt") {
      throw new ToolError(
        "tool_failure",
        `A JavaScript ${dialog.type} dialog is open; it takes no text.`,
        howToAnswer(dialog.type, target.tabId),
      );
    }
    return await answerDialog(workspace, target, dialog, {
      accept: true,
      promptText: String(args.text ?? ""),
    });
  }
  if (/^(return|enter|kp_enter)$/i.test(text)) {
    return await answerDialog(workspace, target, dialog, { accept: true });
  }
  if (/^(escape|esc)$/i.test(text)) {
    return await answerDialog(workspace, target, dialog, { accept: false });
  }
  throw new ToolError(
    "tool_failure",
    `A JavaScript ${dialog.type} dialog is open; only Return (accept) or Escape (dismiss) ` +
      `reach it, not "${text}".`,
    howToAnswer(dialog.type, target.tabId),
  );
}

/** One computer action: what it does with the call's arguments on an owned tab. */
export type Action = (args: Args, context: ToolContext, target: TabTarget) => Promise<Outcome>;

async function screenshotAction(_args: Args, context: ToolContext, target: TabTarget) {
  const { image, block, note, withheld } = await shotContent(context, target);
  // When the viewport was larger than the image, say by how much: find and read_page give
  // boxes in page (CSS) pixels.
  const scaled = Math.abs(image.scale - 1) > 0.001
    ? ` (the page's viewport is ${Math.round(image.width * image.scale)}×${
      Math.round(image.height * image.scale)
    } CSS px: divide page coordinates by ${image.scale.toFixed(3)})`
    : "";
  return success(
    `Screenshot ${image.id} of tab ${target.tabId}: ${image.width}×${image.height} px${scaled}. ` +
      `Coordinates you pass to computer refer to this image's pixels.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      cssPerPixel: image.scale,
      ...withheld,
    },
    [block],
  );
}

/** A click action: left, right, double or triple, with optional modifiers. */
function clickAction(action: string, button: "left" | "right", clicks: number): Action {
  return async (args, context, target) => {
    const modifiers = parseModifiers(args.modifiers as string | undefined);
    const input = (point: Point) => clickEvents(point, button, clicks, modifiers);
    const lead = (where: Where) =>
      `${action} at ${describeWhere(where)}${modifiers ? ` with ${args.modifiers}` : ""}.`;
    return await pointerAction(args, context, target, { action, input, lead });
  };
}

/**
 * A pointer action at a ref or a coordinate: by ref in one message where it can be (decision
 * 0239), otherwise the target is found first and the input follows.
 */
async function pointerAction(
  args: Args,
  context: ToolContext,
  target: TabTarget,
  pointing: Pointing,
): Promise<Outcome> {
  if (typeof args.ref === "string") {
    const aimed = await actAimed(context, target, args.ref, pointing);
    if (aimed) return aimed;
  }
  const { action, input, lead } = pointing;
  const where = await pointFor(args, context, target, action);
  return await act(context, target, action, where, input(where.point), lead(where));
}

/** A pointer action: its name, its input at a point, and its receipt's first line. */
interface Pointing {
  action: string;
  input: (point: Point) => Command[];
  lead: (where: Where) => string;
}

function hover(args: Args, context: ToolContext, target: TabTarget) {
  return pointerAction(args, context, target, {
    action: "hover",
    input: (point) => [mouse("mouseMoved", point)],
    lead: (where) => `Hovering at ${describeWhere(where)}.`,
  });
}

async function drag(args: Args, context: ToolContext, target: TabTarget) {
  const start = args.start_coordinate as number[] | undefined;
  const end = args.coordinate as number[] | undefined;
  const shape = { start_coordinate: [100, 200], coordinate: [300, 200] };
  if (!start) throw missing("start_coordinate", "left_click_drag", shape);
  if (!end) throw missing("coordinate", "left_click_drag", shape);
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

async function typeText(args: Args, context: ToolContext, target: TabTarget) {
  const text = args.text as string | undefined;
  if (text === undefined) throw missing("text", "type", { text: "hello" });
  if (text.length > MAX_TYPE_CHARS) {
    throw new ToolError(
      "tool_failure",
      `text is ${text.length} characters; type sends at most ${MAX_TYPE_CHARS} per call.`,
      "Split it over several type calls, or set the field at once with form_input.",
    );
  }
  if (text === "") {
    return success("Nothing to type: text is empty.", { tabId: target.tabId });
  }
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

async function pressKey(args: Args, context: ToolContext, target: TabTarget) {
  const text = args.text as string | undefined;
  if (text === undefined) throw missing("text", "key", { text: "Return" });
  const repeat = Math.floor((args.repeat as number | undefined) ?? 1);
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

/** Every computer action, by its name in the contract; act_on and form_fill act through them. */
export const ACTIONS: Readonly<Record<string, Action>> = {
  left_click: clickAction("left_click", "left", 1),
  right_click: clickAction("right_click", "right", 1),
  double_click: clickAction("double_click", "left", 2),
  triple_click: clickAction("triple_click", "left", 3),
  hover,
  left_click_drag: drag,
  type: typeText,
  key: pressKey,
  scroll,
  scroll_to: scrollTo,
  wait,
  screenshot: screenshotAction,
  zoom,
};

/** `computer`. */
export const computer: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const action = args.action as string;
  const dialog = target.link.tab(target.native).dialog;
  if (dialog && (action === "key" || action === "type")) {
    return await answerByKeyboard(args, context.workspace, target, dialog);
  }
  const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (!run) {
    throw new ToolError(
      "tool_failure",
      `action "${action}" is not a computer action.`,
      `Use one of ${Object.keys(ACTIONS).join(", ")}; e.g. {"action": "screenshot", ` +
        '"tabId": 123}.',
    );
  }
  return await run(args, context, target);
};
