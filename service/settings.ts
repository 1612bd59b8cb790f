/**
 * The service's settings: every environment variable `ghostlight` reads, with its default,
 * bounds and meaning. `main.ts` reads them once at start-up; everything below receives them.
 *
 * @module
 */

import { z } from "zod";
import type { EnvReader } from "../shared/instance.ts";
import { durationMs, instanceSetting, readSettings } from "../shared/settings.ts";

/** The schema of the service's settings; the single source of their names and defaults. */
export const ServiceSettings = z.object({
  instance: instanceSetting(),
  idleExitMs: durationMs("GHOSTLIGHT_IDLE_EXIT_MS", {
    default: 30_000,
    description: "how long a demand-started service (`--exit-when-idle`) waits with no " +
      "connector, no browser and no work before it exits",
  }),
  queueDeadlineMs: durationMs("GHOSTLIGHT_QUEUE_DEADLINE_MS", {
    default: 30_000,
    description: "the longest a call waits in its workspace's queue before it ends " +
      "`not_dispatched` (nothing was done; safe to retry)",
  }),
  workspaceGraceMs: durationMs("GHOSTLIGHT_WORKSPACE_GRACE_MS", {
    default: 60_000,
    description: "how long the workspaces of a connection lost without releasing them wait " +
      "to be taken back before they are released",
  }),
  settlementMs: durationMs("GHOSTLIGHT_SETTLEMENT_MS", {
    default: 180_000,
    description: "how long a dispatched call may keep settling: then its signal is aborted and " +
      "it is reported `outcome_unknown`; its workspace's queue waits until its handler returns",
  }),
});
export type ServiceSettings = z.infer<typeof ServiceSettings>;

/** Reads the service's settings from `env` (the process environment, in `main.ts`). */
export function readServiceSettings(env: EnvReader): ServiceSettings {
  return readSettings(ServiceSettings, env);
}
