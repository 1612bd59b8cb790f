/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`, `install`,
 * `uninstall`, `doctor`, `version`.
 *
 * @module
 */

export { runCli } from "./run_cli.ts";
