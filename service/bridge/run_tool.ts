/**
 * The stages of a call that are the tool's own rather than governance's (decision 0325): its
 * arguments against its schema, the extension's features, the handler (whatever it throws
 * becomes an outcome), and the fence on its structured content. `call_stages.ts` puts them in
 * the call's order with the others.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import { ExtensionFeature, FEATURE_TOOLS, UPGRADE_STEP } from "../../shared/extension_features.ts";
import { BrowserError, decomposeTabId } from "../browser/mod.ts";
import { failureOutcome, fenceStructured, HANDLERS, type ToolContext } from "../tools/mod.ts";
import type { CallRecord, Ended, Verdict } from "./stages.ts";

/** The `arguments` stage: the call's arguments against its tool's schema. */
export function checkArguments(record: CallRecord): Verdict {
  const { tool, arguments: args } = record.work.message;
  const problem = record.session.deps.catalog.argumentProblem(tool, args);
  if (problem === null) return { record };
  return {
    outcome: {
      kind: "tool_failure",
      message: problem,
      next_step: "Fix the arguments and call again.",
    },
  };
}

/**
 * The `fence` stage, on the way out: the outcome with its structured content's page strings
 * fenced (decision 0150), the one place the rule is applied, for every call and every step.
 */
export function withFence(record: CallRecord, { outcome }: Ended): Outcome {
  const workspace = record.context.workspace as ToolContext["workspace"] | undefined;
  if (outcome.kind !== "success" || !outcome.structured || !workspace) return outcome;
  return { ...outcome, structured: fenceStructured(workspace, outcome.structured) };
}

/**
 * The `features` stage: the upgrade step, before anything touches the page, when the call's
 * tool needs a feature the extension of the browser holding its tab did not declare. The link
 * refuses the operations of such a feature anyway (`needs_upgrade`); this answers before the
 * tool's first read.
 */
export function checkFeatures(record: CallRecord): Verdict {
  const { tool, arguments: args } = record.work.message;
  const feature = ExtensionFeature.options.find((name) => FEATURE_TOOLS[name].includes(tool));
  const tabId = args.tabId;
  if (feature === undefined || typeof tabId !== "number") return { record };
  const slot = decomposeTabId(tabId)?.slot;
  const link = slot === undefined ? undefined : record.context.browsers.bySlot(slot);
  if (link === undefined || link.details.features.includes(feature)) return { record };
  return {
    outcome: upgradeOutcome(
      tool,
      new BrowserError(
        "needs_upgrade",
        `the installed extension (${link.details.extensionVersion}) does not support ${feature}`,
      ),
    ),
  };
}

/** The `handler` stage: the tool's handler; what it throws becomes an outcome. */
export async function handle(record: CallRecord): Promise<Outcome> {
  const { message: { tool, arguments: args } } = record.work;
  const { context } = record;
  try {
    return await HANDLERS[tool](args, context);
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "not_sent") return notSentOutcome(error);
    if (error instanceof BrowserError && error.kind === "needs_upgrade") {
      return upgradeOutcome(tool, error);
    }
    return failureOutcome(error, context.workspace);
  }
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
