/**
 * The service's settings: every environment variable `ghostlight` reads, with its default,
 * bounds and meaning. `main.ts` reads them once at start-up; everything below receives them.
 *
 * @module
 */

import { z } from "zod";
import type { EnvReader } from "../shared/instance.ts";
import { durationMs, instanceSetting, readSettings, wholeNumber } from "../shared/settings.ts";

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
      "to be taken back before they are released (after the call running in one has settled)",
  }),
  settlementMs: durationMs("GHOSTLIGHT_SETTLEMENT_MS", {
    default: 180_000,
    description: "how long a dispatched call may keep settling: then its signal is aborted and " +
      "it is reported `outcome_unknown`; its workspace's queue waits until its handler returns",
  }),
  attentionAfter: wholeNumber("GHOSTLIGHT_ATTENTION_DENIALS", {
    default: 5,
    min: 1,
    max: 1000,
    unit: "denials",
    description: "how many refused calls in a row open a workspace's attention circuit, which " +
      "holds that agent until the person resumes it (popup or `ghostlight resume`)",
  }),
  askTimeoutMs: durationMs("GHOSTLIGHT_ASK_TIMEOUT_MS", {
    default: 120_000,
    description: "the longest a call waits for the person's answer to a policy's `ask` before " +
      "it is refused as unanswered; the call's own end ends the wait sooner",
  }),
  policyReloadMs: durationMs("GHOSTLIGHT_POLICY_RELOAD_MS", {
    default: 1_000,
    description: "how often the service looks at the policy files for a change (a broken " +
      "change leaves the policy in force as it was), and at the remotes file for a changed pin",
  }),
  auditMaxBytes: wholeNumber("GHOSTLIGHT_AUDIT_MAX_BYTES", {
    default: 10 * 1024 * 1024,
    min: 4096,
    max: 1024 * 1024 * 1024,
    unit: "bytes",
    description: "the size at which the audit file is rotated (to `audit.jsonl.N`); the hash " +
      "chain carries on into the new file",
  }),
  auditKeepFiles: wholeNumber("GHOSTLIGHT_AUDIT_KEEP_FILES", {
    default: 10,
    min: 1,
    max: 10_000,
    unit: "files",
    description: "how many rotated audit files are kept beside the current one; the oldest " +
      "beyond it are removed",
  }),
});
export type ServiceSettings = z.infer<typeof ServiceSettings>;

/** Reads the service's settings from `env` (the process environment, in `main.ts`). */
export function readServiceSettings(env: EnvReader): ServiceSettings {
  return readSettings(ServiceSettings, env);
}
