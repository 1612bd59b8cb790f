/**
 * A remote's tool pin (decision 0400): a remote shore's connection may call only the tools the
 * person pinned for that remote, whatever the policy allows. The pin was bound from the service's
 * own remotes file when the shore said hello; a call of any other tool, and any step of a
 * multi-step tool naming one, is refused here before anything else is looked at, and audited.
 *
 * @module
 */

import { recordDecision } from "./gate.ts";
import type { CallRecord, Verdict } from "./stages.ts";

/** The `pin` stage: a remote's call of a tool outside its pin is refused and audited. */
export async function refuseUnpinned(record: CallRecord): Promise<Verdict> {
  const { session, work } = record;
  const remote = session.info.remote;
  const tool = work.message.tool;
  if (remote === undefined || remote.pin.has(tool)) return { record };
  const rule = `${tool} is not in the tool pin of remote ${remote.name}`;
  const recorded = await recordDecision(session, work, { result: "denied", host: null, rule });
  return {
    outcome: recorded ?? {
      kind: "denied",
      message: `Ghostlight refused ${tool}: it is not among the tools the person pinned for ` +
        `this remote agent (pin refusal).`,
      next_step: "Use only the tools listed for you; the person can add one with " +
        `'ghostlight remote pin ${remote.name} --tools ...'.`,
    },
  };
}
