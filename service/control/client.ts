/**
 * The control API's readers: `ghostlight status`, `browser launch` and `doctor` ask a running
 * service through its control socket.
 *
 * @module
 */

import { Probe } from "./probe.ts";
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

/** Asks a running service to probe each attached browser; resolves with their answers. */
export async function fetchProbe(controlSocket: string): Promise<Probe> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: controlSocket } });
  try {
    const response = await fetch("http://ghostlight/probe", {
      method: "POST",
      client,
      signal: AbortSignal.timeout(15_000),
    });
    return Probe.parse(await response.json());
  } finally {
    client.close();
  }
}
