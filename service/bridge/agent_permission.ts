/**
 * A remote agent host's own permission requests (decision 0530): its shore passes ACP
 * `session/request_permission` here, and the person decides, through the same questions a
 * policy's ask opens (the CLI's `asks`, the popup). Only a connection the service bound to a
 * remote from its own file is heard; the question is bounded by the ask setting, written to the
 * audit when asked and when it ends, and withdrawn when the shore withdraws it or goes away.
 *
 * @module
 */

import type { ConnectorMessage } from "../../shared/bridge.ts";
import type { AgentPermissionAnswer } from "../../shared/person.ts";
import type { Reply } from "../asks/mod.ts";
import { log } from "../log/mod.ts";
import type { Session } from "./session.ts";

/** Most requests one shore may have waiting at once; more are answered `busy`. */
export const MAX_AGENT_ASKS = 8;

/** Each session's requests waiting for the person, by the shore's seq. */
const waiting = new WeakMap<Session, Map<number, AbortController>>();

/** Puts the agent host's request to the person and answers the shore with how it ended. */
export async function agentPermission(
  session: Session,
  message: Extract<ConnectorMessage, { type: "agent_permission" }>,
): Promise<void> {
  const remote = session.info.remote;
  const answer = (answer: AgentPermissionAnswer, said: string) =>
    session.send({ type: "agent_permission_answer", seq: message.seq, answer, said });
  if (remote === undefined) {
    log("warn", "a connector that serves no remote passed an agent's permission request; refused");
    return answer("deny", "only a remote shore's agent host may ask the person");
  }
  const mine = waiting.get(session) ?? new Map<number, AbortController>();
  waiting.set(session, mine);
  if (mine.has(message.seq) || mine.size >= MAX_AGENT_ASKS) {
    return answer("busy", `at most ${MAX_AGENT_ASKS} of the agent host's requests wait at once`);
  }
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, session.gone]);
  mine.set(message.seq, controller);
  const principal = `remote:${remote.name}`;
  const { request } = message;
  const words = `${JSON.stringify(request.title)}${request.kind ? ` (${request.kind})` : ""}`;
  try {
    // Fail closed: a question the audit cannot record is not asked.
    const asked = await record(session, principal, remote.host, "ask", `asked: ${words}`);
    if (!asked) return answer("deny", "the audit is not writing, so the person is not asked");
    const reply = await session.deps.governance.questions.askAgent({
      principal,
      client: `the agent host of remote ${remote.name}`,
      host: remote.host,
      agent: request,
    }, signal);
    const said = replyWords(reply);
    const ended = answerOf(reply);
    await record(session, principal, remote.host, RESULT[ended], `${said}: ${words}`);
    answer(ended, said);
  } finally {
    mine.delete(message.seq);
  }
}

/** The audit's result for each way the question ended. */
const RESULT: Record<AgentPermissionAnswer, string> = {
  once: "allowed",
  deny: "denied",
  unanswered: "unanswered",
  withdrawn: "withdrawn",
  busy: "busy",
};

/** The shore withdrew request `seq` (its agent host cancelled, or the turn stopped). */
export function withdrawAgentPermission(session: Session, seq: number): void {
  waiting.get(session)?.get(seq)?.abort("the shore withdrew it");
}

function answerOf(reply: Reply): AgentPermissionAnswer {
  switch (reply.kind) {
    case "yes":
      return "once";
    case "no":
      return "deny";
    default:
      return reply.kind;
  }
}

/** How the question ended, in words. */
function replyWords(reply: Reply): string {
  switch (reply.kind) {
    case "yes":
      return `the person allowed it once (question ${reply.number}, from ${reply.by})`;
    case "no":
      return `the person said no (question ${reply.number}, from ${reply.by})`;
    case "unanswered":
      return `the person did not answer within ${Math.round(reply.ms / 100) / 10} s`;
    case "withdrawn":
      return "the agent host's request ended before the person answered";
    case "busy":
      return "too many of the agent host's requests were waiting for the person";
  }
}

/** One audit record of the agent host's request; false when it could not be written. */
async function record(
  session: Session,
  principal: string,
  host: string,
  result: string,
  rule: string,
): Promise<boolean> {
  try {
    await session.deps.governance.audit.append({
      kind: "decision",
      result,
      principal,
      client: session.info.client.slice(0, 200),
      workspace: null,
      work: null,
      tool: "agent_permission",
      action: null,
      host,
      capabilities: [],
      rule,
      args: "none",
    });
    return true;
  } catch (error) {
    log("warn", `an agent's permission request was not audited: ${(error as Error).message}`);
    return false;
  }
}
