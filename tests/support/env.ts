/**
 * Test environments: a fresh instance name and a temporary HOME with XDG dirs, so a test never
 * touches a real user's state, plus the Deno cache and PATH the child processes need.
 *
 * @module
 */

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
  return {
    instance,
    home,
    env,
    dispose: () => Deno.remove(home, { recursive: true }).catch(() => {}),
  };
}

/** The command line that starts one of our executables under its own permission set. */
export function executable(
  name: "service" | "mcp-connector" | "browser-connector",
  args: string[],
): { command: string; args: string[] } {
  const entry = {
    "service": "service/main.ts",
    "mcp-connector": "mcp_connector/main.ts",
    "browser-connector": "browser_connector/main.ts",
  }[name];
  return {
    command: Deno.execPath(),
    args: ["run", "-q", `-P=${name}`, "--config", `${ROOT}/deno.json`, `${ROOT}/${entry}`, ...args],
  };
}
