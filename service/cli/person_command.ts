/**
 * `ghostlight hold | resume | stop | take-over [N]`: the person's controls from a terminal, the
 * same as the popup's buttons. Without N they apply to every agent.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import type { PersonAnswer, PersonRequest } from "../../shared/person.ts";
import { askPerson } from "../control/mod.ts";
import { controlKey, describeInstance } from "../endpoint/mod.ts";
import { shown } from "./shown.ts";
import { noMore, UsageError } from "./args.ts";

/** The command names and the request each sends. */
const OPS: Record<string, Extract<PersonRequest, { workspace?: number }>["op"]> = {
  hold: "hold",
  resume: "resume",
  stop: "stop",
  "take-over": "take_over",
};

/** Whether `command` is one of the person's controls. */
export function isPersonCommand(command: string): boolean {
  // Own names only: "constructor" is in every object.
  return Object.hasOwn(OPS, command);
}

/**
 * Runs one control: exit 0 when done, 1 when refused (an unknown workspace), 3 when no service
 * runs.
 */
export async function runPersonCommand(
  paths: InstancePaths,
  command: string,
  args: string[],
): Promise<number> {
  const raw = args.shift();
  noMore(args);
  const workspace = raw === undefined ? undefined : Number(raw);
  if (workspace !== undefined && !(Number.isInteger(workspace) && workspace > 0)) {
    throw new UsageError(
      `${command} takes a workspace number ('ghostlight status' lists them), or none for all`,
    );
  }
  const op = OPS[command];
  return await sendPersonRequest(paths, workspace === undefined ? { op } : { op, workspace });
}

/**
 * Sends one request and prints what the service said: exit 0 when done, 1 when refused, 3 when
 * no service runs.
 */
export async function sendPersonRequest(
  paths: InstancePaths,
  request: PersonRequest,
): Promise<number> {
  const answer = await requestPerson(paths, request);
  if (typeof answer === "number") return answer;
  if (!answer.ok) {
    console.error(`ghostlight: ${shown(answer.message)}`);
    return 1;
  }
  console.log(shown(answer.said));
  return 0;
}

/**
 * Sends one request to the service's person controls, proven with the control key: its answer,
 * or the exit code when there is none (1: the request cannot be proven; 3: no service runs).
 */
export async function requestPerson(
  paths: InstancePaths,
  request: PersonRequest,
): Promise<PersonAnswer | number> {
  let key;
  try {
    key = await controlKey(paths.keys);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw error;
    // Made at the service's first start: without it, no service has run here.
    if (!(error instanceof Deno.errors.NotFound)) {
      console.error(`ghostlight: cannot prove this request: ${(error as Error).message}`);
      return 1;
    }
  }
  try {
    if (key === undefined) throw new Deno.errors.NotFound("no service key");
    return await askPerson(paths.controlSocket, key, request);
  } catch (error) {
    // Out of this launcher's reach is not "not running": the command line says which it is.
    if (error instanceof Deno.errors.NotCapable) throw error;
    console.error(
      `ghostlight: the service for ${describeInstance(paths)} is not running; no agent can act`,
    );
    return 3;
  }
}
