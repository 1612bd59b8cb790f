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
import { untilDialog } from "./dialogs.ts";
import { NavigationWatch } from "./navigation_watch.ts";
import type { Compiled, Ref } from "../core/program.ts";
import { type Before, NAVIGATION_WAIT_MS, type SettleRead, settleStep } from "./receipt.ts";

/** Input events per `cdp.sequence` message. */
const SEQUENCE_CHUNK = 500;
/** Longest wait for the browser's report that an action closed its own tab. */
const CLOSE_REPORT_MS = 500;

/**
 * Where a mouse event lands: a point in viewport CSS pixels, or (in a page program) a value an
 * earlier step found, by name.
 */
export type Aim = { x: number | Ref; y: number | Ref };

/** One mouse event at `point`. */
export function mouse(type: string, point: Aim, extra: Record<string, unknown> = {}) {
  return {
    method: "Input.dispatchMouseEvent",
    params: { type, x: point.x, y: point.y, ...extra },
  };
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
 * Sends the input with the receipt's settle read at the end of its message
 * ({@linkcode settleStep}); answers that read, or "leaving" when the page was being left before
 * the message was answered (a page being left may not answer until it is gone, and the new page
 * is read instead). With no main-frame world known the input goes alone and the receipt reads in
 * a trip of its own.
 */
export async function dispatchSettling(
  context: ToolContext,
  target: TabTarget,
  commands: { method: string; params: Record<string, unknown> }[],
  watch: NavigationWatch,
): Promise<SettleRead | "leaving" | undefined> {
  const settle = settleStep(context.workspace, target);
  if (!settle) {
    await dispatch(target, commands);
    return undefined;
  }
  const sent = dispatch(target, commands, [settle.command]);
  const first = await Promise.race([sent, watch.leaving.then(() => "leaving" as const)]);
  if (first === "leaving") {
    // The input's answer is no longer awaited: the navigation it started is what follows.
    sent.catch(() => {});
    return "leaving";
  }
  // A dialog held the message (null): the receipt reports the dialog and reads nothing.
  return first === null ? null : settle.read(first[0]);
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

/**
 * An action's page program (decisions 0239, 0241): a lead read whose replies come back ahead of
 * the rest, the input aimed by them, and the receipt's settle read (the step named "settle").
 */
export interface AimedProgram<T> {
  program: Compiled<"settle">;
  /** Whether the program's commands may go out pipelined ({@linkcode mayPipeline}). */
  pipeline: boolean;
  /**
   * What the lead's replies say (`tabSerial`: the tab's change serial when the message was sent);
   * null when the lead missed (nothing aimed was sent).
   */
  decide(lead: readonly Record<string, unknown>[], tabSerial: number): Promise<T | null>;
  /** Whether, as decided, the input went out (the program's conditions held). */
  fired(decided: T): Before | null;
  /** The settle step's answer. */
  settle(reply: Record<string, unknown>): SettleRead;
}

/** How an action goes on once its program's lead answered. */
export interface AimedPaths<T, R> {
  /** The input went out: `first` is the settle read, or how the message ended. */
  acted(
    decided: T,
    sent: { watch: NavigationWatch; first: SettleRead | "leaving" | undefined },
  ): Promise<R>;
  /** The lead answered but the input was withheld; `done` resolves once the message is over. */
  withheld(decided: T, done: Promise<unknown>): Promise<R>;
  /** Nothing of the action was sent: the target is found first and the input follows. */
  ordinary(): Promise<R>;
}

/**
 * The one executor of an action's page program: sends it with its lead, decides from the lead's
 * replies, races the dialog the input may open and the page it may leave, and takes the ordinary
 * path when the program cannot go (no program, no main-frame world known, a lead that missed).
 */
export async function execute<T, R>(
  context: ToolContext,
  target: TabTarget,
  aimed: AimedProgram<T> | null,
  paths: AimedPaths<T, R>,
): Promise<R> {
  const main = aimed && knownMain(target, tabPages(context.workspace, target.tabId));
  if (!aimed || !main?.loaderId) return await paths.ordinary();
  const message = sendProgram(target, aimed, { frameId: main.frameId, loaderId: main.loaderId });
  const decided = await message.found((lead) => aimed.decide(lead, message.tabSerial));
  if (decided === null) return await paths.ordinary();
  const before = aimed.fired(decided);
  if (!before) {
    message.watch.stop();
    return await paths.withheld(decided, message.done);
  }
  const first = await message.settled(before, aimed.program, aimed.settle);
  return await paths.acted(decided, { watch: message.watch, first });
}

/** A page program, sent. */
interface SentProgram {
  tabSerial: number;
  watch: NavigationWatch;
  found<T>(decide: (lead: Record<string, unknown>[]) => Promise<T | null>): Promise<T | null>;
  done: Promise<unknown>;
  settled(
    before: Before,
    program: Compiled<"settle">,
    settle: (reply: Record<string, unknown>) => SettleRead,
  ): Promise<SettleRead | "leaving" | undefined>;
}

/** Sends `program` as one message, its lead's replies ahead, watching the main frame `main`. */
function sendProgram(
  target: TabTarget,
  { program, pipeline }: { program: Compiled<"settle">; pipeline: boolean },
  main: { frameId: string; loaderId: string },
): SentProgram {
  const tabSerial = target.link.tabChangeSerial;
  const watch = new NavigationWatch(target.link.tab(target.native), main, NAVIGATION_WAIT_MS);
  let ahead!: (results: Record<string, unknown>[]) => void;
  const leading = new Promise<Record<string, unknown>[]>((resolve) => ahead = resolve);
  const sent = target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: program.commands,
    pipeline,
    lead: program.lead,
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
    async settled(before, program, settle) {
      try {
        // A dialog holds the input (the receipt reports it); a page being left may not answer
        // until it is gone, and the new page is read instead.
        const first = await held;
        if (first === "done") return settle(program.reply("settle", (await sent).results));
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
