/**
 * Least privilege at start-up: the exact command, run-time permission flags and entry script
 * that start each executable, and the installer, for one user's instance (decisions 0100, 0084).
 *
 * @module
 */

export {
  ADMIN_COMMANDS,
  BROWSER_WATCHER_SHELL,
  cliScript,
  cliStartOf,
  currentInstall,
  currentStartPlan,
  entryScript,
  type Install,
  permissionFlags,
  rowOf,
  type ScriptOptions,
  type Start,
  startCommand,
  type StartOptions,
  type StartPlan,
  startPlan,
  writeEntryScript,
} from "./start_plan.ts";
