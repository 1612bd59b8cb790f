/**
 * Test environments: a fresh instance name and a temporary HOME with XDG dirs, so a test never
 * touches a real user's state, plus the Deno cache and PATH the child processes need. Every
 * process a test starts runs as a person's would: its permission set plus this instance's
 * least-privilege flags (decision 0100).
 *
 * @module
 */

import {
  cliStartOf,
  entryScript,
  startCommand,
  type StartOptions,
  type StartPlan,
  startPlan,
  writeEntryScript,
} from "../../service/privilege/mod.ts";
import { installLayout } from "../../service/install/mod.ts";

/** The repository root. */
export const ROOT: string = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

let denoDir: string | null = null;

/** The Deno cache this test run uses, so children under a temporary HOME reuse it. */
export async function resolveDenoDir(): Promise<string> {
  if (denoDir) return denoDir;
  const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  denoDir = JSON.parse(new TextDecoder().decode(output.stdout)).denoDir as string;
  return denoDir;
}

/** An isolated place for one test to run Ghostlight. */
export interface TestEnv {
  instance: string;
  home: string;
  /** How this instance's executables are started (from this source tree, least privilege). */
  plan: StartPlan;
  /** The environment for every process the test starts. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** Makes a fresh instance under a temporary HOME. */
export async function makeTestEnv(prefix = "t"): Promise<TestEnv> {
  const home = await Deno.makeTempDir({ prefix: "ghostlight-test-" });
  const dirs = {
    XDG_RUNTIME_DIR: `${home}/run`,
    XDG_STATE_HOME: `${home}/state`,
    XDG_CONFIG_HOME: `${home}/config`,
    XDG_CACHE_HOME: `${home}/cache`,
  };
  for (const dir of Object.values(dirs)) await Deno.mkdir(dir, { mode: 0o700 });
  const denoBin = Deno.execPath().replace(/\/[^/]*$/, "");
  const env: Record<string, string> = {
    HOME: home,
    ...dirs,
    PATH: `${denoBin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    DENO_DIR: await resolveDenoDir(),
    NO_COLOR: "1",
  };
  const instance = `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
  return await withEnv({ instance, home }, env);
}

/**
 * The same instance and HOME seen through another environment (fewer XDG variables, say): its
 * start plan is resolved again, and its service entry rewritten to match.
 */
export async function withEnv(
  testEnv: Pick<TestEnv, "instance" | "home">,
  env: Record<string, string>,
): Promise<TestEnv> {
  const { instance, home } = testEnv;
  // The fixed entry the MCP connector may start the service with: outside every instance
  // folder, so no executable of this instance can rewrite it.
  await Deno.mkdir(`${home}/bin`, { recursive: true, mode: 0o700 });
  const plan = startPlan(instance, (key) => env[key], {
    install: { kind: "source", deno: Deno.execPath(), root: ROOT },
    serviceEntry: `${home}/bin/ghostlight`,
  });
  await writeEntryScript(plan.serviceEntry!, entryScript("service", plan));
  return {
    instance,
    home,
    plan,
    env,
    dispose: () => Deno.remove(home, { recursive: true }).catch(() => {}),
  };
}

/**
 * The command line that starts one of our executables for the test's instance, under its own
 * permission set and the instance's least-privilege flags; `args` are the program's own.
 */
export function executable(
  testEnv: TestEnv,
  name: "service" | "mcp-connector" | "browser-connector",
  args: string[],
  options: StartOptions = {},
): { command: string; args: string[] } {
  const { command, args: start } = startCommand(name, testEnv.plan, options);
  return { command, args: [...start, ...args] };
}

/**
 * The command line that runs `ghostlight` with `args` for the test's instance as the person's
 * launcher would (decision 0084): `install`, `uninstall` and `doctor` as the installer, which
 * may start the instance's installed service entry; `browser launch` as the service allowed to
 * run Chromium; everything else as the service.
 */
export function cli(testEnv: TestEnv, args: string[]): { command: string; args: string[] } {
  const { start, options } = cliStartOf(args);
  if (start === "service") return executable(testEnv, "service", args, options);
  const env = (key: string) => testEnv.env[key];
  const layout = installLayout({ platform: "linux", env }, testEnv.plan.paths);
  const plan = startPlan(testEnv.instance, env, {
    install: testEnv.plan.install,
    serviceEntry: layout.serviceEntry,
  });
  const { command, args: fixed } = startCommand("installer", plan, options);
  return { command, args: [...fixed, ...args] };
}
