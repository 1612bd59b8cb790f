/**
 * `deno task build`: compiles the three executables into `dist/`, each with its own permission
 * set from deno.json, the service with the built extension inside. `deno compile` needs the
 * `denort` runtime: it downloads it on a connected machine, or uses `DENORT_BIN` when set.
 * `--dry-run` prints the commands instead of running them.
 *
 * @module
 */

import { type Executable, EXECUTABLES, SOURCE_ROOT as ROOT } from "../shared/executables.ts";

/** Files compiled into an executable beside its code: `browser launch` loads the extension. */
const INCLUDES: Partial<Record<Executable, string[]>> = {
  "service": ["extension/manifest.json", "extension/popup.html", "extension/dist"],
};

/** One compile step. */
export interface CompileStep {
  name: string;
  args: string[];
}

/** The compile command for each executable, from the executables table. */
export function compileSteps(outDir = `${ROOT}/dist`): CompileStep[] {
  return (Object.keys(EXECUTABLES) as Executable[]).map((executable) => {
    const { compiledName, entryPoint } = EXECUTABLES[executable];
    return {
      name: compiledName,
      args: [
        "compile",
        "-q",
        `-P=${executable}`,
        "--config",
        `${ROOT}/deno.json`,
        ...(INCLUDES[executable] ?? []).flatMap((path) => ["--include", `${ROOT}/${path}`]),
        "--output",
        `${outDir}/${compiledName}`,
        `${ROOT}/${entryPoint}`,
      ],
    };
  });
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
