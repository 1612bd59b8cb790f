/**
 * The installer's body: compiles the three executables (each with its own permission set) into
 * a folder on PATH. Run from a checkout with `deno run -A install.ts [--dir DIR]`. Compiling
 * needs Deno's `denort` runtime, which `deno compile` downloads on a connected machine or takes
 * from `DENORT_BIN`.
 *
 * @module
 */

import { compileSteps } from "./scripts/compile.ts";

function targetDir(args: string[]): string {
  const index = args.indexOf("--dir");
  if (index >= 0) {
    const dir = args[index + 1];
    if (!dir) throw new Error("--dir needs a folder");
    return dir;
  }
  const home = Deno.env.get("HOME");
  if (!home) throw new Error("HOME is not set; pass --dir");
  return `${home}/.local/bin`;
}

if (import.meta.main) {
  try {
    const dir = targetDir(Deno.args);
    await Deno.mkdir(dir, { recursive: true });
    const bundle = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "build:extension"],
      cwd: new URL(".", import.meta.url).pathname,
    }).spawn().status;
    if (!bundle.success) throw new Error("bundling the extension failed");
    for (const step of compileSteps(dir)) {
      console.error(`installing ${step.name} into ${dir}…`);
      const status = await new Deno.Command(Deno.execPath(), { args: step.args }).spawn().status;
      if (!status.success) {
        throw new Error(
          `compiling ${step.name} failed; offline, set DENORT_BIN to Deno ${Deno.version.deno}'s denort`,
        );
      }
    }
    console.log(
      `Installed ghostlight, ghostlight-mcp-connector and ghostlight-browser-connector in ${dir}.`,
    );
    console.log("Try it in an isolated Chromium profile: ghostlight --instance try browser launch");
  } catch (error) {
    console.error(`install: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
