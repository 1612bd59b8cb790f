/**
 * Running a list of tool calls for `script` and `browser_batch`: every step is checked before
 * any runs (as if called alone, through the bridge's {@linkcode StepRunner}), then run in
 * order, each through the same stages as a call made alone (decision 0325); a failure stops the run (or, for a script with `onError: "continue"`, is recorded and
 * passed); a cancellation, a caller gone or a spent time budget stops it after the current
 * step. The answer
 * flattens the steps' results, images kept, and says which ran.
 *
 * @module
 */

import type { ContentBlock, Outcome } from "../../../shared/bridge.ts";
import { type StepCheck, type StepRunner, success } from "./context.ts";
import { ToolError } from "./errors.ts";

/** Tools that run other tools: a step may not be one (steps never nest). */
const MULTI_STEP = new Set(["script", "browser_batch"]);

/** One call of a list, as given. */
export interface PlannedStep {
  tool: string;
  args: Record<string, unknown>;
}

/** A step that ran, with its outcome. */
export interface RanStep {
  /** 1-based. */
  index: number;
  tool: string;
  outcome: Outcome;
  ms: number;
}

/** Why a run ended before its last step. */
export type Stop = "error" | "cancelled" | "budget" | "gone";

/** What a run did. */
export interface Run {
  ran: RanStep[];
  stopped?: Stop;
}

/** The word for a step in answers: "step" for a script, "action" for a batch. */
export type StepWord = "step" | "action";

/**
 * What stops one step from running, before it runs: it is a multi-step tool itself, an unknown
 * tool, has wrong arguments, or would not be allowed. `check` judges the step (a script leaves
 * out what its references fill in at run time). Null when nothing does.
 */
export function stepProblem(
  step: PlannedStep,
  check: (step: PlannedStep) => StepCheck,
): string | null {
  if (MULTI_STEP.has(step.tool)) {
    return `${step.tool} cannot run inside script or browser_batch (they never nest)`;
  }
  const checked = check(step);
  if (checked.problem !== null) return checked.problem;
  return checked.allowed ? null : `it would not be allowed: ${checked.why}`;
}

/** The first problem of any step, named with its number, before anything runs. */
export function precheck(
  steps: PlannedStep[],
  check: (step: PlannedStep) => StepCheck,
  word: StepWord,
): string | null {
  for (const [i, step] of steps.entries()) {
    const problem = stepProblem(step, check);
    if (problem !== null) return `${word} ${i + 1} (${step.tool}): ${problem}`;
  }
  return null;
}

/**
 * Runs the steps in order. `prepare` turns a step's given arguments into the ones it runs with
 * (a script's references) and may throw a {@linkcode ToolError} that fails that step.
 */
export async function runSteps(
  steps: PlannedStep[],
  runner: StepRunner,
  options: {
    signal: AbortSignal;
    /** The caller is gone: stop after the step in progress, which is not cut short. */
    gone?: AbortSignal;
    budget?: AbortSignal;
    continueOnError?: boolean;
    prepare?: (step: PlannedStep, index: number, ran: RanStep[]) => Record<string, unknown>;
  },
): Promise<Run> {
  const ran: RanStep[] = [];
  const stepSignal = options.budget
    ? AbortSignal.any([options.signal, options.budget])
    : options.signal;
  for (const [i, step] of steps.entries()) {
    if (options.signal.aborted) return { ran, stopped: "cancelled" };
    if (options.gone?.aborted) return { ran, stopped: "gone" };
    if (options.budget?.aborted) return { ran, stopped: "budget" };
    const started = Date.now();
    let outcome: Outcome;
    try {
      const args = options.prepare ? options.prepare(step, i + 1, ran) : step.args;
      outcome = await runner.run(step.tool, args, stepSignal);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      outcome = { kind: error.kind, message: error.message, next_step: error.nextStep };
    }
    ran.push({ index: i + 1, tool: step.tool, outcome, ms: Date.now() - started });
    if (options.signal.aborted) return { ran, stopped: "cancelled" };
    // A step the spent budget cut short (a wait) did not fail on its own.
    if (options.budget?.aborted) return { ran, stopped: "budget" };
    if (outcome.kind !== "success" && !options.continueOnError) return { ran, stopped: "error" };
  }
  return { ran };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Steps `from` to `to` in words ("action 3", "steps 2–4"), or "" when there are none. */
function span(word: StepWord, from: number, to: number): string {
  if (from > to) return "";
  return from === to ? `${word} ${from}` : `${word}s ${from}–${to}`;
}

/** One step's part of the answer: a header line, then its blocks. */
function stepBlocks(step: RanStep, word: StepWord): ContentBlock[] {
  const head = `[${word} ${step.index}: ${step.tool}, ${seconds(step.ms)}]`;
  const outcome = step.outcome;
  if (outcome.kind !== "success") {
    return [{
      type: "text",
      text: `${head} FAILED (${outcome.kind}): ${outcome.message}\nNext: ${outcome.next_step}`,
    }];
  }
  const [first, ...rest] = outcome.content;
  if (first?.type !== "text") return [{ type: "text", text: head }, ...outcome.content];
  return [{ type: "text", text: `${head} ${first.text}` }, ...rest];
}

/** The summary line of a run. */
function summary(run: Run, total: number, word: StepWord): string {
  const count = run.ran.length;
  const last = run.ran.at(-1);
  const failed = run.ran.filter((step) => step.outcome.kind !== "success").map((s) => s.index);
  const rest = span(word, count + 1, total);
  const notRun = rest ? `; ${rest} did not run` : "";
  switch (run.stopped) {
    case "error":
      return `Stopped at ${word} ${last!.index} of ${total} (${last!.tool}), which failed, ` +
        `after ${span(word, 1, count - 1)} ran${notRun}.`;
    case "budget":
      return `The time budget ran out ${
        last && last.outcome.kind !== "success" ? "during" : "after"
      } ${word} ${count} of ${total}${notRun}.`;
    case "cancelled":
      return `Cancelled after ${word} ${count} of ${total}${notRun}.`;
    case "gone":
      return `The caller went away; stopped after ${word} ${count} of ${total}${notRun}.`;
    default:
      return `Ran all ${total} ${word}s` +
        (failed.length ? `; ${word} ${failed.join(", ")} failed and the run went on.` : ".");
  }
}

/**
 * The answer for a run. A run that ends in a failure before any step succeeded is that failure
 * (nothing happened); otherwise it is a success that carries every step's result, because the
 * steps that ran had their effects, which the agent must see.
 */
export function runOutcome(
  run: Run,
  context: { total: number; word: StepWord; structured: Record<string, unknown> },
): Outcome {
  const { total, word } = context;
  const head = summary(run, total, word);
  const first = run.ran[0];
  if (run.stopped === "error" && run.ran.length === 1 && first.outcome.kind !== "success") {
    return {
      kind: first.outcome.kind,
      message: `${word} 1 (${first.tool}) failed, so nothing ran after it: ` +
        `${first.outcome.message}`,
      next_step: first.outcome.next_step,
    };
  }
  if (run.stopped === "cancelled" || run.stopped === "gone") {
    return {
      kind: "cancelled",
      message: head,
      next_step: "Inspect the page before repeating the steps that did not run.",
    };
  }
  return success(
    head,
    {
      ...context.structured,
      ran: run.ran.length,
      ...(run.stopped ? { stopped: run.stopped } : {}),
      steps: run.ran.map((step) => ({
        [word]: step.index,
        tool: step.tool,
        ok: step.outcome.kind === "success",
        ms: step.ms,
        ...(step.outcome.kind === "success"
          ? { result: step.outcome.structured ?? {} }
          : { error: { kind: step.outcome.kind, message: step.outcome.message } }),
      })),
    },
    run.ran.flatMap((step) => stepBlocks(step, word)),
  );
}
