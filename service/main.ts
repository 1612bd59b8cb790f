/**
 * `ghostlight`: the persistent service and its command line. Owns the tool catalog,
 * workspaces, governance, audit, scheduling and browser routing; listens only on owner-only
 * Unix sockets.
 *
 * @module
 */

import { runCli } from "./cli/mod.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
