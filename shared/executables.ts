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
 * The command line that starts an executable. From source the command is the bare name `deno`,
 * resolved on PATH, because permission sets can only name programs that way.
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
  const dir = Deno.execPath().replace(/\/[^/]*$/, "");
  return { command: `${dir}/${COMPILED_NAMES[executable]}`, args: [] };
}
