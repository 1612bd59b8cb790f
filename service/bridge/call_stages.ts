/**
 * A call's stages, in order, in one list (decision 0325): every call a client makes and every
 * step of `script` or `browser_batch` (decision 0120) goes through this list, so a step is
 * checked, decided, run, landed, fenced and audited exactly as the same call made alone.
 * Read it top to bottom as the call's order before its handler runs; the stages marked "after"
 * act on the way back out, from the bottom up: the handler, the landing check, the fence, the
 * outcome.
 *
 * @module
 */

import type { StepCheck, StepRunner } from "../tools/mod.ts";
import { checkArguments, checkFeatures, handle, withFence } from "./run_tool.ts";
import {
  decideAndRecord,
  filterRequests,
  holdOrPass,
  InnerRefusals,
  locateHost,
  markBegun,
  previewFor,
  readRestrictionsStage,
  stepAudit,
  withLanding,
} from "./gate.ts";
import { refuseUnpinned } from "./pin.ts";
import { refuseQuarantined } from "./quarantine.ts";
import {
  after,
  before,
  type CallRecord,
  compose,
  type GatedWork,
  last,
  type Stage,
} from "./stages.ts";

/** Every call's stages, in the call's order. */
export const CALL_STAGES: readonly Stage[] = [
  after("outcome", stepAudit), // a step's outcome record (a call's is written once settled)
  before("pin", refuseUnpinned), // a remote's tool pin (decision 0400)
  before("arguments", checkArguments), // the tool's schema
  before("quarantine", refuseQuarantined), // its tab's earlier command was cut off
  before("hold", holdOrPass), // the person's controls: stopped, held, attention
  before("restrictions", readRestrictionsStage), // the call's own restrictions, read
  before("locate", locateHost), // the host it touches, from the browser
  before("decision", decideAndRecord), // the policy's decision, audited before anything is sent
  before("filter", filterRequests), // the tab's request filter for this call
  before("begin", markBegun), // the person's view: the call began
  after("fence", withFence), // page strings in structured content fenced
  after("landing", withLanding), // where the tab landed must allow reading
  before("features", checkFeatures), // the extension declared what the tool needs
  last("handler", handle), // the tool itself
];

/** Runs a call through {@linkcode CALL_STAGES}. */
export const runCall = compose(CALL_STAGES);

/**
 * The steps of a multi-step call: each checked and run through {@linkcode CALL_STAGES} in the
 * caller's workspace, audited under its own id beside the work's, with no step runner of its
 * own, so a step cannot start more steps.
 */
export function stepRunner(record: CallRecord): StepRunner {
  const { session, work, context } = record;
  let count = 0;
  return {
    check: (tool, args): StepCheck => ({
      problem: session.deps.catalog.argumentProblem(tool, args),
      ...previewFor(session, work),
    }),
    run: async (tool, args, signal) => {
      const step: GatedWork = {
        id: `${work.id}.${++count}`,
        message: { ...work.message, tool, arguments: args },
        workspace: work.workspace,
        inner: new InnerRefusals(),
      };
      const context_ = { ...context, signal, steps: undefined };
      return (await runCall({ session, work: step, context: context_, step: true })).outcome;
    },
  };
}
