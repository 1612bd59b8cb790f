/**
 * The one door every tool call goes through, whether the client asked for it or it is a step of
 * `script` or `browser_batch`: its arguments are checked against its schema, then governance
 * decides (before anything reaches the browser), then its handler runs, then governance looks at
 * where its tab landed. Whatever the handler throws becomes an outcome. A step is judged and
 * audited exactly as the same call made alone.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import { ExtensionFeature, FEATURE_TOOLS, UPGRADE_STEP } from "../../shared/extension_features.ts";
import { BrowserError, decomposeTabId } from "../browser/mod.ts";
import type { Catalog } from "../catalog/mod.ts";
import {
  failureOutcome,
  fenceStructured,
  HANDLERS,
  type StepCheck,
  type StepRunner,
  type ToolContext,
} from "../tools/mod.ts";

/** One call: which tool, with which arguments. */
export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What governance does around one call (see `gate.ts`). */
export interface CallGate {
  /** Before the handler: null when the call may run, else the outcome it gets instead. */
  before(call: ToolCall): Promise<Outcome | null>;
  /** After the handler: the outcome the caller gets (a landing the policy refuses withholds). */
  after(call: ToolCall, outcome: Outcome): Promise<Outcome>;
  /** What can be said before running, without touching a page: a dry run's verdict. */
  preview(call: ToolCall): { allowed: boolean; why: string };
}

/** Runs one call: its arguments checked, then gated, then handled; never throws. */
export async function runTool(
  catalog: Catalog,
  call: ToolCall,
  context: ToolContext,
  gate: CallGate,
): Promise<Outcome> {
  const problem = catalog.argumentProblem(call.tool, call.args);
  if (problem !== null) {
    return {
      kind: "tool_failure",
      message: problem,
      next_step: "Fix the arguments and call again.",
    };
  }
  const refused = await gate.before(call);
  if (refused !== null) return refused;
  const lacking = lackingFeature(call, context);
  if (lacking !== null) return await gate.after(call, lacking);
  return fenced(await gate.after(call, await callHandler(call, context)), context);
}

/**
 * The outcome with its structured content's page strings fenced (decision 0150): the one place
 * the rule is applied, for every call and every step.
 */
function fenced(outcome: Outcome, context: ToolContext): Outcome {
  const workspace = context.workspace as ToolContext["workspace"] | undefined;
  if (outcome.kind !== "success" || !outcome.structured || !workspace) return outcome;
  return { ...outcome, structured: fenceStructured(workspace, outcome.structured) };
}

/**
 * The upgrade step, before anything touches the page, when the call's tool needs a feature the
 * extension of the browser holding its tab did not declare. The link refuses the operations of
 * such a feature anyway (`needs_upgrade`); this answers before the tool's first read.
 */
function lackingFeature(call: ToolCall, context: ToolContext): Outcome | null {
  const feature = ExtensionFeature.options.find((name) => FEATURE_TOOLS[name].includes(call.tool));
  const tabId = call.args.tabId;
  if (feature === undefined || typeof tabId !== "number") return null;
  const slot = decomposeTabId(tabId)?.slot;
  const link = slot === undefined ? undefined : context.browsers.bySlot(slot);
  if (link === undefined || link.details.features.includes(feature)) return null;
  return upgradeOutcome(
    call.tool,
    new BrowserError(
      "needs_upgrade",
      `the installed extension (${link.details.extensionVersion}) does not support ${feature}`,
    ),
  );
}

/** Calls the tool's handler; what it throws becomes an outcome. */
async function callHandler(call: ToolCall, context: ToolContext): Promise<Outcome> {
  try {
    return await HANDLERS[call.tool](call.args, context);
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "not_sent") return notSentOutcome(error);
    if (error instanceof BrowserError && error.kind === "needs_upgrade") {
      return upgradeOutcome(call.tool, error);
    }
    return failureOutcome(error, context.workspace);
  }
}

/**
 * The steps of a multi-step call: each checked, gated and run through {@linkcode runTool} in the
 * caller's workspace, with no step runner of its own, so a step cannot start more steps.
 * `gateFor` gives each step its own gate, so each is decided and audited on its own.
 */
export function stepRunner(
  catalog: Catalog,
  context: ToolContext,
  gateFor: (call: ToolCall) => CallGate,
): StepRunner {
  return {
    check: (tool, args): StepCheck => ({
      problem: catalog.argumentProblem(tool, args),
      ...gateFor({ tool, args }).preview({ tool, args }),
    }),
    run: (tool, args, signal) =>
      runTool(
        catalog,
        { tool, args },
        { ...context, signal, steps: undefined },
        gateFor({ tool, args }),
      ),
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

/**
 * The tool needs a feature the installed extension did not declare in its hello: the command
 * was refused before it was sent, and only an upgrade makes the tool work.
 */
function upgradeOutcome(tool: string, error: BrowserError): Outcome {
  return {
    kind: "tool_failure",
    message: `${tool} cannot work with this browser: ${error.message}, so nothing was sent to ` +
      `it. Other tools still work.`,
    next_step: UPGRADE_STEP,
  };
}
