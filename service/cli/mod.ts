/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`, `version`.
 *
 * @module
 */

export { runCli } from "./run_cli.ts";
