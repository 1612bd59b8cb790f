/**
 * The control API's client: `ghostlight status`, `browser launch` and the person's commands
 * (`hold`, `resume`, `stop`, `take-over`) ask a running service through its control socket.
 *
 * @module
 */

import { PersonAnswer, type PersonRequest } from "../../shared/person.ts";
import { Status } from "./status.ts";

/** Reads the status of a running service through its control socket. */
export async function fetchStatus(controlSocket: string): Promise<Status> {
  return Status.parse(await request(controlSocket, "GET", "/status"));
}

/** Asks a running service to carry out one of the person's requests. */
export async function askPerson(
  controlSocket: string,
  person: PersonRequest,
): Promise<PersonAnswer> {
  return PersonAnswer.parse(await request(controlSocket, "POST", "/person", person));
}

async function request(
  controlSocket: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<unknown> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: controlSocket } });
  try {
    const response = await fetch(`http://ghostlight${path}`, {
      client,
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    return await response.json();
  } finally {
    client.close();
  }
}
