/**
 * Sending input to a tab: events batched into `cdp.sequence` messages (pipelined where the
 * browser keeps their order), the receipt's settle read carried at the end of the input's
 * message, and an action's one message to the page whose lead read aims the input (decisions
 * 0212, 0239, 0241). A dialog the input opens answers the call instead of a hang.
 *
 * @module
 */

import { type BrowserError, dialogOpenError } from "../../browser/mod.ts";
import type { ToolContext } from "../core/context.ts";
import type { TabTarget } from "../core/target.ts";
import { type Command, knownMain } from "../page/main_frame_read.ts";
import { tabPages } from "../page/refs.ts";
import type { Point } from "./coordinates.ts";
import { untilDialog } from "./dialogs.ts";
import { NavigationWatch } from "./navigation_watch.ts";
import { type Before, NAVIGATION_WAIT_MS, settleAfterInput, type SettleRead } from "./receipt.ts";

/** Input events per `cdp.sequence` message. */
const SEQUENCE_CHUNK = 500;
/** Longest wait for the browser's report that an action closed its own tab. */
const CLOSE_REPORT_MS = 500;

/** One mouse event at a point (viewport CSS pixels). */
export function mouse(type: string, point: Point, extra: Record<string, unknown> = {}) {
  return {
    method: "Input.dispatchMouseEvent",
    params: { type, x: point.x, y: point.y, ...extra },
  };
}

/** A click's events: the move there, then a press and release per click. */
export function clickEvents(
  point: Point,
  button: "left" | "right",
  clicks: number,
  modifiers: number,
) {
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
export async function dispatch(
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
export async function dispatchSettling(
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

/**
 * After input that failed: an action that closes its own tab (window.close()) detaches the
 * debugger mid-input, and its receipt says so; any other failure is the call's.
 */
export async function unlessClosed(
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

/** An action's one message to the page, sent (decisions 0239, 0241). */
export interface AimedMessage {
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
export function sendAimed(
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

/** Whether the tab closed after `serial`; waits (bounded) for the browser's report. */
function closedSince(target: TabTarget, serial: number): Promise<boolean> {
  return target.link.tabChangeAfter(
    serial,
    (change) => change.kind === "closed" && change.native === target.native,
    CLOSE_REPORT_MS,
  );
}
