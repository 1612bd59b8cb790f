/**
 * `wait_for`: waits until a selector or text is visible, present or gone, or until the page
 * settles, for at most `timeout_ms` (30 s), and answers which condition held and when. The page
 * is asked in short slices (`page/wait.ts`), so a cancelled wait sends nothing more.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { fence, originOf } from "../core/safe_text.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { pageInfo } from "../page/frames.ts";
import {
  type Condition,
  describeCondition,
  MAX_WAIT_MS,
  notAskedNote,
  pause,
  type Waited,
  waitForCondition,
} from "../page/wait.ts";

/** How long a wait lasts when the call names no timeout. */
const DEFAULT_TIMEOUT_MS = 10_000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** The condition a call asks for; refuses a state that needs a selector or text without one. */
export function conditionOf(args: Record<string, unknown>, tabId: number): Condition {
  const selector = typeof args.selector === "string" && args.selector.trim() !== ""
    ? args.selector
    : undefined;
  const text = typeof args.text === "string" && args.text.trim() !== "" ? args.text : undefined;
  const state = (args.state as Condition["state"] | undefined) ??
    (selector === undefined && text === undefined ? "settled" : "visible");
  if (state !== "settled" && selector === undefined && text === undefined) {
    throw new ToolError(
      "tool_failure",
      `state "${state}" needs a selector or a text to look for.`,
      `Call {"tabId": ${tabId}, "text": "Order confirmed", "state": "${state}"}, or ` +
        `{"tabId": ${tabId}, "state": "settled"} to wait for the page to go quiet.`,
    );
  }
  return { ...(selector ? { selector } : {}), ...(text ? { text } : {}), state };
}

/** The timeout a call asks for, bounded, with a note when it was moved. */
function timeoutOf(asked: unknown): { ms: number; note: string } {
  if (typeof asked !== "number") return { ms: DEFAULT_TIMEOUT_MS, note: "" };
  const ms = Math.max(0, Math.min(MAX_WAIT_MS, Math.floor(asked)));
  return {
    ms,
    note: ms === asked ? "" : ` (timeout_ms ${asked} was bounded to ${ms}, the most is 30000)`,
  };
}

/** What the page showed last, fenced: page words never go out bare. */
async function lastSeen(context: ToolContext, target: TabTarget, waited: Waited) {
  const look = waited.last;
  if (!look?.first) return "";
  const { url } = await pageInfo(context.workspace, target).catch(() => ({ url: "" }));
  return "\n" + fence(
    context.workspace,
    originOf(url),
    `first match: ${look.first.role || look.first.tag} "${look.first.name}"`,
  );
}

function refusals(condition: Condition, waited: Waited, timeoutMs: number, tabId: number) {
  if (waited.last?.error === "bad_selector") {
    return new ToolError(
      "tool_failure",
      `selector ${JSON.stringify(condition.selector)} is not a valid CSS selector.`,
      `Fix it (e.g. "#status", ".toast", "button[type=submit]"), or wait for text instead: ` +
        `{"tabId": ${tabId}, "text": "Saved"}.`,
    );
  }
  if (waited.ended === "cancelled") {
    return new ToolError(
      "cancelled",
      `The wait for ${describeCondition(condition)} was cancelled after ` +
        `${seconds(waited.elapsedMs)}; nothing more was asked of the page.`,
      "Call wait_for again if it is still wanted.",
    );
  }
  const count = waited.last?.present === undefined
    ? ""
    : ` (last look: ${waited.last.present} present, ${waited.last.visible} visible)`;
  return new ToolError(
    "tool_failure",
    `Timed out after ${seconds(timeoutMs)}: ${describeCondition(condition)} did not hold${count}.` +
      notAskedNote(waited.last, condition.state),
    "Look at the page (computer screenshot or get_page_text) to see what it shows instead, " +
      "then wait for that or act.",
  );
}

/** `wait_for`. */
export const waitFor: Handler = async (args, context): Promise<Outcome> => {
  const startedAt = Date.now();
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const condition = conditionOf(args, target.tabId);
  const timeout = timeoutOf(args.timeout_ms);
  const minMs = Math.min(timeout.ms, Math.max(0, Number(args.min_ms ?? 0)));
  // The least wait is spent without asking the page anything.
  if (minMs > 0 && await pause(minMs - (Date.now() - startedAt), context.signal)) {
    throw refusals(condition, { ended: "cancelled", elapsedMs: Date.now() - startedAt }, 0, 0);
  }
  const waited = await waitForCondition(context, target, condition, {
    timeoutMs: timeout.ms,
    settle: args.settle === true,
    startedAt,
  });
  if (waited.ended !== "met" || waited.last?.error) {
    throw refusals(condition, waited, timeout.ms, target.tabId);
  }
  const settled = waited.settled === undefined
    ? ""
    : waited.settled
    ? " and the page settled"
    : ", but the page did not settle before the timeout";
  return success(
    `Held after ${seconds(waited.elapsedMs)}: ${describeCondition(condition)}${settled}` +
      `${timeout.note}.${notAskedNote(waited.last, condition.state)}` +
      await lastSeen(context, target, waited),
    {
      tabId: target.tabId,
      met: true,
      condition,
      elapsedMs: waited.elapsedMs,
      ...(waited.settled !== undefined ? { settled: waited.settled } : {}),
      ...(waited.last?.present !== undefined
        ? { present: waited.last.present, visible: waited.last.visible }
        : {}),
      ...(waited.last?.notAsked ? { framesNotAsked: waited.last.notAsked } : {}),
    },
  );
};
