/**
 * `ghostlight`: the persistent service and its command line. Owns the tool catalog,
 * workspaces, governance, audit, scheduling and browser routing; listens only on owner-only
 * Unix sockets.
 *
 * @module
 */

import { runCli } from "./cli/mod.ts";
import { readServiceSettings } from "./settings.ts";

if (import.meta.main) {
  // Read once, here; everything below receives them.
  const settings = readServiceSettings((key) => Deno.env.get(key));
  Deno.exit(await runCli(Deno.args, settings));
}
