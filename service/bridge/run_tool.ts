/**
 * The one door every tool call goes through, whether the client asked for it or it is a step of
 * `script` or `browser_batch`: its arguments are checked against its schema, then its handler
 * runs, and whatever it throws becomes an outcome. A policy check belongs here, in
 * {@linkcode checkCall}, so that a step is judged exactly as the same call made alone.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import { BrowserError } from "../browser/mod.ts";
import type { Catalog } from "../catalog/mod.ts";
import {
  failureOutcome,
  HANDLERS,
  type StepCheck,
  type StepRunner,
  type ToolContext,
} from "../tools/mod.ts";

/**
 * Whether a call may run, before it runs: its arguments' first problem, and whether it is
 * allowed. No policy exists yet, so every valid call is allowed.
 */
export function checkCall(
  catalog: Catalog,
  tool: string,
  args: Record<string, unknown>,
): StepCheck {
  return {
    problem: catalog.argumentProblem(tool, args),
    allowed: true,
    why: "no policy is set, so every action is allowed",
  };
}

/** Runs one call: checked (as {@linkcode checkCall}), then handled; never throws. */
export async function runTool(
  catalog: Catalog,
  call: { tool: string; args: Record<string, unknown> },
  context: ToolContext,
): Promise<Outcome> {
  const check = checkCall(catalog, call.tool, call.args);
  if (check.problem !== null) {
    return {
      kind: "tool_failure",
      message: check.problem,
      next_step: "Fix the arguments and call again.",
    };
  }
  if (!check.allowed) {
    return { kind: "denied", message: check.why, next_step: "Ask the user to allow it." };
  }
  try {
    return await HANDLERS[call.tool](call.args, context);
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "not_sent") return notSentOutcome(error);
    return failureOutcome(error, context.workspace);
  }
}

/**
 * The steps of a multi-step call: each checked and run through {@linkcode runTool} in the
 * caller's workspace, with no step runner of its own, so a step cannot start more steps.
 */
export function stepRunner(catalog: Catalog, context: ToolContext): StepRunner {
  return {
    check: (tool, args) => checkCall(catalog, tool, args),
    run: (tool, args, signal) =>
      runTool(catalog, { tool, args }, { ...context, signal, steps: undefined }),
  };
}

/**
 * A browser command refused before it left the service (the browser link was already closed or
 * would not take the frame): that command did not happen. Commands cut off in flight are
 * `disconnected` instead and stay outcome_unknown.
 */
function notSentOutcome(error: BrowserError): Outcome {
  return {
    kind: "not_dispatched",
    message: `The browser was not reachable, so this call's browser command was never sent ` +
      `(${error.message}).`,
    next_step: "Check that the browser is running and attached ('ghostlight status'), then " +
      "retry.",
  };
}
