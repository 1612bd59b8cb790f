/**
 * Sending input to a tab: events batched into `cdp.sequence` messages (pipelined where the
 * browser keeps their order), the receipt's settle read carried at the end of the input's
 * message, and an action's one message to the page whose lead read aims the input (decisions
 * 0212, 0239, 0241). The executor owns what the input may start, watched on the browser's own
 * events from before it is sent: a dialog the input opens answers the call instead of a hang
 * ({@linkcode untilDialog}), and the navigation it starts ({@linkcode NavigationWatch}) is what
 * the receipt waits on instead of polling the page, and only when there is one.
 *
 * @module
 */

import {
  type BrowserError,
  dialogOpenError,
  type TabEvent,
  type TabState,
} from "../../browser/mod.ts";
import type { ToolContext } from "../core/context.ts";
import type { TabTarget } from "../core/target.ts";
import { type Command, knownMain, tabPages } from "../page/frames.ts";
import type { Compiled, Ref } from "../core/program.ts";
import { type Before, type SettleRead, settleStep } from "./receipt.ts";
import { factsOf, landingReport, type PageFacts, reportedWorld } from "../page/landed_facts.ts";

/** Input events per `cdp.sequence` message. */
const SEQUENCE_CHUNK = 500;
/** Longest wait for the browser's report that an action closed its own tab. */
const CLOSE_REPORT_MS = 500;
/** Longest wait, from the input, for a page an action navigated to. */
export const NAVIGATION_WAIT_MS = 5_000;

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
  const presses = commands.filter((command) => command.params.type === "mousePressed").length;
  const settle = settleStep(context.workspace, target, { presses });
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

/**
 * Waits for `sent` (a command that may make the page open a dialog) unless a dialog opens first:
 * the browser then holds the command until the dialog is answered, and the caller reports the
 * dialog instead of waiting.
 */
export async function untilDialog(
  target: TabTarget,
  sent: Promise<unknown>,
): Promise<"done" | "dialog"> {
  sent.catch(() => {});
  // No bound of its own: the command always settles (answered, cut off or timed out).
  const dialog = target.link.tab(target.native).watch(
    (event) => event.method === "Page.javascriptDialogOpening",
  );
  try {
    const first = await Promise.race([
      sent.then(() => "done" as const),
      dialog.event.then((event) => event ? "dialog" as const : sent.then(() => "done" as const)),
    ]);
    if (first === "done") await sent;
    return first;
  } finally {
    dialog.stop();
  }
}

/**
 * Starts watching, before the input is sent, for a navigation the action may start (bounded by
 * {@linkcode NAVIGATION_WAIT_MS}); pass it to {@linkcode observeAfter}, which stops it.
 */
export function watchNavigation(target: TabTarget, before: Before): NavigationWatch {
  return new NavigationWatch(
    target.link.tab(target.native),
    before.frame,
    before.frame.frameId ? NAVIGATION_WAIT_MS : 0,
  );
}

/**
 * A navigation of the main frame, watched from before an action (so none is missed): whether the
 * main frame began loading another document, when that document committed, and when it reached
 * DOMContentLoaded, came back from the back/forward cache, or the load ended without one (a
 * download, a 204, a failure).
 */
export class NavigationWatch {
  /** True once the main frame asked for another document. */
  started = false;
  /**
   * Resolves when the main frame asks for another document or commits one: the old page is
   * being left, and what it would still answer no longer matters. Never resolves otherwise.
   */
  readonly leaving: Promise<void>;
  /**
   * Resolves with what the document the main frame committed reported of itself first, at its
   * first frame or at its load (decisions 0240, 0245), or null when the watch ends first.
   */
  readonly landed: Promise<PageFacts | null>;
  #tab: TabState;
  #frame: { frameId: string; loaderId: string };
  #arrived: Promise<TabEvent | null>;
  #stop = new AbortController();
  #onLeaving!: () => void;

  /**
   * Watches `frameId`, which shows the document `loaderId` now, for at most `boundMs`; a dialog
   * that opens (a leave-page prompt) ends the watch too, as it holds the navigation.
   */
  constructor(tab: TabState, frame: { frameId: string; loaderId: string }, boundMs: number) {
    this.#tab = tab;
    this.#frame = frame;
    this.leaving = new Promise((resolve) => this.#onLeaving = resolve);
    let request: string | undefined;
    const mainFrame = (id: unknown) => id === frame.frameId;
    const matches = (event: TabEvent): boolean => {
      const p = event.params;
      switch (event.method) {
        case "Network.requestWillBeSent":
          if (p.type === "Document" && mainFrame(p.frameId)) {
            this.started = true;
            request = String(p.requestId);
            this.#onLeaving();
          }
          return false;
        case "Page.lifecycleEvent":
          return mainFrame(p.frameId) && p.name === "DOMContentLoaded" &&
            p.loaderId !== frame.loaderId;
        case "Page.frameNavigated": {
          const navigated = p.frame as { id?: string } | undefined;
          if (!mainFrame(navigated?.id)) return false;
          this.#onLeaving();
          return p.type === "BackForwardCacheRestore";
        }
        case "Page.frameStoppedLoading":
          return this.started && mainFrame(p.frameId);
        case "Network.loadingFailed":
          return request !== undefined && p.requestId === request;
        case "Page.javascriptDialogOpening":
          return true;
      }
      return false;
    };
    this.#arrived = tab.waitFor(matches, boundMs, this.#stop.signal);
    // Only a report after a commit is the new document's: only the main frame's runtime reports.
    // The first report after it ends the wait, and so do events lost since it (the report may
    // be among them): a report that is not well formed (cut on the way) or lost gives null, and
    // the receipt reads the page instead of waiting for its bound.
    let committed = false;
    this.landed = tab.waitFor(
      (event) => {
        const navigated = event.params.frame as { id?: string } | undefined;
        if (event.method === "Page.frameNavigated" && mainFrame(navigated?.id)) committed = true;
        return committed && (landingReport(event) || tab.mainDocument?.lossy === true);
      },
      boundMs,
      this.#stop.signal,
    ).then((event) => event && factsOf(event));
  }

  /** Resolves true when the navigation arrived or ended, false at the bound. */
  async arrived(): Promise<boolean> {
    return (await this.#arrived) !== null;
  }

  /**
   * Whether the main frame's new document will report its facts itself: its runtime named its
   * world as the document was created (decision 0244), and such a runtime reports at the
   * document's first frame or its load, whichever comes first (decision 0245).
   */
  willReport(): boolean {
    const world = reportedWorld(this.#tab.mainDocument);
    return world !== null && world.frameId === this.#frame.frameId &&
      world.loaderId !== this.#frame.loaderId;
  }

  /** Stops watching (the action started no navigation). */
  stop(): void {
    this.#stop.abort();
  }
}
