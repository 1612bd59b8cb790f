/**
 * `script`: up to 20 dependent tool steps in one call. A later step's argument can be
 * `$prev.path` or `$N.path` (a value from an earlier step's result, `core/references.ts`); the
 * script's `tabId` is every step's tab unless the step names one. Every step is checked as if
 * called alone before any runs, and runs through the bridge's one door for tool calls, so a
 * policy judges it as the same call alone. `dry_run` says what would run and stops there; a
 * total time budget and a cancellation stop the script after its current step.
 *
 * @module
 */

import { capabilitiesFor, CONTRACT } from "../../catalog/mod.ts";
import {
  type Handler,
  type StepCheck,
  type StepRunner,
  success,
  type ToolContext,
} from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { unfenceStructured } from "../core/safe_text.ts";
import type { Workspace } from "../../workspace/mod.ts";
import {
  referencePaths,
  ReferenceProblem,
  resolveReferences,
  type StepResult,
  withoutReferences,
} from "../core/references.ts";
import {
  type PlannedStep,
  precheck,
  type RanStep,
  runOutcome,
  runSteps,
  stepProblem,
} from "../core/steps.ts";

/** The time budget when the call names none, and the most it may name. */
const DEFAULT_BUDGET_MS = 30_000;
/** Below the client's own 60 s deadline for one call, so the answer arrives. */
export const MAX_BUDGET_MS = 50_000;

/** The steps as given, each with the script's tab when it takes one and names none. */
function plannedSteps(args: Record<string, unknown>): PlannedStep[] {
  const steps = args.steps as { tool: string; args?: Record<string, unknown> }[];
  return steps.map((step) => {
    const own = step.args ?? {};
    const schema = CONTRACT.find((row) => row.name === step.tool)?.inputSchema as
      | { properties?: Record<string, unknown> }
      | undefined;
    const takesTab = schema?.properties?.tabId !== undefined;
    return {
      tool: step.tool,
      args: takesTab && own.tabId === undefined && args.tabId !== undefined
        ? { ...own, tabId: args.tabId }
        : own,
    };
  });
}

/**
 * A step checked as far as it is known before the run: the fields its references fill are left
 * out, and a problem about them (a required field missing) waits for the run's own check.
 */
function checkKnown(runner: StepRunner) {
  return (step: PlannedStep): StepCheck => {
    const paths = referencePaths(step.args);
    if (paths.length === 0) return runner.check(step.tool, step.args);
    const check = runner.check(step.tool, withoutReferences(step.args));
    const problem = check.problem;
    const aboutReference = problem !== null && paths.some((path) => problem.includes(`"${path}"`));
    return aboutReference ? { ...check, problem: null } : check;
  };
}

/** What a dry run reports for each step: what it would run, what it needs, and the verdict. */
function dryRun(steps: PlannedStep[], runner: StepRunner) {
  const check = checkKnown(runner);
  const rows = steps.map((step, i) => {
    const problem = stepProblem(step, check);
    const filled = referencePaths(step.args);
    return {
      step: i + 1,
      tool: step.tool,
      args: step.args,
      needs: capabilitiesFor(step.tool, step.args),
      ...(filled.length ? { filledAtRunTime: filled } : {}),
      ...(problem ? { problem } : {}),
    };
  });
  const lines = rows.map((row) =>
    `${row.step}. ${row.tool} ${JSON.stringify(row.args)} — needs ${
      row.needs.join("+") || "nothing"
    }; ${row.problem ? `WOULD NOT RUN: ${row.problem}` : "would run"}` +
    (row.filledAtRunTime ? ` (${row.filledAtRunTime.join(", ")} filled at run time)` : "")
  );
  const blocked = rows.filter((row) => row.problem).map((row) => row.step);
  const policy = runner.check(steps[0].tool, steps[0].args).why;
  return success(
    `Dry run: nothing was done. ${
      blocked.length
        ? `The script would not run: step ${blocked.join(", ")} cannot`
        : `The script would run all ${steps.length} steps`
    } (${policy}).\n${lines.join("\n")}`,
    { dryRun: true, wouldRun: blocked.length === 0, policy, steps: rows },
  );
}

/** What earlier steps left for references. */
function resultsOf(workspace: Workspace, ran: RanStep[]): StepResult[] {
  return ran.map((step) =>
    step.outcome.kind === "success"
      ? {
        ok: true,
        // A reference's value goes back into the page, so it is the page's string, unfenced.
        structured: step.outcome.structured &&
          unfenceStructured(workspace, step.outcome.structured) as Record<string, unknown>,
        text: step.outcome.content.filter((b) => b.type === "text").map((b) => b.text).join("\n"),
      }
      : { ok: false, text: "" }
  );
}

function resolved(
  workspace: Workspace,
  step: PlannedStep,
  index: number,
  ran: RanStep[],
): Record<string, unknown> {
  try {
    return resolveReferences(step.args, resultsOf(workspace, ran), index);
  } catch (error) {
    if (!(error instanceof ReferenceProblem)) throw error;
    throw new ToolError(
      "tool_failure",
      `A reference in step ${index} cannot be resolved: ${error.message}.`,
      "Point it at a key the earlier step's result has (its structured content), e.g. " +
        '"$1.result" or "$prev.matches.0.ref".',
    );
  }
}

/** Runs the steps within the budget; the budget's timer never outlives the call. */
async function runWithin(context: ToolContext, steps: PlannedStep[], budgetMs: number, args: {
  continueOnError: boolean;
}) {
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), budgetMs);
  try {
    return await runSteps(steps, context.steps!, {
      signal: context.signal,
      gone: context.callerGone,
      budget: budget.signal,
      continueOnError: args.continueOnError,
      prepare: (step, index, ran) => resolved(context.workspace, step, index, ran),
    });
  } finally {
    clearTimeout(timer);
  }
}

/** `script`. */
export const script: Handler = async (args, context) => {
  if (!context.steps) {
    throw new ToolError("tool_failure", "script cannot run inside a step.", "Run it on its own.");
  }
  const steps = plannedSteps(args);
  if (args.dry_run === true) return dryRun(steps, context.steps);
  const problem = precheck(steps, checkKnown(context.steps), "step");
  if (problem) {
    throw new ToolError(
      "tool_failure",
      `Nothing ran: ${problem}.`,
      "Fix that step and call script again (dry_run: true checks a script without running it).",
    );
  }
  const asked = args.budget_ms as number | undefined;
  const budgetMs = Math.max(1_000, Math.min(MAX_BUDGET_MS, asked ?? DEFAULT_BUDGET_MS));
  const run = await runWithin(context, steps, budgetMs, {
    continueOnError: args.onError === "continue",
  });
  return runOutcome(run, {
    total: steps.length,
    word: "step",
    structured: { budgetMs, ...(asked !== undefined && asked !== budgetMs ? { asked } : {}) },
  });
};
