/**
 * `deno task ghostlight ...` and `deno task connector ...`: start one executable from this source
 * tree for the instance its arguments name, with its permission set plus that instance's
 * least-privilege flags (decision 0100), and wait for it. Before starting the service or a
 * connector it writes the instance's service entry (what the MCP connector may run to start the
 * service) into `$XDG_DATA_HOME/ghostlight[-NAME]/from-source/`, a folder no Ghostlight
 * executable can write.
 *
 * `ghostlight`'s command line goes where the installed `ghostlight` launcher sends it
 * (decision 0084): `install`, `uninstall` and `doctor` to the installer, with its set and flags
 * (doctor may start the installed service through the installed service entry); `browser
 * launch` to the service allowed to run Chromium; everything else to the service.
 *
 * The Claude Desktop bundle runs this file too, with flags naming what it touches.
 *
 * Usage: `deno run -A scripts/start.ts <service|mcp-connector|browser-connector> [args...]`.
 *
 * @module
 */

import type { Executable } from "../shared/executables.ts";
import { parseInstance } from "../shared/instance.ts";
import { parentExits } from "../shared/parent.ts";
import {
  cliStartOf,
  currentStartPlan,
  entryScript,
  type Start,
  startCommand,
  type StartOptions,
  type StartPlan,
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

/** What to start for `name` and its arguments, with which plan and extra grants. */
async function choose(
  executable: Executable,
  args: string[],
): Promise<{ start: Start; plan: StartPlan; options: StartOptions }> {
  const instance = instanceOf(args);
  const { start, options } = executable === "service"
    ? cliStartOf(args)
    : { start: executable, options: {} };
  if (start === "installer") {
    // Loaded only here: a connector's start needs none of the install code.
    const { currentHost, installLayout } = await import("../service/install/mod.ts");
    const layout = installLayout(currentHost(), currentStartPlan(instance).paths);
    return {
      start,
      plan: currentStartPlan(instance, { serviceEntry: layout.serviceEntry }),
      options,
    };
  }
  const dir = entryDir(instance);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const plan = currentStartPlan(instance, { serviceEntry: `${dir}/ghostlight` });
  await writeEntryScript(plan.serviceEntry!, entryScript("service", plan));
  return { start, plan, options };
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!EXECUTABLE_NAMES.includes(name)) {
    console.error(`usage: scripts/start.ts <${EXECUTABLE_NAMES.join("|")}> [args...]`);
    return 2;
  }
  const { start, plan, options } = await choose(name as Executable, args);
  const { command, args: fixed } = startCommand(start, plan, options);
  // A connector's input passes through this script, which holds the only writing end of the
  // connector's stdin: however this script ends (killed outright too), the connector reads the
  // end of its input at once, and its client's queued calls end with it (issue 25).
  const relay = name === "mcp-connector";
  const child = new Deno.Command(command, {
    args: [...fixed, ...args],
    // The started process resolves the very paths its flags name.
    env: plan.env,
    stdin: relay ? "piped" : "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // The client that started this script: when it dies, this script's input ends too, and the
  // connector must end at once rather than drain as after a clean close.
  const parent = Deno.ppid;
  if (relay) {
    Deno.stdin.readable.pipeTo(child.stdin).then(
      async () => {
        if (await parentExits(parent)) forward("SIGTERM")();
      },
      () => {},
    );
  }
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
