/**
 * The scripts install writes to start Ghostlight, all built from `service/privilege` with one
 * start plan of the installed copy (decisions 0100, 0084):
 *
 * - `ghostlight[-NAME]` on PATH, the person's command: `install`, `uninstall` and `doctor` as
 *   the installer, `browser launch` as the service allowed to run Chromium, anything else as the
 *   service, each with its set and this instance's flags;
 * - `…-mcp-connector` and `…-browser-connector` on PATH, what clients and browsers start, each
 *   with its least privilege; the connector's names the service entry;
 * - the service entry in the prefix, the one file the MCP connector may run: the service, with a
 *   cleared environment, and nothing else.
 *
 * Each carries install's mark, so uninstall knows its own by shape.
 *
 * @module
 */

import { type Executable, EXECUTABLES } from "../../shared/executables.ts";
import {
  ADMIN_COMMANDS,
  cliScript,
  entryScript,
  rowOf,
  type Start,
  startCommand,
  type StartOptions,
  type StartPlan,
  startPlan,
} from "../privilege/mod.ts";
import type { Placed } from "./layout.ts";

/** The line in every file install writes to start something: how uninstall knows its own. */
export const LAUNCHER_MARK = "Written by 'ghostlight install'; 'ghostlight uninstall' removes it.";

/** What the launchers run. */
export type InstallMode =
  | { kind: "compiled" }
  | { kind: "sources"; denoDir: string };

/** Which launcher: what the install runs, and which executable. */
export interface LauncherOf {
  mode: InstallMode;
  executable: Executable;
}

/**
 * The start plan of the installed copy: its compiled folder, or its sources and Deno (with the
 * Deno cache pinned, so a client that starts Ghostlight with another environment still finds
 * the packages); the service entry in the prefix; the paths as this host resolves them.
 */
export function installedPlan({ host, layout }: Placed, mode: InstallMode): StartPlan {
  const install = mode.kind === "compiled"
    ? { kind: "compiled" as const, dir: layout.libexecDir }
    : { kind: "source" as const, deno: layout.runtime, root: layout.appDir };
  return startPlan(
    layout.instance,
    (key) => {
      if (key === "DENO_DIR" && mode.kind === "sources") return mode.denoDir;
      if (key === "HOME" && host.platform === "windows") {
        return host.env("HOME") || host.env("USERPROFILE");
      }
      return host.env(key);
    },
    { install, serviceEntry: layout.serviceEntry, loginRuntimeDir: host.loginRuntimeDir ?? null },
  );
}

/** The program a start runs: on Windows, a compiled executable is an .exe file. */
function programOf(
  placed: Placed,
  plan: StartPlan,
  start: Start,
  options: StartOptions = {},
): string {
  const { command } = startCommand(start, plan, options);
  return placed.host.platform === "windows" && plan.install.kind === "compiled"
    ? `${command.replaceAll("/", "\\")}.exe`
    : command;
}

/** The files a start runs, which must be there: the binary, or Deno and the entry point. */
function startFiles(
  placed: Placed,
  plan: StartPlan,
  start: Start,
  options: StartOptions = {},
): string[] {
  const program = programOf(placed, plan, start, options);
  if (plan.install.kind === "compiled") return [program];
  return [program, `${plan.install.root}/${rowOf(start, options).entryPoint}`];
}

/**
 * What a launcher runs, for doctor: every file its starts need (the person's `ghostlight` starts
 * the service and the installer; the MCP connector's also needs the service entry).
 */
export function launcherNeeds(placed: Placed, { mode, executable }: LauncherOf): string[] {
  const plan = installedPlan(placed, mode);
  switch (executable) {
    case "service":
      return [
        ...startFiles(placed, plan, "service"),
        ...startFiles(placed, plan, "installer"),
        ...startFiles(placed, plan, "installer", { doctor: true }),
      ];
    case "mcp-connector":
      return [...startFiles(placed, plan, "mcp-connector"), placed.layout.serviceEntry];
    case "browser-connector":
      return startFiles(placed, plan, "browser-connector");
  }
}

/** A Windows command file with the plan's variables pinned; `%*` passes the arguments on. */
function windowsScript(plan: StartPlan, title: string, body: string[]): string {
  const instance = plan.paths.instance;
  return [
    "@echo off",
    `rem ${title}. ${LAUNCHER_MARK}`,
    "setlocal",
    ...Object.entries(plan.env).map(([key, value]) => `set "${key}=${value}"`),
    `set "GHOSTLIGHT_INSTANCE=${instance ?? ""}"`,
    ...body,
    "",
  ].join("\r\n");
}

function windowsRun(
  placed: Placed,
  plan: StartPlan,
  start: Start,
  options: StartOptions = {},
): string {
  const { args } = startCommand(start, plan, options);
  const command = programOf(placed, plan, start, options);
  return `${[command, ...args].map((part) => `"${part}"`).join(" ")} %*`;
}

function windowsLauncher(placed: Placed, plan: StartPlan, executable: Executable): string {
  const title = `Ghostlight ${EXECUTABLES[executable].compiledName}` +
    (placed.layout.instance === null ? "" : ` of instance ${placed.layout.instance}`);
  if (executable !== "service") {
    return windowsScript(plan, title, [windowsRun(placed, plan, executable)]);
  }
  // The same routes as the POSIX launcher (cliScript): the admin commands as the installer,
  // doctor with its sockets, browser launch as the service allowed to run Chromium.
  return windowsScript(plan, title, [
    ...ADMIN_COMMANDS.filter((command) => command !== "doctor")
      .map((command) => `if /i "%~1"=="${command}" goto installer`),
    'if /i "%~1"=="doctor" goto doctor',
    'if /i "%~1"=="browser" goto browser',
    windowsRun(placed, plan, "service"),
    "exit /b %errorlevel%",
    ":installer",
    windowsRun(placed, plan, "installer"),
    "exit /b %errorlevel%",
    ":doctor",
    windowsRun(placed, plan, "installer", { doctor: true }),
    "exit /b %errorlevel%",
    ":browser",
    windowsRun(placed, plan, "service", { browserLaunch: true }),
  ]);
}

/** The launcher of `executable` that install puts on PATH. */
export function launcherScript(placed: Placed, { mode, executable }: LauncherOf): string {
  const plan = installedPlan(placed, mode);
  if (placed.host.platform === "windows") return windowsLauncher(placed, plan, executable);
  return executable === "service"
    ? cliScript(plan, { mark: LAUNCHER_MARK })
    : entryScript(executable, plan, { mark: LAUNCHER_MARK });
}

/** The service entry install writes into the prefix: the one program the MCP connector may run. */
export function serviceEntryScript(placed: Placed, mode: InstallMode): string {
  const plan = installedPlan(placed, mode);
  if (placed.host.platform === "windows") {
    return windowsScript(plan, "Ghostlight's service entry", [windowsRun(placed, plan, "service")]);
  }
  return entryScript("service", plan, { mark: LAUNCHER_MARK });
}
