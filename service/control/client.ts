/**
 * The control API's one reader: `ghostlight status` and `ghostlight browser launch` ask a running
 * service through its control socket.
 *
 * @module
 */

import { Status } from "./status.ts";

/** Reads the status of a running service through its control socket. */
export async function fetchStatus(controlSocket: string): Promise<Status> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: controlSocket } });
  try {
    const response = await fetch("http://ghostlight/status", {
      client,
      signal: AbortSignal.timeout(5_000),
    });
    return Status.parse(await response.json());
  } finally {
    client.close();
  }
}
