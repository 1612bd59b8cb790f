/**
 * `deno task build`: compiles the three executables, the installer and doctor for Linux
 * x64/arm64, macOS x64/arm64 and Windows x64 into `dist/<target>/`, each with its own permission
 * set from deno.json, the service and the installer with the built extension inside.
 *
 * A compiled program carries the flags it was compiled with, and a permission set cannot name a
 * user's folders (decision 0100): these builds have the bare sets only, and reach no folder.
 * `install.ts` compiles its own for the user and instance it installs, passing a start plan to
 * {@linkcode compileSteps} (decision 0084).
 *
 * `deno compile` needs Deno's `denort` runtime for each target: it downloads it on a connected
 * machine (and keeps it in the Deno cache), or takes `DENORT_BIN`. `DENORT_BIN` is one binary for
 * one target, so with it only this machine's target is built (or the one `--target` names).
 * Where no runtime can be had the build stops with one sentence saying so.
 *
 * Usage: `deno run -A scripts/compile.ts [--target NAME|all] [--dry-run]`
 *
 * @module
 */

import {
  DOCTOR,
  type Executable,
  type ExecutableRow,
  EXECUTABLES,
  INSTALLER,
  SOURCE_ROOT as ROOT,
} from "../shared/executables.ts";
import {
  permissionFlags,
  type Start,
  type StartOptions,
  type StartPlan,
} from "../service/privilege/mod.ts";

/** The targets, by the name of their folder under `dist/`. */
export const TARGETS = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "macos-x64": "x86_64-apple-darwin",
  "macos-arm64": "aarch64-apple-darwin",
  "windows-x64": "x86_64-pc-windows-msvc",
} as const;
export type Target = keyof typeof TARGETS;

/** One compiled program: what it is built from, and the start its set and flags are for. */
interface Program {
  row: ExecutableRow;
  start: Start;
  options: StartOptions;
  /** Files compiled in beside its code: `browser launch` and `install` use the extension. */
  includes: string[];
}

const EXTENSION = [
  "extension/manifest.json",
  "extension/popup.html",
  "extension/panel.html",
  "extension/theme.css",
  "extension/dist",
];

/** The programs of a build, in order: the three executables, the installer, doctor. */
const PROGRAMS: Program[] = [
  ...(Object.keys(EXECUTABLES) as Executable[]).map((start) => ({
    row: EXECUTABLES[start],
    start,
    options: {},
    includes: start === "service" ? EXTENSION : [],
  })),
  { row: INSTALLER, start: "installer", options: {}, includes: EXTENSION },
  { row: DOCTOR, start: "installer", options: { doctor: true }, includes: [] },
];

/** One compile step. */
export interface CompileStep {
  target: Target;
  name: string;
  output: string;
  args: string[];
}

/** The folder a target's executables go to. */
export function targetDir(target: Target, outDir = `${ROOT}/dist`): string {
  return `${outDir}/${target}`;
}

/** This machine's target, when it is one of the five. */
export function hostTarget(): Target | null {
  const os = { linux: "linux", darwin: "macos", windows: "windows" }[Deno.build.os as string];
  const arch = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch];
  const name = `${os}-${arch}`;
  return name in TARGETS ? name as Target : null;
}

/**
 * The compile command for each program of `target`, from the executables table. With `plan`
 * (an install's, whose compiled folder is its prefix's), each carries its start's flags for that
 * user and instance after its set; without, only the bare set.
 */
export function compileSteps(
  target: Target,
  outDir = `${ROOT}/dist`,
  plan: StartPlan | null = null,
): CompileStep[] {
  return PROGRAMS.map(({ row, start, options, includes }) => {
    const { compiledName, entryPoint } = row;
    const name = target.startsWith("windows") ? `${compiledName}.exe` : compiledName;
    const output = `${targetDir(target, outDir)}/${name}`;
    return {
      target,
      name,
      output,
      args: [
        "compile",
        "-q",
        "--target",
        TARGETS[target],
        `-P=${start}`,
        "--config",
        `${ROOT}/deno.json`,
        ...(plan === null ? [] : permissionFlags(start, plan, options)),
        ...includes.flatMap((path) => ["--include", `${ROOT}/${path}`]),
        "--output",
        output,
        `${ROOT}/${entryPoint}`,
      ],
    };
  });
}

/**
 * The targets to build: `--target NAME` or `all`; by default all five, or only this machine's
 * when `DENORT_BIN` fixes the runtime (one runtime serves one target).
 */
export function chooseTargets(
  requested: string | undefined,
  denortBin: string | undefined,
): Target[] {
  if (requested === undefined && denortBin) {
    const own = hostTarget();
    if (own === null) throw new Error("DENORT_BIN is set, and this machine is none of the targets");
    return [own];
  }
  if (requested === undefined || requested === "all") {
    if (denortBin) {
      throw new Error("DENORT_BIN is one runtime for one target; name it with --target");
    }
    return Object.keys(TARGETS) as Target[];
  }
  if (!(requested in TARGETS)) {
    throw new Error(`--target takes all or one of ${Object.keys(TARGETS).join(", ")}`);
  }
  return [requested as Target];
}

/** True when a failed compile's output says the runtime could not be had. */
export function missingRuntime(stderr: string): boolean {
  return /Setting up base binary|denort|dl\.deno\.land/i.test(stderr);
}

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/**
 * Runs compile steps in order; null when all succeeded, else one sentence saying why not (no
 * runtime for the target, or the compiler's own output).
 */
export async function compile(steps: CompileStep[]): Promise<string | null> {
  for (const step of steps) {
    console.error(`compiling ${step.target}/${step.name}…`);
    const output = await new Deno.Command(Deno.execPath(), {
      args: step.args,
      stdout: "inherit",
      stderr: "piped",
    }).output();
    if (output.success) continue;
    const stderr = new TextDecoder().decode(output.stderr);
    if (missingRuntime(stderr)) {
      return `no Deno ${Deno.version.deno} runtime (denort) for ${step.target} can be had ` +
        `here, since it is not cached and cannot be downloaded; run the build on a connected ` +
        `machine, or set DENORT_BIN to that runtime and --target ${step.target}.`;
    }
    return `${stderr.trim()}\ncompiling ${step.target}/${step.name} failed.`;
  }
  return null;
}

if (import.meta.main) {
  const dryRun = Deno.args.includes("--dry-run");
  const denortBin = Deno.env.get("DENORT_BIN") || undefined;
  let targets: Target[];
  try {
    targets = chooseTargets(option(Deno.args, "--target"), denortBin);
  } catch (error) {
    console.error(`deno task build: ${(error as Error).message}.`);
    Deno.exit(2);
  }
  if (denortBin) {
    const info = await Deno.stat(denortBin).catch(() => null);
    if (!info?.isFile) {
      console.error(`deno task build stopped: DENORT_BIN names ${denortBin}, which is not a file.`);
      Deno.exit(1);
    }
    console.error(`Using DENORT_BIN=${denortBin} for ${targets.join(", ")}.`);
  }
  for (const target of targets) {
    const steps = compileSteps(target);
    if (dryRun) {
      for (const step of steps) console.log(["deno", ...step.args].join(" "));
      continue;
    }
    const failed = await compile(steps);
    if (failed !== null) {
      console.error(`deno task build stopped: ${failed}`);
      Deno.exit(1);
    }
  }
  if (!dryRun) console.error(`Built ${targets.join(", ")} in ${ROOT}/dist.`);
}
