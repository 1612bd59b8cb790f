/**
 * The launchers install puts on PATH: one small script per executable that pins the instance and
 * PATH, then runs either the compiled executable or the installed sources under the executable's
 * own permission set. Clients, Chrome and the user all start Ghostlight through these, so every
 * entry point runs the same way whatever started it.
 *
 * @module
 */

import { type Executable, EXECUTABLES } from "../../shared/executables.ts";
import { joinPath, parentOf } from "./host.ts";
import type { Placed } from "./layout.ts";

/** The first line after the interpreter line: how uninstall recognises a launcher of ours. */
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

/** What a launcher starts: a program and its fixed arguments. */
export function launcherTarget(
  { host, layout }: Placed,
  { mode, executable }: LauncherOf,
): { program: string; args: string[] } {
  const row = EXECUTABLES[executable];
  if (mode.kind === "compiled") {
    const exe = host.platform === "windows" ? `${row.compiledName}.exe` : row.compiledName;
    return { program: joinPath(host, layout.libexecDir, exe), args: [] };
  }
  return {
    program: layout.runtime,
    args: [
      "run",
      "-q",
      `-P=${executable}`,
      "--config",
      joinPath(host, layout.appDir, "deno.json"),
      joinPath(host, layout.appDir, row.entryPoint),
    ],
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The launcher script of `executable`. The instance is pinned through `GHOSTLIGHT_INSTANCE` (the
 * connectors of the default instance unset it, so a stray variable cannot point a registered
 * server at another instance); PATH starts with the folder of the program the MCP connector
 * starts the service with (`ghostlight` compiled, `deno` from sources), which a permission set can
 * only name bare.
 */
export function launcherScript(placed: Placed, which: LauncherOf): string {
  const { host, layout } = placed;
  const { mode, executable } = which;
  const { program, args } = launcherTarget(placed, which);
  const pathDir = parentOf(program);
  const instance = layout.instance;
  const title = `Ghostlight ${EXECUTABLES[executable].compiledName}` +
    (instance === null ? "" : ` of instance ${instance}`);
  if (host.platform === "windows") {
    return [
      "@echo off",
      `rem ${title}. ${LAUNCHER_MARK}`,
      ...(instance !== null
        ? [`set "GHOSTLIGHT_INSTANCE=${instance}"`]
        : executable === "service"
        ? []
        : ['set "GHOSTLIGHT_INSTANCE="']),
      ...(mode.kind === "sources" ? [`set "DENO_DIR=${mode.denoDir}"`] : []),
      `set "PATH=${pathDir};%PATH%"`,
      `${[program, ...args].map((part) => `"${part}"`).join(" ")} %*`,
      "",
    ].join("\r\n");
  }
  return [
    "#!/bin/sh",
    `# ${title}. ${LAUNCHER_MARK}`,
    ...(instance !== null
      ? [`GHOSTLIGHT_INSTANCE=${shellQuote(instance)}; export GHOSTLIGHT_INSTANCE`]
      : executable === "service"
      ? []
      : ["unset GHOSTLIGHT_INSTANCE"]),
    ...(mode.kind === "sources" ? [`DENO_DIR=${shellQuote(mode.denoDir)}; export DENO_DIR`] : []),
    `PATH=${shellQuote(pathDir)}:"$PATH"; export PATH`,
    `exec ${[program, ...args].map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}
