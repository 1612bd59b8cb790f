/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`, `paths`, the person's
 * controls (`hold`, `resume`, `take-over`, `stop`), `audit`, `policy`, `version`.
 *
 * @module
 */

export { runCli } from "./run_cli.ts";
