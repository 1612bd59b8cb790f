/**
 * The one-line installer's body (`install.sh` fetches Deno and runs this from a checkout):
 * bundles the extension, compiles the three executables, the installer and doctor for this
 * machine and this user's instance (each with its flags, decision 0084) where a Deno runtime can
 * be had, and runs `ghostlight install` with them, or, where none can, with launchers that run
 * the same sources under the same permission sets and flags. On Windows it also writes the
 * registry keys, which neither the service nor the installer may (neither runs reg.exe).
 *
 * Usage: `deno run -A install.ts [--sources] [uninstall] [ghostlight install options]`
 *
 * @module
 */

import { type InstancePaths, instancePathsFromEnv } from "./shared/instance.ts";
import { SOURCE_ROOT } from "./shared/executables.ts";
import { type InstallerSupplies, runInstall, runUninstall } from "./service/cli/mod.ts";
import {
  currentHost,
  installedPlan,
  installLayout,
  regAddArgs,
  regDeleteArgs,
  type RegistryValue,
  type RegistryWriter,
} from "./service/install/mod.ts";
import { readServiceSettings } from "./service/settings.ts";
import { compile, compileSteps, hostTarget, targetDir } from "./scripts/compile.ts";

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

/**
 * Compiles this machine's programs for the instance into `into`, each with the flags of the
 * compiled install it becomes (its folders, secret, sockets, service entry); the folder they are
 * in, or null where no runtime can be had.
 */
async function compileHere(paths: InstancePaths, into: string): Promise<string | null> {
  const target = hostTarget();
  if (target === null) return null;
  console.error(
    `Compiling Ghostlight for ${target} (needs Deno's runtime; skipped if unavailable)…`,
  );
  const host = currentHost();
  const plan = installedPlan({ host, layout: installLayout(host, paths) }, { kind: "compiled" });
  const failed = await compile(compileSteps(target, into, plan));
  if (failed === null) return targetDir(target, into);
  console.error(failed);
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
  // The task is one `deno bundle ... --output FILE ENTRY` per script (the worker, the popup).
  for (const command of (config.tasks["build:extension"] as string).split(" && ")) {
    await bundleOne(command.split(" "));
  }
}

/** Runs one `deno bundle` of the task into a temporary file; replaces its output if it differs. */
async function bundleOne(task: string[]): Promise<void> {
  const output = task.indexOf("--output") + 1;
  const target = `${SOURCE_ROOT}/${task[output]}`;
  const fresh = `${target}.${crypto.randomUUID()}.tmp`;
  task[output] = fresh;
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
    // A release archive carries the extension built, without its sources; a checkout bundles it.
    if (await Deno.stat(`${SOURCE_ROOT}/extension/src`).catch(() => null)) await bundleExtension();
    // Compiled for this user: never left in dist/, where builds for everyone go.
    const work = await Deno.makeTempDir({ prefix: "ghostlight-compile-" });
    let code: number;
    try {
      const compiled = sourcesOnly || args.includes("--dry-run")
        ? null
        : await compileHere(paths, work);
      if (compiled) {
        supplies.payload = {
          kind: "compiled",
          binDir: compiled,
          extensionDir: `${SOURCE_ROOT}/extension`,
        };
      }
      code = await runInstall(paths, args, supplies);
    } finally {
      await Deno.remove(work, { recursive: true });
    }
    Deno.exit(code);
  } catch (error) {
    console.error(`install: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
