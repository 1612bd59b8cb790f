/**
 * `deno task ghostlight ...` and `deno task connector ...`: start one executable from this source
 * tree for the instance its arguments name, with its permission set plus that instance's
 * least-privilege flags (decision 0100), and wait for it. Before starting anything it writes the
 * instance's service entry (what the MCP connector may run to start the service) into
 * `$XDG_DATA_HOME/ghostlight[-NAME]/from-source/`, a folder no Ghostlight executable can write.
 *
 * Usage: `deno run -A scripts/start.ts <service|mcp-connector|browser-connector> [args...]`.
 *
 * @module
 */

import type { Executable } from "../shared/executables.ts";
import { parseInstance } from "../shared/instance.ts";
import {
  currentStartPlan,
  entryScript,
  startCommand,
  writeEntryScript,
} from "../service/privilege/mod.ts";

const EXECUTABLE_NAMES = ["service", "mcp-connector", "browser-connector"];

/** The instance named by `--instance NAME` / `--instance=NAME`, else GHOSTLIGHT_INSTANCE. */
function instanceOf(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance") return parseInstance(args[i + 1]);
    if (args[i].startsWith("--instance=")) return parseInstance(args[i].slice(11));
  }
  return parseInstance(Deno.env.get("GHOSTLIGHT_INSTANCE"));
}

/** Where this source tree keeps the instance's service entry. */
function entryDir(instance: string | null): string {
  const home = Deno.env.get("HOME");
  if (!home) throw new Error("HOME is not set");
  const data = Deno.env.get("XDG_DATA_HOME") || `${home}/.local/share`;
  return `${data}/ghostlight${instance === null ? "" : `-${instance}`}/from-source`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!EXECUTABLE_NAMES.includes(name)) {
    console.error(`usage: scripts/start.ts <${EXECUTABLE_NAMES.join("|")}> [args...]`);
    return 2;
  }
  const executable = name as Executable;
  const instance = instanceOf(args);
  const dir = entryDir(instance);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const plan = currentStartPlan(instance, { serviceEntry: `${dir}/ghostlight` });
  await writeEntryScript(plan.serviceEntry!, entryScript("service", plan));
  const launch = args.includes("browser") && args.includes("launch");
  const { command, args: start } = startCommand(executable, plan, { browserLaunch: launch });
  const child = new Deno.Command(command, {
    args: [...start, ...args],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (signal: Deno.Signal) => () => {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    Deno.addSignalListener(signal, forward(signal));
  }
  // A connector watches its parent to learn that its client died (decision 0014); here that
  // parent is this script, so it passes the news on.
  const parent = Deno.ppid;
  const watch = setInterval(() => {
    if (Deno.ppid !== parent) forward("SIGTERM")();
  }, 1_000);
  const status = await child.status;
  clearInterval(watch);
  return status.code;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`ghostlight: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
