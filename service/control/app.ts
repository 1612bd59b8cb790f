/**
 * The control API's routes, served by Hono on the owner-only control socket. Read-mostly: it
 * reports, and its one command to a browser (the probe) changes nothing there.
 *
 * @module
 */

import { Hono } from "hono";
import type { Probe } from "./probe.ts";
import type { Status } from "./status.ts";

/**
 * Builds the control app over a status source and a probe of the attached browsers (a command
 * each that changes nothing, answered by the extension).
 */
export function controlApp(status: () => Status, probe?: () => Promise<Probe>): Hono {
  const app = new Hono();
  app.get("/status", (c) => c.json(status()));
  if (probe) app.post("/probe", async (c) => c.json(await probe()));
  app.notFound((c) => c.json({ error: "no such route; try GET /status" }, 404));
  return app;
}
