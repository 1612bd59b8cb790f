/**
 * How one executable is started for one user's instance with least privilege. The permission
 * sets in `deno.json` cannot name a user's folders (paths there are relative to `deno.json`, and
 * `~`, `$HOME` are not expanded), so each set grants only what holds for everyone, and the
 * folders, files and sockets of this instance are added as run-time flags here, by whatever
 * starts the executable: the tests, `browser launch`'s native host, the dev tasks and install's
 * launchers. Decision 0100.
 *
 * @module
 */

import {
  type Executable,
  EXECUTABLES,
  runningFromSource,
  SOURCE_ROOT,
} from "../../shared/executables.ts";
import {
  type EnvReader,
  type InstancePaths,
  loginRuntimeDir,
  resolveInstancePaths,
} from "../../shared/instance.ts";
import { settingVariables } from "../../shared/settings.ts";
import { MACHINE_POLICY_FILE } from "../governance/mod.ts";
import { ServiceSettings } from "../settings.ts";

/** Where the executables come from. */
export type Install =
  /** A source tree run by one Deno binary (absolute paths both). */
  | { kind: "source"; deno: string; root: string }
  /** The `deno compile`d executables in one folder; their flags were given when compiling. */
  | { kind: "compiled"; dir: string };

/** Everything needed to start any executable of one instance. */
export interface StartPlan {
  paths: InstancePaths;
  /**
   * The variables the instance's paths were resolved from (and DENO_DIR, for a source install),
   * as this starter saw them: every entry pins them, so a started process resolves the same
   * paths its flags name.
   */
  env: Record<string, string>;
  install: Install;
  /**
   * The fixed entry the MCP connector starts the service with: a file none of the executables
   * can write (not in an instance folder), which runs the service with its set and flags and
   * nothing else. Null when nothing this plan starts needs it.
   */
  serviceEntry: string | null;
}

/** The variables instance paths derive from. */
const PATH_VARIABLES = [
  "HOME",
  "XDG_RUNTIME_DIR",
  "XDG_STATE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "TMPDIR",
] as const;

/** Deno's flags take comma-separated lists, so a path with a comma cannot be named. */
function checkedPath(path: string): string {
  if (path.includes(",")) {
    throw new Error(
      `${path} contains a comma, which Deno's permission flags cannot name; set HOME or the ` +
        "XDG_* folders to a path without one",
    );
  }
  return path;
}

/** The install this process runs from: its source tree and Deno, or its compiled folder. */
export function currentInstall(): Install {
  const exe = Deno.execPath();
  return runningFromSource()
    ? { kind: "source", deno: exe, root: SOURCE_ROOT }
    : { kind: "compiled", dir: exe.replace(/\/[^/]*$/, "") };
}

/**
 * The plan for `instance` as seen through `env`. `loginRuntimeDir` is `/run/user/<uid>` when the
 * starter found it usable; it is then pinned as XDG_RUNTIME_DIR, since the started process may
 * not look at `/run/user` itself.
 */
export function startPlan(
  instance: string | null,
  env: EnvReader,
  options: { install: Install; serviceEntry?: string | null; loginRuntimeDir?: string | null },
): StartPlan {
  const login = env("XDG_RUNTIME_DIR") ? null : options.loginRuntimeDir ?? null;
  const paths = resolveInstancePaths(instance, env, { loginRuntimeDir: login });
  const pinned: Record<string, string> = {};
  for (const key of PATH_VARIABLES) {
    const value = env(key);
    if (value) pinned[key] = checkedPath(value);
  }
  if (login) pinned.XDG_RUNTIME_DIR = checkedPath(login);
  const denoDir = env("DENO_DIR");
  if (options.install.kind === "source" && denoDir) pinned.DENO_DIR = denoDir;
  return {
    paths,
    env: pinned,
    install: options.install,
    serviceEntry: options.serviceEntry ?? null,
  };
}

/** The plan for `instance` in this process's environment, from this process's install. */
export function currentStartPlan(
  instance: string | null,
  options: { serviceEntry?: string | null } = {},
): StartPlan {
  return startPlan(instance, (key) => Deno.env.get(key), {
    install: currentInstall(),
    serviceEntry: options.serviceEntry,
    loginRuntimeDir: Deno.env.get("XDG_RUNTIME_DIR") ? null : loginRuntimeDir(),
  });
}

/** Extra grants one start needs beyond its executable's. */
export interface StartOptions {
  /** `ghostlight browser launch`: the service may also start `chromium`. */
  browserLaunch?: boolean;
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

function flag(name: string, values: string[]): string {
  return `--allow-${name}=${values.map(checkedPath).join(",")}`;
}

/**
 * The run-time flags that give `executable` exactly this instance's folders, files and sockets,
 * on top of its permission set. The service reads and writes its four folders and reads the
 * extension bundle and the machine-wide policy folder; a connector reads the secret and reaches its one socket (Deno asks for read
 * and write access to a socket's path to connect to it); the MCP connector may run the service
 * entry and nothing else.
 */
export function permissionFlags(
  executable: Executable,
  plan: StartPlan,
  options: StartOptions = {},
): string[] {
  const p = plan.paths;
  switch (executable) {
    case "service": {
      const own = [p.runtimeDir, p.stateDir, p.configDir, p.cacheDir];
      const bundle = plan.install.kind === "source" ? [`${plan.install.root}/extension`] : [];
      // The machine-wide policy, which can only tighten the person's (read, never written).
      const machine = parentOf(MACHINE_POLICY_FILE);
      return [
        flag("read", [...own, ...bundle, machine]),
        flag("write", own),
        flag("net", [p.bridgeSocket, p.browserSocket, p.controlSocket].map((s) => `unix:${s}`)),
        ...(options.browserLaunch ? ["--allow-run=chromium"] : []),
      ];
    }
    case "mcp-connector":
      return [
        flag("read", [p.secretFile, p.bridgeSocket]),
        flag("write", [p.bridgeSocket]),
        flag("net", [`unix:${p.bridgeSocket}`]),
        flag("run", [requireServiceEntry(plan)]),
      ];
    case "browser-connector":
      return [
        flag("read", [p.secretFile, p.browserSocket]),
        flag("write", [p.browserSocket]),
        flag("net", [`unix:${p.browserSocket}`]),
      ];
  }
}

function requireServiceEntry(plan: StartPlan): string {
  if (plan.serviceEntry === null) {
    throw new Error("starting the MCP connector needs the service entry it may start");
  }
  return plan.serviceEntry;
}

/** Arguments after the entry point that the starter fixes: where the service entry is. */
function programArgs(executable: Executable, plan: StartPlan): string[] {
  return executable === "mcp-connector" ? ["--service-entry", requireServiceEntry(plan)] : [];
}

/**
 * The command that starts `executable`: from source `deno run` with its set, `--config` and the
 * flags of {@linkcode permissionFlags}; compiled, the binary itself (its flags were compiled in).
 * Arguments the caller appends come after the entry point, so they are the program's own and
 * can never widen its permissions.
 */
export function startCommand(
  executable: Executable,
  plan: StartPlan,
  options: StartOptions = {},
): { command: string; args: string[] } {
  const row = EXECUTABLES[executable];
  if (plan.install.kind === "compiled") {
    return {
      command: `${plan.install.dir}/${row.compiledName}`,
      args: programArgs(executable, plan),
    };
  }
  const { deno, root } = plan.install;
  return {
    command: deno,
    args: [
      "run",
      "-q",
      `-P=${executable}`,
      "--config",
      `${root}/deno.json`,
      ...permissionFlags(executable, plan, options),
      `${root}/${row.entryPoint}`,
      ...programArgs(executable, plan),
    ],
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The service's setting variables a demand start passes on (the instance is pinned instead). */
const SERVICE_PASSED_ON = settingVariables(ServiceSettings).filter((name) =>
  name !== "GHOSTLIGHT_INSTANCE"
);

/**
 * A POSIX shell script that starts `executable` for this plan's instance with `"$@"` as its
 * program arguments: what install puts on PATH, what a native-messaging manifest points at, and
 * (for the service) the fixed entry the MCP connector may run.
 *
 * The service's entry starts from an empty environment (`env -i`) holding only the pinned paths,
 * the instance and the service's own settings: the MCP connector that runs it must not be able
 * to hand it anything else (another `PATH`, `DENO_V8_FLAGS`, another `DENO_DIR`).
 */
export function entryScript(
  executable: Executable,
  plan: StartPlan,
  options: StartOptions = {},
): string {
  const { command, args } = startCommand(executable, plan, options);
  const run = [command, ...args].map(shellQuote).join(" ");
  const instance = plan.paths.instance;
  const head = [
    "#!/bin/sh",
    `# Starts ${EXECUTABLES[executable].compiledName} for ` +
    (instance === null ? "the default instance" : `instance ${instance}`) +
    " with its least-privilege permissions (decision 0100).",
  ];
  if (executable === "service") {
    const env = [
      ...Object.entries(plan.env).map(([key, value]) => shellQuote(`${key}=${value}`)),
      ...(instance === null ? [] : [shellQuote(`GHOSTLIGHT_INSTANCE=${instance}`)]),
      ...SERVICE_PASSED_ON.map((name) => `\${${name}+"${name}=$${name}"}`),
    ];
    return [...head, `exec /usr/bin/env -i ${env.join(" ")} ${run} "$@"`, ""].join("\n");
  }
  const pins = [...Object.keys(plan.env), "GHOSTLIGHT_INSTANCE"].map((key) => {
    const value = key === "GHOSTLIGHT_INSTANCE" ? instance : plan.env[key];
    return value === null || value === undefined
      ? `unset ${key}`
      : `${key}=${shellQuote(value)}; export ${key}`;
  });
  const unset = ["XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "TMPDIR"]
    .filter((key) => plan.env[key] === undefined)
    .map((key) => `unset ${key}`);
  return [...head, ...pins, ...unset, `exec ${run} "$@"`, ""].join("\n");
}

/** Writes an entry script whole (no process ever runs half of one), owner-only and executable. */
export async function writeEntryScript(path: string, script: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeTextFile(temporary, script, { mode: 0o700 });
  await Deno.chmod(temporary, 0o700);
  await Deno.rename(temporary, path);
}
