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
      "`outcome_unknown` once; the call keeps settling in the service",
  }),
  progressIntervalMs: durationMs("GHOSTLIGHT_PROGRESS_INTERVAL_MS", {
    default: 5_000,
    description: "how often a call whose caller sent a progress token reports that it is " +
      "still running",
  }),
});
export type ConnectorSettings = z.infer<typeof ConnectorSettings>;

/** Reads the connector's settings from `env` (the process environment, in `main.ts`). */
export function readConnectorSettings(env: EnvReader): ConnectorSettings {
  return readSettings(ConnectorSettings, env);
}
