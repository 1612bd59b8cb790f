/**
 * The person's requests, from whichever surface asks (the CLI through the control socket, the
 * popup and shortcuts through the browser link): checked, carried out by the person's controls,
 * and answered with the state after them.
 *
 * @module
 */

import { type PersonAnswer, PersonRequest, type PersonState } from "../../shared/person.ts";
import { NoSuchGrant, NoSuchQuestion, NotThisAnswer, type Questions } from "../asks/mod.ts";
import type { AuditLog } from "../audit/mod.ts";
import type { Capability } from "../catalog/mod.ts";
import {
  NoSuchWorkspace,
  NotSaved,
  type PersonControls,
  type PolicyFileState,
  type PolicyStore,
} from "../governance/mod.ts";
import { log } from "../log/mod.ts";

/** What answering the person needs. */
export interface PersonDesk {
  person: PersonControls;
  policy: PolicyStore;
  audit: AuditLog;
  /** The questions waiting for the person and the yeses remembered (decision 0360). */
  questions: Questions;
  service: PersonState["service"];
  /** The remotes whose shores are connected (decision 0470), for the popup's remote mark. */
  remotes?: () => PersonState["remotes"];
}

/** Which surface a request came from, as an answer's record names it. */
export type Surface = "the CLI" | "the popup";

/** Everything the person's surfaces show, now. */
export function personState(desk: PersonDesk): PersonState {
  const { machine, user } = desk.policy.states();
  const audit = desk.audit.state();
  return {
    service: desk.service,
    paused: desk.person.paused,
    attentionAfter: desk.person.attentionAfter,
    ...(desk.questions.settleMs === undefined ? {} : { settleMs: desk.questions.settleMs }),
    stopped: desk.person.stoppedAgents,
    policy: {
      summary: policySummary(machine, user),
      problem: policyProblem(machine, user),
      warnings: desk.policy.warnings(),
    },
    audit: {
      file: audit.file,
      ok: audit.ok,
      error: audit.error ?? null,
      ...(audit.gap === undefined ? {} : { gap: audit.gap }),
    },
    workspaces: desk.person.workspaces(),
    questions: desk.questions.questions(),
    granted: desk.questions.granted(),
    remotes: desk.remotes?.() ?? [],
  };
}

/** Checks and carries out one request from `surface`; never throws. */
export async function answerPerson(
  desk: PersonDesk,
  raw: unknown,
  surface: Surface,
): Promise<PersonAnswer> {
  const parsed = PersonRequest.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      message: `not a request Ghostlight knows: ${parsed.error.issues[0].message}`,
    };
  }
  const request = parsed.data;
  try {
    const said = request.op === "state" ? "" : await carryOut(desk, request, surface);
    if (said) log("info", `the person, from ${surface}: ${describeRequest(request)}`);
    return { ok: true, state: personState(desk), said };
  } catch (error) {
    if (
      error instanceof NoSuchWorkspace || error instanceof NoSuchQuestion ||
      error instanceof NoSuchGrant || error instanceof NotSaved || error instanceof NotThisAnswer
    ) return { ok: false, message: error.message };
    throw error;
  }
}

/** A request in the log's words. */
function describeRequest(request: PersonRequest): string {
  switch (request.op) {
    case "answer":
      return `answer ${request.answer}${request.persist ? " (saved)" : ""} to question ` +
        `${request.question}`;
    case "revoke":
      return `revoke yes ${request.grant}`;
    case "state":
      return "state";
    default:
      return `${request.op}${request.workspace ? ` ${request.workspace}` : ""}`;
  }
}

async function carryOut(
  desk: PersonDesk,
  request: Exclude<PersonRequest, { op: "state" }>,
  surface: Surface,
): Promise<string> {
  const { person, questions } = desk;
  switch (request.op) {
    case "answer":
      if (request.persist) return await answerSaved(desk, request, surface);
      return questions.answer(request.question, request.answer, surface);
    case "revoke":
      return questions.revoke(request.grant, surface);
    case "hold":
    case "stop":
    case "take_over": {
      // Hold and stop answer the agent's open questions with no (decision 0360).
      const said = request.op === "hold"
        ? person.hold(request.workspace)
        : request.op === "stop"
        ? person.stop(request.workspace)
        : await person.takeOver(request.workspace);
      const denied = questions.denyOpen(request.workspace, `${surface}'s ${request.op}`);
      return denied === 0 ? said : `${said} ${denied} open question(s) answered no.`;
    }
  }
  return await carryOutControl(person, request);
}

/**
 * "Allow on this site for this agent", saved in the person's policy file (decision 0482): the
 * grant is written and in force before the call goes on, so the agent's later calls there are
 * the policy's, not the workspace's; nothing is remembered beside it. When it cannot be saved the
 * question stays open and the reason is said.
 */
async function answerSaved(
  desk: PersonDesk,
  request: Extract<PersonRequest, { op: "answer" }>,
  surface: Surface,
): Promise<string> {
  if (request.answer !== "site") {
    throw new NotSaved(
      "only 'allow on this site for this agent' can be saved in the policy ('allow N --persist')",
    );
  }
  const question = desk.questions.questions().find((open) => open.number === request.question);
  if (!question) throw new NoSuchQuestion(request.question);
  if (question.agent !== null) {
    throw new NotSaved("an agent host's own request is allowed once or denied, never saved");
  }
  const file = await desk.policy.saveGrant({
    principal: question.principal,
    host: question.host,
    capability: question.capability as Capability,
  });
  desk.questions.answer(request.question, "once", `${surface}, saved in the policy file`);
  return `Question ${question.number} allowed on ${question.host} for ${question.principal} ` +
    `(${question.capability}), saved in ${file} as a grant; remove it there to be asked again.`;
}

async function carryOutControl(
  person: PersonControls,
  request: Extract<PersonRequest, { workspace?: number }>,
): Promise<string> {
  switch (request.op) {
    case "hold":
      return person.hold(request.workspace);
    case "resume":
      return person.resume(request.workspace);
    case "stop":
      return person.stop(request.workspace);
    case "take_over":
      return await person.takeOver(request.workspace);
  }
}

/** One line: which policy is in force. */
function policySummary(machine: PolicyFileState, user: PolicyFileState): string {
  const describe = (state: PolicyFileState) =>
    state.inForce === "deny-all"
      ? `everything refused (${state.file} is broken)`
      : state.inForce === "nothing"
      ? null
      : `${state.file}${state.mode === "observe" ? " (observe mode)" : ""}`;
  const parts = [describe(machine), describe(user)].filter((part) => part !== null);
  return parts.length === 0
    ? "All open: no policy file (sacred sites are still refused)"
    : parts.join(", then ");
}

/** What is wrong with a policy file and what applies meanwhile, or null. */
function policyProblem(machine: PolicyFileState, user: PolicyFileState): string | null {
  const broken = [machine, user].filter((state) => state.error !== undefined);
  if (broken.length === 0) return null;
  return broken.map((state) =>
    `${state.error}; ${
      state.inForce === "deny-all"
        ? "everything is refused until it is fixed"
        : "the policy that was in force stays until it is fixed"
    }`
  ).join(" ");
}
