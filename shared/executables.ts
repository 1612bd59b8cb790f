/**
 * How one Ghostlight executable starts another. A compiled install runs the sibling binaries;
 * a source checkout runs `deno run` with the same named permission set the compile step uses.
 *
 * @module
 */

/** The three executables. */
export type Executable = "service" | "mcp-connector" | "browser-connector";

const COMPILED_NAMES: Record<Executable, string> = {
  "service": "ghostlight",
  "mcp-connector": "ghostlight-mcp-connector",
  "browser-connector": "ghostlight-browser-connector",
};

const ENTRY_POINTS: Record<Executable, string> = {
  "service": "service/main.ts",
  "mcp-connector": "mcp_connector/main.ts",
  "browser-connector": "browser_connector/main.ts",
};

/** The folder that holds `deno.json` when running from source. */
export const SOURCE_ROOT: string = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** True when this process runs from a source checkout under `deno run`. */
export function runningFromSource(): boolean {
  const exe = Deno.execPath().split("/").pop() ?? "";
  return exe === "deno" || exe === "deno.exe";
}

/**
 * The command line that starts an executable under its permission set. The command is a bare
 * name (`deno` from source, `ghostlight` and its siblings when compiled) resolved on PATH,
 * because a permission set can only name programs that way: spawning the same program by an
 * absolute path that PATH does not lead to is refused.
 */
export function commandFor(executable: Executable): { command: string; args: string[] } {
  if (runningFromSource()) {
    return {
      command: "deno",
      args: [
        "run",
        "-q",
        `-P=${executable}`,
        "--config",
        `${SOURCE_ROOT}/deno.json`,
        `${SOURCE_ROOT}/${ENTRY_POINTS[executable]}`,
      ],
    };
  }
  return { command: COMPILED_NAMES[executable], args: [] };
}

/** The absolute path of a compiled executable installed beside this one. */
export function siblingPath(executable: Executable): string {
  const dir = Deno.execPath().replace(/\/[^/]*$/, "");
  return `${dir}/${COMPILED_NAMES[executable]}`;
}
