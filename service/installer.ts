/**
 * `ghostlight install`, `uninstall`, `doctor`, `audit` and `policy`: the service's command line
 * under the `installer` permission set, which may edit the person's client configurations, write
 * the launchers and the prefix, read files the person names (an audit copy, a policy to explain),
 * and start the service through its fixed entry. It runs those commands and nothing else; the person's `ghostlight` launcher sends them here, and no
 * executable may start it (decision 0084).
 *
 * @module
 */

import { runCli } from "./cli/mod.ts";
import { readServiceSettings } from "./settings.ts";

if (import.meta.main) {
  const settings = readServiceSettings((key) => Deno.env.get(key));
  Deno.exit(await runCli(Deno.args, settings, "installer"));
}
