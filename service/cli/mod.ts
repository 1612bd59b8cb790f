/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`, `install`,
 * `uninstall`, `doctor`, `version`.
 *
 * @module
 */

export { type InstallerSupplies, runInstall, runUninstall } from "./install_command.ts";
export { type CliRole, runCli } from "./run_cli.ts";
