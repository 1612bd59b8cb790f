import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import type { Outcome } from "../../../shared/bridge.ts";
import type { StepRunner } from "./context.ts";
import { type PlannedStep, precheck, runOutcome, runSteps } from "./steps.ts";

const OK: Outcome = { kind: "success", content: [{ type: "text", text: "done" }] };
const FAIL: Outcome = { kind: "tool_failure", message: "no such ref", next_step: "read again" };

/** A runner whose steps answer from `answers` by tool name, recording what ran. */
function runner(answers: Record<string, Outcome>, onRun?: (tool: string) => void) {
  const ran: string[] = [];
  const steps: StepRunner = {
    check: (tool) => ({
      problem: tool === "bogus" ? "unknown tool bogus" : null,
      allowed: true,
      why: "no policy is set",
    }),
    run: (tool) => {
      ran.push(tool);
      onRun?.(tool);
      return Promise.resolve(answers[tool] ?? OK);
    },
  };
  return { steps, ran };
}

const plan = (...tools: string[]): PlannedStep[] => tools.map((tool) => ({ tool, args: {} }));

Deno.test("a run stops at the first failure and says which step it was", async () => {
  const { steps, ran } = runner({ b: FAIL });
  const run = await runSteps(plan("a", "b", "c"), steps, { signal: new AbortController().signal });
  assertEquals(ran, ["a", "b"]);
  const outcome = runOutcome(run, { total: 3, word: "action", structured: {} });
  assert(outcome.kind === "success");
  assertMatch(
    (outcome.content[0] as { text: string }).text,
    /^Stopped at action 2 of 3 \(b\), which failed, after action 1 ran; action 3 did not run\.$/,
  );
  assertEquals(outcome.structured?.stopped, "error");
});

Deno.test("a first step that fails is the run's failure: nothing happened", async () => {
  const { steps } = runner({ a: FAIL });
  const run = await runSteps(plan("a", "b"), steps, { signal: new AbortController().signal });
  const outcome = runOutcome(run, { total: 2, word: "step", structured: {} });
  assertEquals(outcome.kind, "tool_failure");
  assertMatch(outcome.kind === "tool_failure" ? outcome.message : "", /step 1 \(a\) failed/);
});

Deno.test("onError continue records the failure and runs on", async () => {
  const { steps, ran } = runner({ b: FAIL });
  const run = await runSteps(plan("a", "b", "c"), steps, {
    signal: new AbortController().signal,
    continueOnError: true,
  });
  assertEquals(ran, ["a", "b", "c"]);
  const outcome = runOutcome(run, { total: 3, word: "step", structured: {} });
  assert(outcome.kind === "success");
  assertMatch((outcome.content[0] as { text: string }).text, /step 2 failed and the run went on/);
});

Deno.test("a cancelled run stops after its current step and says which ran", async () => {
  const controller = new AbortController();
  const { steps, ran } = runner({}, (tool) => tool === "b" && controller.abort());
  const run = await runSteps(plan("a", "b", "c"), steps, { signal: controller.signal });
  assertEquals(ran, ["a", "b"]);
  const outcome = runOutcome(run, { total: 3, word: "step", structured: {} });
  assertEquals(outcome.kind, "cancelled");
  assertMatch(
    outcome.kind === "cancelled" ? outcome.message : "",
    /^Cancelled after step 2 of 3; step 3 did not run\.$/,
  );
});

Deno.test("a caller gone stops the run after its current step, which is not cut short", async () => {
  const gone = new AbortController();
  const signal = new AbortController().signal;
  const seen: AbortSignal[] = [];
  const { steps, ran } = runner({}, (tool) => tool === "b" && gone.abort());
  const run = await runSteps(plan("a", "b", "c"), {
    ...steps,
    run: (tool, args, stepSignal) => {
      seen.push(stepSignal);
      return steps.run(tool, args, stepSignal);
    },
  }, { signal, gone: gone.signal });
  assertEquals(ran, ["a", "b"]);
  assert(seen.every((stepSignal) => !stepSignal.aborted), "no step's own signal was aborted");
  const outcome = runOutcome(run, { total: 3, word: "action", structured: {} });
  assertEquals(outcome.kind, "cancelled");
  assertMatch(
    outcome.kind === "cancelled" ? outcome.message : "",
    /^The caller went away; stopped after action 2 of 3; action 3 did not run\.$/,
  );
});

Deno.test("a spent budget stops the run before its next step", async () => {
  const budget = new AbortController();
  const { steps, ran } = runner({}, (tool) => tool === "a" && budget.abort());
  const run = await runSteps(plan("a", "b"), steps, {
    signal: new AbortController().signal,
    budget: budget.signal,
  });
  assertEquals(ran, ["a"]);
  assertEquals(run.stopped, "budget");
});

Deno.test("every step is checked before any runs, and none may nest", () => {
  const { steps } = runner({});
  const check = (step: PlannedStep) => steps.check(step.tool, step.args);
  assertEquals(precheck(plan("a", "b"), check, "step"), null);
  assertEquals(
    precheck(plan("a", "bogus"), check, "step"),
    "step 2 (bogus): unknown tool bogus",
  );
  assertMatch(precheck(plan("script"), check, "action") ?? "", /never nest/);
});

Deno.test("a step the budget cuts short is reported as the budget running out", async () => {
  const budget = new AbortController();
  const cut: Outcome = { kind: "cancelled", message: "the wait was cancelled", next_step: "-" };
  const { steps, ran } = runner({ b: cut }, (tool) => tool === "b" && budget.abort());
  const run = await runSteps(plan("a", "b", "c"), steps, {
    signal: new AbortController().signal,
    budget: budget.signal,
  });
  assertEquals(ran, ["a", "b"]);
  const outcome = runOutcome(run, { total: 3, word: "step", structured: {} });
  assert(outcome.kind === "success");
  assertMatch(
    (outcome.content[0] as { text: string }).text,
    /^The time budget ran out during step 2 of 3; step 3 did not run\.$/,
  );
});
