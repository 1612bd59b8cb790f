/**
 * How the stages of a call are put together (decision 0325): each stage takes the call's record,
 * which it may not change, and either ends the call with an outcome or hands the next stage a new
 * record with what it found added. A stage may also look at the outcome on its way back out, as
 * middleware does in Hono's `compose`: the stages that come after the handler in a call's order
 * (the landing check, the fence, the step's audit record) wrap the stages below them in the
 * list. The list itself is `CALL_STAGES` in `call_stages.ts`.
 *
 * @module
 */

import type { ConnectorMessage, Outcome } from "../../shared/bridge.ts";
import type { Restriction } from "../governance/mod.ts";
import type { ToolContext } from "../tools/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import type { InnerRefusals, Located } from "./gate.ts";
import type { Filtered } from "./request_filter.ts";
import type { Session } from "./session.ts";

type StartMessage = Extract<ConnectorMessage, { type: "start" }>;

/** What the stages know of the work a call belongs to; fixed for the work's life. */
export interface GatedWork {
  readonly id: string;
  /** The call: its tool and arguments (a step's own), and the context the connector gave. */
  readonly message: StartMessage;
  readonly workspace: Workspace | undefined;
  /**
   * What the call was refused inside its page (a frame, a listed tab, a request's address), for
   * the audit (decision 0302): the one thing noted while the handler runs, so a collector.
   */
  readonly inner: InnerRefusals;
}

/**
 * A call as it passes through its stages. The first fields are given; each stage after adds
 * what it found, in a new record, and no stage changes the one it was given.
 */
export interface CallRecord {
  readonly session: Session;
  readonly work: GatedWork;
  readonly context: ToolContext;
  /** A step of `script` or `browser_batch`: its outcome is audited by the `outcome` stage. */
  readonly step: boolean;
  /** The call's restrictions, read by the `restrictions` stage. */
  readonly restrictions?: readonly Restriction[];
  /** The host the call touches and the tab it read it from, by the `locate` stage. */
  readonly located?: Located;
  /** The request filter set on the call's tab, by the `filter` stage (decision 0275). */
  readonly filtered?: Filtered;
}

/** How a call ended: its outcome, and the furthest record it reached. */
export interface Ended {
  readonly outcome: Outcome;
  readonly record: CallRecord;
}

/** The rest of the stages, from the next one on. */
export type Next = (record: CallRecord) => Promise<Ended>;

/** One stage of a call, by name. */
export interface Stage {
  readonly name: string;
  /** Ends the call (an outcome, without calling `next`) or calls `next` with its record. */
  readonly run: (record: CallRecord, next: Next) => Promise<Ended>;
}

/** What a stage before the handler decides: the record for the next stage, or the outcome. */
export type Verdict = { readonly record: CallRecord } | { readonly outcome: Outcome };

/** A stage that checks or learns something before the handler runs. */
export function before(
  name: string,
  decide: (record: CallRecord) => Verdict | Promise<Verdict>,
): Stage {
  return {
    name,
    run: async (record, next) => {
      const verdict = await decide(record);
      return "outcome" in verdict ? { outcome: verdict.outcome, record } : next(verdict.record);
    },
  };
}

/**
 * A stage that acts on the outcome of the stages below it (it wraps them); `record` is its own,
 * `ended.record` the furthest one reached.
 */
export function after(
  name: string,
  look: (record: CallRecord, ended: Ended) => Promise<Outcome> | Outcome,
): Stage {
  return {
    name,
    run: async (record, next) => {
      const ended = await next(record);
      return { outcome: await look(record, ended), record: ended.record };
    },
  };
}

/** The last stage: it ends every call that reaches it. */
export function last(
  name: string,
  end: (record: CallRecord) => Promise<Outcome>,
): Stage {
  return { name, run: async (record) => ({ outcome: await end(record), record }) };
}

/**
 * The stages as one function: each stage's `next` runs the stage after it, once; a record
 * handed on is frozen. `reached` hears each record as it is handed on, for an owner that stops
 * waiting before the call ends (the settlement window) and still audits where it got to.
 */
export function compose(stages: readonly Stage[]) {
  return (first: CallRecord, reached?: (record: CallRecord) => void): Promise<Ended> => {
    const at = (index: number): Next => {
      let called = false;
      return (record) => {
        if (called) throw new Error(`stage ${stages[index - 1]?.name} called next twice`);
        called = true;
        const stage = stages[index];
        if (stage === undefined) throw new Error("the last stage handed the call on");
        const frozen = Object.freeze({ ...record });
        reached?.(frozen);
        return stage.run(frozen, at(index + 1));
      };
    };
    return at(0)(first);
  };
}
