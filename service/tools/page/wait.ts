/**
 * Waiting on a page: a condition (a selector or text visible, present or gone; or the page
 * settled) asked of the page in short slices until it holds, the time runs out or the caller
 * cancels. Between slices nothing is in the browser, so a cancelled wait sends nothing more.
 * `wait_for` and `act_on`'s `expect` both wait with it.
 *
 * @module
 */

import type { TabState } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import type { ToolContext } from "../core/context.ts";
import type { TabTarget } from "../core/target.ts";
import type { FrameShown, ReceiptElement, WaitSpec } from "../page_runtime/contract.ts";
import { childFrame, frameGuard, READ } from "./collect.ts";
import { BrowserError } from "../../browser/mod.ts";
import { ToolError } from "../core/errors.ts";
import {
  type Frame,
  FrameGone,
  type FrameGuard,
  FrameHeld,
  FrameWithheld,
  HELD_PAGE,
  inFrame,
  inMainFrame,
  MAX_FRAMES,
  MAX_NESTING,
  readMainFrame,
  runtimeCall,
  type TabPages,
  tabPages,
} from "./frames.ts";

/** The longest any wait lasts. */
export const MAX_WAIT_MS = 30_000;
/** How long one question to the page watches before it answers. */
const SLICE_MS = 500;
/** How long the DOM and the network must be quiet for the page to count as settled. */
export const QUIET_MS = 500;
/** A request open longer than this (a long poll, a stream) does not keep a page unsettled. */
const STUCK_REQUEST_MS = 10_000;

/** What to wait for. */
export interface Condition {
  selector?: string;
  text?: string;
  state: "visible" | "present" | "gone" | "settled";
}

/** An element the page matched, as a receipt names it. */
export type Matched = Pick<ReceiptElement, "role" | "name" | "tag">;

/** One answer of the page to a condition. */
export interface Look {
  met: boolean;
  present?: number;
  visible?: number;
  first?: Matched;
  /** For `settled`: DOM changes seen in the slice. */
  mutations?: number;
  /**
   * Frames of other hosts that were not asked, by why: what they show counts for nothing, so a
   * count is only of the frames asked, and the answer says so. A frame gone meanwhile or with no
   * document yet shows nothing and is not among them.
   */
  notAsked?: NotAsked;
  error?: "bad_selector";
}

/** How a wait ended. */
export interface Waited {
  ended: "met" | "timeout" | "cancelled";
  elapsedMs: number;
  /** The page's last answer (none when it ended before asking). */
  last?: Look;
}

/** Resolves after `ms`, or at once when `signal` aborts; true when it was the signal. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Asks `look` for slices until it answers met (or an error), `timeoutMs` passes or `signal`
 * aborts. A slice in flight when the signal aborts is left to end on its own, unawaited: the
 * wait returns at once and asks nothing more.
 */
export async function waitInSlices(
  look: (sliceMs: number) => Promise<Look>,
  options: { timeoutMs: number; signal: AbortSignal; startedAt?: number },
): Promise<Waited> {
  const startedAt = options.startedAt ?? Date.now();
  const elapsed = () => Date.now() - startedAt;
  let last: Look | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    if (options.signal.aborted) resolve("aborted");
    options.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  while (!options.signal.aborted) {
    const left = options.timeoutMs - elapsed();
    const asked = look(Math.max(0, Math.min(SLICE_MS, left)));
    asked.catch(() => {});
    const answer = await Promise.race([asked, aborted]);
    if (answer === "aborted") break;
    last = answer;
    if (answer.met || answer.error) return { ended: "met", elapsedMs: elapsed(), last };
    if (elapsed() >= options.timeoutMs) return { ended: "timeout", elapsedMs: elapsed(), last };
  }
  return { ended: "cancelled", elapsedMs: elapsed(), ...(last ? { last } : {}) };
}

/** Whether the tab's network has been idle for {@linkcode QUIET_MS}, by the requests seen. */
export function networkQuiet(state: TabState, now = Date.now()): boolean {
  return state.network.items().every((request) => {
    const answered = request.status !== undefined || request.failed !== undefined;
    if (!answered) return now - request.at > STUCK_REQUEST_MS;
    const ended = request.at + (request.durationMs ?? 0);
    return now - ended >= QUIET_MS;
  });
}

/** The frames a look still has to ask, and when its slice ends. */
interface FrameLook {
  target: TabTarget;
  pages: TabPages;
  guard: FrameGuard;
  spec: WaitSpec;
  until: number;
  asked: number;
}

/**
 * Adds what the frames under `parent` that its world cannot enter (another host) show to
 * `total`, each frame in its own world, nested; a frame not asked (withheld by the policy, held,
 * failed, past the bounds) counts for nothing and is counted in `total.notAsked` by why, and one
 * that went away meanwhile shows nothing. For `gone`, a frame still showing the text is watched
 * for the rest of the slice. Every command is a look, bounded in a frame's own session
 * as a read's: a frame whose renderer does not answer is counted held, its tab not quarantined
 * (decisions 0750, 0790).
 */
async function lookInFrames(run: FrameLook, parent: Frame, total: Look, depth: number) {
  const notAsked = (why: keyof NotAsked, count = 1) => {
    total.notAsked ??= {};
    total.notAsked[why] = (total.notAsked[why] ?? 0) + count;
  };
  const read = { read: true };
  let shown: FrameShown[] | null;
  try {
    shown = await inFrame(run.target, run.pages, parent, runtimeCall("framesShown"), read);
  } catch (error) {
    // The page was read but could not be asked which frames it shows (it was leaving, say).
    const why = depth === 0 ? "unlisted" : notAskedFor(error);
    if (why) notAsked(why);
    return;
  }
  // Too many elements or frames to say which it shows: past the bounds of a look.
  if (shown === null) return void notAsked("bounds");
  if (depth >= MAX_NESTING) return void (shown.length && notAsked("bounds", shown.length));
  for (const [index, { id }] of shown.entries()) {
    if (run.asked >= MAX_FRAMES) return void notAsked("bounds", shown.length - index);
    run.asked++;
    try {
      const child = await childFrame(run.target, run.pages, parent, id, run.guard, read);
      const wait = run.spec.state === "gone" ? Math.max(0, run.until - Date.now()) : 0;
      const check = await inFrame(
        run.target,
        run.pages,
        child,
        runtimeCall("waitCheck", run.spec, wait),
        read,
      );
      if ("error" in check) continue;
      total.present = (total.present ?? 0) + (check.present ?? 0);
      total.visible = (total.visible ?? 0) + (check.visible ?? 0);
      total.first ??= check.first;
      await lookInFrames(run, child, total, depth + 1);
    } catch (error) {
      // Not asked now: withheld by the policy, held, failed; a frame gone shows nothing.
      const why = notAskedFor(error);
      if (why) notAsked(why);
    }
  }
}

/** Frames a look did not ask, by why. */
export interface NotAsked {
  /** Its page runs a script on or a dialog holds it: it may answer on a later slice. */
  held?: number;
  /** Asking it failed otherwise. */
  failed?: number;
  /** The policy withholds its host: never asked. */
  withheld?: number;
  /** Past the frames a look asks ({@linkcode MAX_FRAMES}) or deeper than it follows. */
  bounds?: number;
  /** The page could not be asked which frames it shows (1 when so). */
  unlisted?: number;
}

/** Why a frame was not asked, from what asking it threw; null: it shows nothing (gone). */
function notAskedFor(error: unknown): keyof NotAsked | null {
  if (error instanceof FrameWithheld) return "withheld";
  if (error instanceof FrameHeld) return "held";
  if (error instanceof FrameGone) return null;
  if (error instanceof BrowserError) return error.kind === "context_lost" ? null : "failed";
  // The iframe went away or has no document yet (plain errors of childFrame's own).
  if (!(error instanceof ToolError) && error instanceof Error) return null;
  return "failed";
}

/**
 * Whether the condition holds by the counts of every frame asked. Text is gone only when no frame
 * that could still show it went unasked for a while (held, failed); a frame the policy withholds
 * or past the bounds is never asked, and the answer says so instead.
 */
function holds(state: Condition["state"], look: Look): boolean {
  if (state === "present") return (look.present ?? 0) > 0;
  if (state === "visible") return (look.visible ?? 0) > 0;
  const not = look.notAsked;
  return (look.visible ?? 0) === 0 && !not?.held && !not?.failed && !not?.unlisted;
}

/**
 * What a wait's last look did not ask, in Ghostlight's words, for the answer's end ("" when it
 * asked every frame). `state` is the condition's: a `gone` not confirmed for it is said so.
 */
export function notAskedNote(look: Look | undefined, state: Condition["state"]): string {
  const not = look?.notAsked;
  if (!not) return "";
  const frames = (count: number) => count === 1 ? "1 frame" : `${count} frames`;
  const parts = [
    not.unlisted ? "the page's frames could not be listed" : "",
    not.held ? `${frames(not.held)} ${HELD_PAGE}` : "",
    not.failed ? `${frames(not.failed)} that could not be read` : "",
    not.withheld ? `${frames(not.withheld)} the policy withholds` : "",
    not.bounds
      ? `${frames(not.bounds)} past the bound of ${MAX_FRAMES} or ${MAX_NESTING} deep`
      : "",
  ].filter(Boolean);
  if (parts.length === 0) return "";
  const unconfirmed = state === "gone" && (not.held || not.failed || not.unlisted) &&
      (look!.visible ?? 0) === 0
    ? ", so gone could not be confirmed"
    : "";
  return ` Frames not asked: ${parts.join("; ")}; what they show was not counted${unconfirmed}.`;
}

/**
 * One slice of asking the page about a condition: the main frame's world (which reads the
 * frames of the page's own host in place), then, when they could change the answer, the frames
 * of other hosts in their own worlds, as find and get_page_text read them. `guard` withholds the
 * frames the policy refuses to read.
 */
export function lookAt(
  workspace: Workspace,
  target: TabTarget,
  condition: Condition,
  guard: FrameGuard = () => null,
): (sliceMs: number) => Promise<Look> {
  const pages = tabPages(workspace, target.tabId);
  if (condition.state === "settled") {
    return async (sliceMs) => {
      const dom = await inMainFrame(
        target,
        pages,
        runtimeCall("quietCheck", QUIET_MS, Math.max(sliceMs, QUIET_MS)),
      );
      const state = target.link.tab(target.native);
      return { met: dom.quiet && networkQuiet(state), mutations: dom.mutations };
    };
  }
  const spec = {
    ...(condition.selector !== undefined ? { selector: condition.selector } : {}),
    ...(condition.text !== undefined ? { text: condition.text } : {}),
    state: condition.state,
  };
  return async (sliceMs) => {
    const until = Date.now() + sliceMs;
    const read = await readMainFrame(target, pages, runtimeCall("waitCheck", spec, sliceMs));
    const check = read.value!;
    if ("error" in check) return { met: false, error: check.error };
    // Text found in the main frame's world settles visible and present; gone needs every frame.
    if (check.met !== (condition.state === "gone")) return check;
    const total: Look = { ...check };
    const run = { target, pages, guard, spec, until, asked: 0 };
    await lookInFrames(run, read.frame, total, 0);
    return { ...total, met: holds(condition.state, total) };
  };
}

/** The condition in words: `text "Saved" visible`, `the page settled`. */
export function describeCondition(condition: Condition): string {
  if (condition.state === "settled" && !condition.selector && condition.text === undefined) {
    return "the page settled (no DOM change or request for 0.5 s)";
  }
  const parts = [
    condition.selector !== undefined ? `selector ${JSON.stringify(condition.selector)}` : "",
    condition.text !== undefined ? `text ${JSON.stringify(condition.text)}` : "",
  ].filter(Boolean).join(" with ");
  return `${parts} ${condition.state === "settled" ? "visible" : condition.state}`;
}

/**
 * Waits for `condition` and then, with `settle`, for the page to settle too, within the one
 * timeout. Below the handlers: `wait_for` and act_on's `expect` wait through it.
 */
export async function waitForCondition(
  context: ToolContext,
  target: TabTarget,
  condition: Condition,
  options: { timeoutMs: number; settle?: boolean; startedAt?: number },
): Promise<Waited & { settled?: boolean }> {
  const startedAt = options.startedAt ?? Date.now();
  const guard = frameGuard(context, READ);
  // A slice still in the browser when the call is cancelled sends nothing more (decision 0760).
  const asked = { ...target, signal: context.signal };
  const waited = await waitInSlices(lookAt(context.workspace, asked, condition, guard), {
    timeoutMs: options.timeoutMs,
    signal: context.signal,
    startedAt,
  });
  const settleToo = options.settle || (condition.state === "settled" &&
    (condition.selector !== undefined || condition.text !== undefined));
  if (waited.ended !== "met" || waited.last?.error || !settleToo) return waited;
  const settled = await waitInSlices(
    lookAt(context.workspace, asked, { state: "settled" }),
    { timeoutMs: options.timeoutMs, signal: context.signal, startedAt },
  );
  return { ...waited, elapsedMs: settled.elapsedMs, settled: settled.ended === "met" };
}
