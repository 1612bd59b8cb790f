/**
 * The one-line installer's body (`install.sh` fetches Deno and runs this from a checkout):
 * bundles the extension, compiles the three executables for this machine where a Deno runtime
 * can be had, and runs `ghostlight install` with them, or, where none can, with launchers that
 * run the same sources under the same permission sets. On Windows it also writes the registry
 * keys, which the service itself may not (its permission set runs nothing but Chromium).
 *
 * Usage: `deno run -A install.ts [--sources] [uninstall] [ghostlight install options]`
 *
 * @module
 */

import { instancePathsFromEnv } from "./shared/instance.ts";
import { SOURCE_ROOT } from "./shared/executables.ts";
import { type InstallerSupplies, runInstall, runUninstall } from "./service/cli/mod.ts";
import {
  regAddArgs,
  regDeleteArgs,
  type RegistryValue,
  type RegistryWriter,
} from "./service/install/mod.ts";
import { readServiceSettings } from "./service/settings.ts";
import { hostTarget, targetDir } from "./scripts/compile.ts";

/** Runs a program in the checkout, its output shown; true when it succeeded. */
async function run(args: string[], quiet = false): Promise<boolean> {
  const status = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: SOURCE_ROOT,
    stdout: quiet ? "null" : "inherit",
    stderr: quiet ? "null" : "inherit",
  }).spawn().status;
  return status.success;
}

/** Writes registry values with reg.exe. */
const regExe: RegistryWriter = {
  async set(value: RegistryValue) {
    await reg(regAddArgs(value));
  },
  async remove(value: RegistryValue) {
    await reg(regDeleteArgs(value));
  },
};

async function reg(args: string[]): Promise<void> {
  const output = await new Deno.Command("reg.exe", { args, stdout: "null" }).output();
  if (!output.success) {
    throw new Error(`reg.exe ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/** Compiles this machine's executables; the folder they are in, or null where none can be had. */
async function compileHere(): Promise<string | null> {
  const target = hostTarget();
  if (target === null) return null;
  console.error(
    `Compiling Ghostlight for ${target} (needs Deno's runtime; skipped if unavailable)…`,
  );
  if (await run(["run", "-A", "scripts/compile.ts", "--target", target])) return targetDir(target);
  console.error("Installing launchers that run the sources with Deno instead.");
  return null;
}

/**
 * Bundles the extension as `deno task build:extension` does, into a temporary file that replaces
 * the built one only when it differs: a checkout whose extension is current is not rewritten
 * under a browser or a test that is reading it.
 */
async function bundleExtension(): Promise<void> {
  const config = JSON.parse(await Deno.readTextFile(`${SOURCE_ROOT}/deno.json`));
  const target = `${SOURCE_ROOT}/extension/dist/background.js`;
  const fresh = `${target}.${crypto.randomUUID()}.tmp`;
  const task = (config.tasks["build:extension"] as string).split(" ");
  task[task.indexOf("--output") + 1] = fresh;
  try {
    if (!(await run(task.slice(1)))) {
      throw new Error("bundling the extension failed (it needs esbuild from the npm registry)");
    }
    const [before, after] = await Promise.all([
      Deno.readFile(target).catch(() => null),
      Deno.readFile(fresh),
    ]);
    if (
      before !== null && before.length === after.length && before.every((b, i) => b === after[i])
    ) {
      return;
    }
    await Deno.rename(fresh, target);
  } finally {
    await Deno.remove(fresh).catch(() => {});
  }
}

function takeOption(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  return args.splice(index, 2)[1];
}

if (import.meta.main) {
  const args = [...Deno.args];
  const removing = args[0] === "uninstall";
  if (removing) args.shift();
  const sourcesOnly = args.includes("--sources");
  if (sourcesOnly) args.splice(args.indexOf("--sources"), 1);
  try {
    const settings = readServiceSettings((key) => Deno.env.get(key));
    const paths = instancePathsFromEnv(takeOption(args, "--instance") ?? settings.instance);
    const supplies: InstallerSupplies = Deno.build.os === "windows" ? { registry: regExe } : {};
    if (removing) Deno.exit(await runUninstall(paths, args, supplies));
    await bundleExtension();
    const compiled = sourcesOnly || args.includes("--dry-run") ? null : await compileHere();
    if (compiled) {
      supplies.payload = {
        kind: "compiled",
        binDir: compiled,
        extensionDir: `${SOURCE_ROOT}/extension`,
      };
    }
    Deno.exit(await runInstall(paths, args, supplies));
  } catch (error) {
    console.error(`install: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
