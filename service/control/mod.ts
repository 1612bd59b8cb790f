/**
 * The control API: a few read-mostly routes on the owner-only control socket, served by Hono.
 * `ghostlight status` and `ghostlight browser launch` read it.
 *
 * @module
 */

export { controlApp } from "./app.ts";
export { fetchProbe, fetchStatus } from "./client.ts";
export { Probe } from "./probe.ts";
export { Status } from "./status.ts";
