/**
 * `ghostlight asks [--granted] [--revoke N] [--json]`, `ghostlight allow N [--site|--persist]`,
 * `ghostlight deny N`: the questions a policy's `ask` puts to the person, answered from a
 * terminal (decision 0360). The answer goes over the control socket with the control proof, so
 * it comes from the person's own account, never from an agent's page or its client.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { agentWords, type PersonState, targetWords } from "../../shared/person.ts";
import { noMore, takeFlag, takeOption, UsageError } from "./args.ts";
import { requestPerson, sendPersonRequest } from "./person_command.ts";
import { shown } from "./shown.ts";

/** `asks`: lists the open questions (or the remembered yeses), or revokes one yes. */
export async function runAsks(paths: InstancePaths, args: string[]): Promise<number> {
  const granted = takeFlag(args, "--granted");
  const json = takeFlag(args, "--json");
  const revoke = takeOption(args, "--revoke");
  noMore(args);
  if (revoke !== undefined) {
    return await sendPersonRequest(paths, { op: "revoke", grant: numberOf(revoke, "--revoke") });
  }
  const answer = await requestPerson(paths, { op: "state" });
  if (typeof answer === "number") return answer;
  if (!answer.ok) {
    console.error(`ghostlight: ${shown(answer.message)}`);
    return 1;
  }
  const state = answer.state;
  if (json) {
    console.log(JSON.stringify(granted ? state.granted : state.questions, null, 2));
    return 0;
  }
  for (const line of granted ? grantedLines(state) : questionLines(state)) console.log(shown(line));
  return 0;
}

/** `allow N [--site]` and `deny N`: answers question N. */
export async function runAnswer(
  paths: InstancePaths,
  command: "allow" | "deny",
  args: string[],
): Promise<number> {
  const site = command === "allow" && takeFlag(args, "--site");
  // Saved in the policy file: always "on this site for this agent" (decision 0482).
  const persist = command === "allow" && takeFlag(args, "--persist");
  const raw = args.shift();
  noMore(args);
  if (raw === undefined) {
    throw new UsageError(`${command} takes a question's number ('ghostlight asks' lists them)`);
  }
  const question = numberOf(raw, command);
  const answer = command === "deny" ? "deny" : site || persist ? "site" : "once";
  return await sendPersonRequest(
    paths,
    persist ? { op: "answer", question, answer, persist } : { op: "answer", question, answer },
  );
}

function numberOf(raw: string, what: string): number {
  const number = Number(raw);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`${what} takes a number from 'ghostlight asks'; got ${raw}`);
  }
  return number;
}

function questionLines(state: PersonState): string[] {
  if (state.questions.length === 0) return ["No question is waiting for you."];
  return [
    ...state.questions.flatMap((q) =>
      q.agent !== null
        ? [
          `${q.number}. ${q.principal}'s agent host (at ${q.host}) asks your permission for ${q.call}` +
          `. ${
            q.agent.canAllow ? "Allow it once or deny it" : "It offered no way to allow it: deny it"
          }; answered cancelled unanswered at ${q.expires}.`,
          // The agent's words on a line of their own, marked and quoted (decision 0530).
          `   What it wants, ${agentWords(q.agent)}.`,
        ]
        : [
          `${q.number}. ${q.principal} (workspace ${q.workspace}; its client says: ${q.client}) ` +
          `asks to ${q.capability} on ${q.host}: ${q.call}. Refused unanswered at ${q.expires}.`,
          // The page's words on a line of their own, marked and quoted (decision 0481).
          ...(q.target ? [`   It aims at ${targetWords(q.target)}.`] : []),
        ]
    ),
    "Answer with 'ghostlight allow N' (this call), 'ghostlight allow N --site' (this site for " +
    "this agent, until its workspace ends), 'ghostlight allow N --persist' (that, saved in your " +
    "policy file) or 'ghostlight deny N'.",
  ];
}

function grantedLines(state: PersonState): string[] {
  if (state.granted.length === 0) return ["No yes is remembered."];
  return [
    ...state.granted.map((g) =>
      `${g.number}. ${g.principal} (workspace ${g.workspace}) may ${g.capability} on ${g.host}` +
      ` (allowed from ${g.by} at ${g.at})`
    ),
    "Forget one with 'ghostlight asks --revoke N'; each goes with its agent's workspace.",
  ];
}
