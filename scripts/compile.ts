/**
 * `deno task build`: compiles the three executables into `dist/`, each with its own permission
 * set from deno.json, the service with the built extension inside. `deno compile` needs the
 * `denort` runtime: it downloads it on a connected machine, or uses `DENORT_BIN` when set.
 * `--dry-run` prints the commands instead of running them.
 *
 * @module
 */

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** One compile step. */
export interface CompileStep {
  name: string;
  args: string[];
}

/** The compile command for each executable. */
export function compileSteps(outDir = `${ROOT}/dist`): CompileStep[] {
  const step = (name: string, set: string, entry: string, include: string[] = []) => ({
    name,
    args: [
      "compile",
      "-q",
      `-P=${set}`,
      "--config",
      `${ROOT}/deno.json`,
      ...include.flatMap((path) => ["--include", `${ROOT}/${path}`]),
      "--output",
      `${outDir}/${name}`,
      `${ROOT}/${entry}`,
    ],
  });
  return [
    step("ghostlight", "service", "service/main.ts", ["extension/manifest.json", "extension/dist"]),
    step("ghostlight-mcp-connector", "mcp-connector", "mcp_connector/main.ts"),
    step("ghostlight-browser-connector", "browser-connector", "browser_connector/main.ts"),
  ];
}

if (import.meta.main) {
  const dryRun = Deno.args.includes("--dry-run");
  for (const { name, args } of compileSteps()) {
    if (dryRun) {
      console.log(["deno", ...args].join(" "));
      continue;
    }
    console.error(`compiling ${name}…`);
    const status = await new Deno.Command(Deno.execPath(), {
      args,
      stdout: "inherit",
      stderr: "inherit",
    })
      .spawn().status;
    if (!status.success) {
      console.error(
        `compiling ${name} failed. Without internet, set DENORT_BIN to a denort binary of ` +
          `Deno ${Deno.version.deno}.`,
      );
      Deno.exit(1);
    }
  }
}
