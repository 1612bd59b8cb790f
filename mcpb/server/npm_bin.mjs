#!/usr/bin/env node
// The `ghostlight` npm package's bin: what `npx -y ghostlight` runs. With no command word (a
// client's entry: `{ "command": "npx", "args": ["-y", "ghostlight"] }`, `--principal NAME` and
// `--instance NAME` allowed) it starts the MCP connector; with one (`install`, `doctor`, `status`,
// ...) it runs the person's command line, install and doctor as the installer. Either way through
// the package's app/scripts/start.ts under the Deno of the pinned `deno` dependency, with the least
// privilege of each start (decisions 0100, 0084, 0353); starter.mjs relays the input and ends
// everything at once when the client kills the process it started.
// deno-lint-ignore-file no-process-global
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { exe, runStarter } from "./starter.mjs";

const app = join(dirname(fileURLToPath(import.meta.url)), "..", "app");
const require = createRequire(import.meta.url);

/** The Deno of the `deno` dependency: its postinstall put it beside its package.json. */
function dependencyDeno() {
  const path = join(dirname(require.resolve("deno/package.json")), `deno${exe}`);
  // Without its postinstall (--ignore-scripts) the deno package finds its platform's binary.
  return existsSync(path) ? path : require("deno/install_api.cjs").runInstall();
}

/** The command word, read as `ghostlight` reads it: after --instance NAME and --principal NAME. */
function commandWord(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance" || args[i] === "--principal") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return undefined;
}

const args = process.argv.slice(2);
let deno;
try {
  // Its real path: start.ts's run grant names the Deno it runs under by its real path.
  deno = realpathSync(dependencyDeno());
} catch (error) {
  process.stderr.write(`ghostlight: the deno dependency has no Deno binary: ${error.message}\n`);
  process.exit(1);
}
/** The instance `--instance NAME` / `--instance=NAME` names, else GHOSTLIGHT_INSTANCE's. */
function instanceOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance") return args[i + 1] ?? "";
    if (args[i].startsWith("--instance=")) return args[i].slice("--instance=".length);
  }
  return process.env.GHOSTLIGHT_INSTANCE ?? "";
}

const instance = instanceOf(args);
runStarter(app, deno, instance, [
  commandWord(args) === undefined ? "mcp-connector" : "service",
  ...args,
]);
