/**
 * The control API's routes, served by Hono on the owner-only control socket. Read-mostly: it
 * reports, it never drives the browser.
 *
 * @module
 */

import { Hono } from "hono";
import type { Status } from "./status.ts";

/** Builds the control app over a status source. */
export function controlApp(status: () => Status): Hono {
  const app = new Hono();
  app.get("/status", (c) => c.json(status()));
  app.notFound((c) => c.json({ error: "no such route; try GET /status" }, 404));
  return app;
}
