/**
 * The three executables: what each is built from and installed as. How one is started with its
 * permission set and this instance's flags is `service/privilege` (decision 0100);
 * `scripts/compile.ts` builds from the same table.
 *
 * @module
 */

import { pathOfFileUrl } from "./file_url.ts";

/** The three executables. */
export type Executable = "service" | "mcp-connector" | "browser-connector";

/** What one executable is built from and installed as. */
export interface ExecutableRow {
  /** The binary's name on PATH once compiled. */
  compiledName: string;
  /** Its entry point, relative to {@linkcode SOURCE_ROOT}. */
  entryPoint: string;
}

/**
 * The three executables, in build order. Each one's permission set in `deno.json` bears its
 * key's name, from source (`deno run -P=<key>`) as compiled (`deno compile -P=<key>`).
 */
export const EXECUTABLES: Readonly<Record<Executable, ExecutableRow>> = {
  "service": { compiledName: "ghostlight", entryPoint: "service/main.ts" },
  "mcp-connector": {
    compiledName: "ghostlight-mcp-connector",
    entryPoint: "mcp_connector/main.ts",
  },
  "browser-connector": {
    compiledName: "ghostlight-browser-connector",
    entryPoint: "browser_connector/main.ts",
  },
};

/**
 * The person's admin commands (`install`, `uninstall`, `doctor`): the service's command line
 * under the `installer` permission set, from its own entry point, which runs nothing else. No
 * executable may start it; the person's `ghostlight` launcher dispatches those three commands to
 * it (decision 0084). Compiled, it goes beside the three executables but not on PATH.
 */
export const INSTALLER: ExecutableRow = {
  compiledName: "ghostlight-installer",
  entryPoint: "service/installer.ts",
};

/**
 * `doctor` compiled on its own: the installer's entry point with doctor's flags (it may start the
 * service entry and writes nothing), since Deno refuses a process write access to a file it may
 * run and a compiled binary carries one set of flags.
 */
export const DOCTOR: ExecutableRow = {
  compiledName: "ghostlight-doctor",
  entryPoint: "service/installer.ts",
};

/**
 * The remote shore (decision 0400): the MCP connector's code with another carrier, one outbound
 * WebSocket to an agent host, under the `remote-shore` permission set. `ghostlight remote start`
 * starts it with the remote's one host and port as its network grant.
 */
export const REMOTE_SHORE: ExecutableRow = {
  compiledName: "ghostlight-remote",
  entryPoint: "mcp_connector/remote_main.ts",
};

/** The folder that holds `deno.json` when running from source. */
export const SOURCE_ROOT: string = pathOfFileUrl(new URL("..", import.meta.url)).replace(/\/$/, "");

/** True when this process runs from a source checkout under `deno run`. */
export function runningFromSource(): boolean {
  const exe = Deno.execPath().split("/").pop() ?? "";
  return exe === "deno" || exe === "deno.exe";
}

/** The absolute path of a compiled executable installed beside this one. */
export function siblingPath(executable: Executable): string {
  const dir = Deno.execPath().replace(/\/[^/]*$/, "");
  return `${dir}/${EXECUTABLES[executable].compiledName}`;
}
