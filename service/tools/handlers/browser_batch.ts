/**
 * `browser_batch`: a fixed list of tool calls run in order, stopping at the first that fails,
 * with every result (images too) in one answer. Each call is checked as if called alone before
 * any runs, and runs through the bridge's one door for tool calls. A batch cannot hold a batch
 * or a script.
 *
 * @module
 */

import { type Handler } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { type PlannedStep, precheck, runOutcome, runSteps } from "../core/steps.ts";

/** Most calls in one batch (the schema sets none; a script allows as many). */
export const MAX_ACTIONS = 20;

/** `browser_batch`. */
export const browserBatch: Handler = async (args, context) => {
  if (!context.steps) {
    throw new ToolError(
      "tool_failure",
      "browser_batch cannot run inside a step.",
      "Run it on its own.",
    );
  }
  const actions = args.actions as { name: string; input: Record<string, unknown> }[];
  if (actions.length > MAX_ACTIONS) {
    throw new ToolError(
      "tool_failure",
      `"actions" has ${actions.length} calls; a batch runs at most ${MAX_ACTIONS}.`,
      "Split it into several batches.",
    );
  }
  const steps: PlannedStep[] = actions.map((action) => ({ tool: action.name, args: action.input }));
  const runner = context.steps;
  const problem = precheck(steps, (step) => runner.check(step.tool, step.args), "action");
  if (problem) {
    throw new ToolError("tool_failure", `Nothing ran: ${problem}.`, "Fix it and call again.");
  }
  const run = await runSteps(steps, context.steps, {
    signal: context.signal,
    gone: context.callerGone,
  });
  return runOutcome(run, { total: steps.length, word: "action", structured: {} });
};
