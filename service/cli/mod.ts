/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`, `paths`, the person's
 * controls (`hold`, `resume`, `take-over`, `stop`), `audit`, `policy`, `install`, `uninstall`,
 * `doctor`, `version`.
 *
 * @module
 */

export { type InstallerSupplies, runInstall, runUninstall } from "./install_command.ts";
export { type CliRole, runCli } from "./run_cli.ts";
