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
import type { ReceiptElement } from "../page_runtime/contract.ts";
import { inMainFrame, runtimeCall, tabPages } from "./frames.ts";

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

/** One slice of asking the page's main frame about a condition. */
export function lookAt(
  workspace: Workspace,
  target: TabTarget,
  condition: Condition,
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
    const check = await inMainFrame(target, pages, runtimeCall("waitCheck", spec, sliceMs));
    return "error" in check ? { met: false, error: check.error } : check;
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
  const waited = await waitInSlices(lookAt(context.workspace, target, condition), {
    timeoutMs: options.timeoutMs,
    signal: context.signal,
    startedAt,
  });
  const settleToo = options.settle || (condition.state === "settled" &&
    (condition.selector !== undefined || condition.text !== undefined));
  if (waited.ended !== "met" || waited.last?.error || !settleToo) return waited;
  const settled = await waitInSlices(
    lookAt(context.workspace, target, { state: "settled" }),
    { timeoutMs: options.timeoutMs, signal: context.signal, startedAt },
  );
  return { ...waited, elapsedMs: settled.elapsedMs, settled: settled.ended === "met" };
}
