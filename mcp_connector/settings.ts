/**
 * The MCP connector's settings: every environment variable `ghostlight-mcp-connector` reads,
 * with its default, bounds and meaning. `main.ts` reads them once at start-up and passes them
 * down.
 *
 * @module
 */

import { z } from "zod";
import type { EnvReader } from "../shared/instance.ts";
import { durationMs, instanceSetting, readSettings } from "../shared/settings.ts";

/** The schema of the connector's settings; the single source of their names and defaults. */
export const ConnectorSettings = z.object({
  instance: instanceSetting(),
  callDeadlineMs: durationMs("GHOSTLIGHT_CALL_DEADLINE_MS", {
    default: 60_000,
    description: "how long a caller waits for a tool call before it is answered " +
      "`outcome_unknown` once; the call keeps settling in the service. A wait for the " +
      "person's answer to a policy's `ask` is not counted (`GHOSTLIGHT_ASK_TIMEOUT_MS` bounds it)",
  }),
  progressIntervalMs: durationMs("GHOSTLIGHT_PROGRESS_INTERVAL_MS", {
    default: 5_000,
    description: "how often a call whose caller sent a progress token reports that it is " +
      "still running",
  }),
  clientStallMs: durationMs("GHOSTLIGHT_CLIENT_STALL_MS", {
    default: 60_000,
    description: "how long answers may wait unread by the client before the connector ends " +
      "the connection; until then a client that reads slowly only slows the reading of its " +
      "requests",
  }),
  remoteReconnectMs: durationMs("GHOSTLIGHT_REMOTE_RECONNECT_MS", {
    default: 500,
    description: "the remote shore's first wait before it dials a dropped tunnel again; each " +
      "wait doubles up to 60 times this (30 s by default) and is jittered into its upper half",
  }),
  remoteRequestMs: durationMs("GHOSTLIGHT_REMOTE_REQUEST_MS", {
    default: 180_000,
    description: "how long one request tunnelled over the `openab` binding may run before the " +
      "shore cancels it and answers the gateway with an error saying so (OpenAB's contract: the " +
      "gateway stops waiting at 180 s); for tests",
  }),
  remoteSetupMs: durationMs("GHOSTLIGHT_REMOTE_SETUP_MS", {
    default: 30_000,
    description: "how long setting an `openab` session up (ACP `initialize`, then `session/new` " +
      "or `session/resume`) may take before the shore closes the tunnel and dials again after " +
      "its back-off (OpenAB's contract: 30 s); for tests",
  }),
  restrictCapabilities: listSetting("GHOSTLIGHT_RESTRICT_CAPABILITIES", {
    description: "restricts every call of this connector to these capabilities (comma-separated: " +
      "`read`, `action`, `write`, `execute`), on top of the person's policy, which it can only " +
      "tighten; the way to restrict a `2025-11-25` client, which has no per-call `_meta` " +
      "restriction. A value the service cannot read refuses every call",
  }),
  restrictHosts: listSetting("GHOSTLIGHT_RESTRICT_HOSTS", {
    description: "restricts every call of this connector to pages on these hosts (comma-" +
      "separated: `example.com`, `*.example.com`, `*`), on top of the person's policy",
  }),
});
export type ConnectorSettings = z.infer<typeof ConnectorSettings>;

/**
 * A comma-separated list; unset or empty means none. The service checks the entries: one it
 * cannot read refuses the call, never passes it unrestricted.
 */
function listSetting(env: string, options: { description: string }) {
  return z.string().optional().transform((raw) => {
    const items = (raw ?? "").split(",").map((item) => item.trim()).filter((item) => item);
    return items.length === 0 ? undefined : items;
  }).meta({ env, description: options.description });
}

/** Reads the connector's settings from `env` (the process environment, in `main.ts`). */
export function readConnectorSettings(env: EnvReader): ConnectorSettings {
  return readSettings(ConnectorSettings, env);
}
