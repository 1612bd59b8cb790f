/**
 * The control API: a few read-mostly routes on the owner-only control socket, served by Hono.
 * `ghostlight status` and `ghostlight browser launch` read it.
 *
 * @module
 */

import { Hono } from "hono";
import { z } from "zod";

/** What `GET /status` returns. */
export const Status = z.object({
  service: z.object({
    version: z.string(),
    instance: z.string().nullable(),
    pid: z.number(),
    startedAt: z.string(),
  }),
  browsers: z.array(z.object({
    slot: z.number(),
    extensionVersion: z.string(),
    userAgent: z.string(),
    launchToken: z.string().optional(),
    connectedAt: z.string(),
  })),
  connectors: z.array(z.object({
    client: z.string(),
    connectedAt: z.string(),
    activeWorks: z.number(),
  })),
  workspaces: z.number(),
  /** The plans agents stated with update_plan, newest state per workspace. */
  plans: z.array(z.object({
    client: z.string(),
    domains: z.array(z.string()),
    approach: z.array(z.string()),
    at: z.string(),
  })).optional(),
});
export type Status = z.infer<typeof Status>;

/** Builds the control app over a status source. */
export function controlApp(status: () => Status): Hono {
  const app = new Hono();
  app.get("/status", (c) => c.json(status()));
  app.notFound((c) => c.json({ error: "no such route; try GET /status" }, 404));
  return app;
}

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
