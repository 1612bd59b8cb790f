/**
 * A remote's tool pin (decision 0400): a remote shore's connection may call only the tools the
 * person pinned for that remote, whatever the policy allows. The pin was bound from the service's
 * own remotes file when the shore said hello; a call of any other tool, and any step of a
 * multi-step tool naming one, is refused here before anything else is looked at, and audited.
 *
 * @module
 */

import { log } from "../log/mod.ts";
import { recordDecision } from "./gate.ts";
import type { RemoteBinding } from "./session.ts";
import type { CallRecord, Verdict } from "./stages.ts";

/** The `pin` stage: a remote's call of a tool outside its pin is refused and audited. */
export async function refuseUnpinned(record: CallRecord): Promise<Verdict> {
  const { session, work } = record;
  const bound = session.info.remote;
  const tool = work.message.tool;
  if (bound === undefined) return { record };
  // The file as it is now (decision 0470): a removed remote is refused and its shore let go.
  const remote = await bound.current?.() ?? bound;
  if ("refused" in remote) return await removed(record, bound, remote.refused);
  if (remote.pin.has(tool)) return { record };
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

/** A call of a remote the person removed since its shore connected: refused, audited, let go. */
async function removed(
  record: CallRecord,
  bound: RemoteBinding,
  why: string,
): Promise<Verdict> {
  const { session, work } = record;
  log("warn", why);
  const rule = `remote ${bound.name} is no longer configured`;
  const recorded = await recordDecision(session, work, { result: "denied", host: null, rule });
  bound.drop?.();
  return {
    outcome: recorded ?? {
      kind: "denied",
      message: `Ghostlight refused ${work.message.tool}: the person removed this remote agent.`,
      next_step: "Stop: this remote agent may no longer use the browser.",
    },
  };
}
