/**
 * Least privilege at start-up: the exact command, run-time permission flags and entry script
 * that start each executable for one user's instance (decision 0100).
 *
 * @module
 */

export {
  currentInstall,
  currentStartPlan,
  entryScript,
  type Install,
  permissionFlags,
  startCommand,
  type StartOptions,
  type StartPlan,
  startPlan,
  writeEntryScript,
} from "./start_plan.ts";
