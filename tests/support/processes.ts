/**
 * Starting and waiting for Ghostlight processes in tests.
 *
 * @module
 */

import { cli, executable, type TestEnv } from "./env.ts";

/** Runs `ghostlight service` for the test's instance in the foreground, as its own process. */
export function startService(testEnv: TestEnv): Deno.ChildProcess {
  const { command, args } = executable(testEnv, "service", [
    "--instance",
    testEnv.instance,
    "service",
  ]);
  return new Deno.Command(command, {
    args,
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/**
 * Runs one `ghostlight` command for the test's instance, started as the person's launcher starts
 * it (install, uninstall and doctor as the installer), and collects its output.
 */
export async function ghostlight(
  testEnv: TestEnv,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { command, args: full } = cli(testEnv, ["--instance", testEnv.instance, ...args]);
  return await runCommand(testEnv, command, full);
}

/** Runs `command` to its end in the test's environment alone and collects its output. */
export async function runCommand(
  testEnv: TestEnv,
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/**
 * Whether process `pid` is still running: alive and not a zombie, since an orphan is reaped by
 * whatever init this machine has, or not at all.
 */
export async function isRunning(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

/**
 * The live descendants of process `root` whose command line matches `pattern`: how a test finds
 * a process Chromium started for it (the native host) without looking at anyone else's.
 */
export async function descendantsMatching(root: number, pattern: RegExp): Promise<number[]> {
  const parents = new Map<number, number>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    if (stat === "") continue;
    parents.set(Number(entry.name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
  }
  const below = (pid: number): boolean => {
    for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up)) {
      if (up === root) return true;
    }
    return false;
  };
  const found: number[] = [];
  for (const pid of parents.keys()) {
    if (!below(pid) || !(await isRunning(pid))) continue;
    const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
    if (pattern.test(cmdline.replaceAll("\0", " "))) found.push(pid);
  }
  return found;
}
