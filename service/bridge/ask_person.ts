/**
 * Asking the person, inside the decision stage (decision 0360): a call the policy says to ask
 * about waits, bounded, for the person's answer, each question and each answer written to the
 * audit before the call goes on. The person's yes is the call's own (once) or the workspace's
 * (on this site for this agent, kept by the broker); both reach `decide()` as `CallFacts.yes`,
 * so the landing check and the documents inside the call's page hear the same yes.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import { type PersonQuestion, targetWords } from "../../shared/person.ts";
import type { Asking, Reply } from "../asks/mod.ts";
import type { Capability } from "../catalog/mod.ts";
import type { Decision, PageHost } from "../governance/mod.ts";
import type { Session } from "./session.ts";
import type { CallRecord, GatedWork } from "./stages.ts";

/** The yeses "once" the person gave each call, by host and capability, with their words. */
const once = new WeakMap<GatedWork, Map<string, string>>();

function keyOf(host: string, capability: Capability): string {
  return `${capability} ${host}`;
}

/** The person's yes that covers `capability` on `host` for this work, in words, or null. */
export function yesFor(
  session: Session,
  work: GatedWork,
): (host: string, capability: Capability) => string | null {
  return (host, capability) => {
    const own = once.get(work)?.get(keyOf(host, capability));
    if (own !== undefined) return own;
    if (!work.workspace) return null;
    const kept = session.deps.governance.questions.remembered(
      work.workspace.id,
      session.info.principal,
      host,
      capability,
    );
    return kept === null ? null : `the person allowed ${capability} on this site for this agent ` +
      `(question ${kept.question}, answered from ${kept.by})`;
  };
}

/** What asking ended in: go on and decide again, or the call's end with its reason. */
export type Asked =
  | { kind: "yes" }
  | { kind: "refused"; rule: string; counts: boolean }
  | { kind: "ended"; outcome: Outcome };

/** How the decision stage writes a decision record (null when written, else the refusal). */
export type RecordDecision = (
  decision: { result: string; host: PageHost; rule: string },
) => Promise<Outcome | null>;

/**
 * Asks the person about `decision` (an ask for `capability` on `host`), after recording the
 * question; records the answer. A yes is kept (once, on this work); a no, no answer in time or
 * the call's end is said.
 */
export async function askThePerson(
  record: CallRecord,
  host: string,
  decision: Decision & { capability: Capability },
  write: RecordDecision,
  call: string,
  target: PersonQuestion["target"] = null,
): Promise<Asked> {
  const { session, work, context } = record;
  const { questions } = session.deps.governance;
  const workspace = work.workspace;
  if (!workspace) {
    return {
      kind: "refused",
      rule: `${decision.rule}, and a call without a workspace cannot ` +
        "ask the person",
      counts: false,
    };
  }
  const asked = await write({ result: "ask", host, rule: `the person is asked: ${decision.rule}` });
  if (asked) return { kind: "ended", outcome: asked };
  const reply = await questions.ask({
    workspace,
    principal: session.info.principal,
    client: workspace.label,
    capability: decision.capability,
    host,
    call,
    target,
    reach: inTheConnector(session, work, work.message.context.elicitation === true),
  }, context.signal);
  const said = answerWords(reply);
  const recorded = await write({
    result: reply.kind === "yes" ? "allowed" : reply.kind === "withdrawn" ? "withdrawn" : "denied",
    host,
    rule: said,
  });
  if (recorded) return { kind: "ended", outcome: recorded };
  switch (reply.kind) {
    case "yes": {
      if (reply.once) {
        const kept = once.get(work) ?? new Map<string, string>();
        once.set(work, kept);
        kept.set(
          keyOf(host, decision.capability),
          `the person allowed ${decision.capability} for this call (question ${reply.number}, ` +
            `answered from ${reply.by})`,
        );
      }
      return { kind: "yes" };
    }
    case "withdrawn":
      return {
        kind: "ended",
        outcome: {
          kind: "cancelled",
          message: "The call ended while Ghostlight was waiting for the person's answer; " +
            "nothing was done in the browser.",
          next_step: "Try again if it is still wanted; the person is asked again.",
        },
      };
    case "busy":
      return {
        kind: "ended",
        outcome: {
          kind: "not_dispatched",
          message: "Too many of this agent's calls are already waiting for the person's " +
            "answer; nothing was done in the browser.",
          next_step: "Wait for the person to answer the question that is open, then retry.",
        },
      };
    default:
      return { kind: "refused", rule: said, counts: true };
  }
}

/**
 * Tells the asking call's connector that its call waits for the person, and when it no longer
 * does: its caller deadline does not run meanwhile, since the question has its own bound (0480).
 * Where the call's client declared elicitation the connector puts the question to it (decision
 * 0361), and only then is the client's answer taken, and only for it.
 */
function inTheConnector(
  session: Session,
  work: GatedWork,
  elicitation: boolean,
): NonNullable<Asking["reach"]> {
  const seq = work.message.seq;
  let asked: number | null = null;
  return {
    opened: (view) => {
      asked = view.number;
      if (elicitation) session.elicited.set(view.number, seq);
      session.send({ type: "ask", seq, question: view.number, message: questionWords(view) });
    },
    closed: () => {
      if (asked === null) return;
      session.elicited.delete(asked);
      session.send({ type: "withdraw", seq, question: asked });
    },
  };
}

/**
 * A question as the client's form says it: who wants what where, the element it aims at fenced
 * as page text; never a value.
 */
function questionWords(view: PersonQuestion): string {
  const aims = view.target ? `, aiming at ${targetWords(view.target)}` : "";
  return `Ghostlight: the agent ${view.principal} (workspace ${view.workspace}) asks to ` +
    `${view.capability} on ${view.host}: ${view.call}${aims}. Allow it once, allow ${view.capability} ` +
    `on ${view.host} for this agent until its workspace ends, or deny? (Question ${view.number}; ` +
    "'ghostlight asks' and the Ghostlight popup show it too.)";
}

/** A reply in the audit's and the agent's words. */
function answerWords(reply: Reply): string {
  switch (reply.kind) {
    case "yes":
      return reply.once
        ? `the person allowed it once (question ${reply.number}, answered from ${reply.by})`
        : `the person allowed it on this site for this agent (question ${reply.number}, ` +
          `answered from ${reply.by})`;
    case "no":
      return `the person said no (question ${reply.number}, answered from ${reply.by})`;
    case "unanswered":
      return `the person did not answer ${
        reply.number === null ? "in time" : `question ${reply.number}`
      } within ${seconds(reply.ms)}`;
    case "withdrawn":
      return "the call ended before the person answered";
    case "busy":
      return "too many of this agent's calls were waiting for the person's answer";
  }
}

/** Waits, bounded, until the workspace of the call has no open question; false when it timed out. */
export async function behindOpenQuestion(record: CallRecord): Promise<boolean> {
  const { session, work, context } = record;
  if (!work.workspace) return true;
  const { questions } = session.deps.governance;
  if (!questions.isOpen(work.workspace.id)) return true;
  return await questions.clear(work.workspace.id, context.signal);
}

/** The words of a queued call that the open question outlasted. */
export function stillAsking(session: Session): Outcome {
  return {
    kind: "not_dispatched",
    message: "Another call of this agent is waiting for the person's answer, and this one " +
      `waited behind it for ${
        seconds(session.deps.governance.questions.timeoutMs)
      } without its ending; nothing was done in the browser.`,
    next_step: "Ask the person to answer the question that is open ('ghostlight asks', the " +
      "popup), then retry.",
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
