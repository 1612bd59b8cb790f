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
  DOCTOR,
  type Executable,
  type ExecutableRow,
  EXECUTABLES,
  INSTALLER,
  REMOTE_SHORE,
  runningFromSource,
  SOURCE_ROOT,
} from "../../shared/executables.ts";
import {
  type EnvReader,
  type InstancePaths,
  loginRuntimeDir,
  resolveInstancePaths,
} from "../../shared/instance.ts";
import { remotesFile, tokenFile } from "../../shared/remotes.ts";
import { settingVariables } from "../../shared/settings.ts";
import { MACHINE_POLICY_FILE } from "../governance/mod.ts";
import { ServiceSettings } from "../settings.ts";

/**
 * What one start runs: one of the three executables, or the installer (the person's `install`,
 * `uninstall` and `doctor`, decision 0084), which no executable may start.
 */
export type Start = Executable | "installer" | "remote-shore";

/** The entry point and compiled name of a start (doctor's installer is compiled on its own). */
export function rowOf(start: Start, options: StartOptions = {}): ExecutableRow {
  if (start === "remote-shore") return REMOTE_SHORE;
  if (start !== "installer") return EXECUTABLES[start];
  return options.doctor ? DOCTOR : INSTALLER;
}

/**
 * The commands the installer runs; every other command is the service's. Besides install,
 * uninstall and doctor: `audit` and `policy`, which read (and `policy init` writes) files the
 * person names anywhere in their home, which the service's permissions do not reach.
 */
export const ADMIN_COMMANDS: readonly string[] = [
  "install",
  "uninstall",
  "doctor",
  "audit",
  "policy",
];

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
   * nothing else. The installer may run it too (doctor starts the service through it). Null
   * when nothing this plan starts needs it.
   */
  serviceEntry: string | null;
}

/** The variables instance paths (and, XDG_DATA_HOME, installs and entries) derive from. */
const PATH_VARIABLES = [
  "HOME",
  "XDG_DATA_HOME",
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

/** True when `path` is `dir` or inside it. */
function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/** The paths, without repeats and without those inside another of them. */
function outermost(paths: string[]): string[] {
  return paths.filter((path, index) =>
    paths.indexOf(path) === index && !paths.some((other) => other !== path && inside(path, other))
  );
}

/**
 * Refuses a service entry that an executable of the instance could rewrite: one inside a folder
 * the service may write (the folders could be configured to overlap the install's).
 */
function checkedServiceEntry(entry: string | null, paths: InstancePaths): string | null {
  if (entry === null) return null;
  for (const dir of [paths.runtimeDir, paths.stateDir, paths.configDir, paths.cacheDir]) {
    if (inside(entry, dir)) {
      throw new Error(
        `the service entry ${entry} would be inside ${dir}, which the service may write; ` +
          "point XDG_DATA_HOME and the other XDG folders at separate places",
      );
    }
  }
  return entry;
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
    serviceEntry: checkedServiceEntry(options.serviceEntry ?? null, paths),
  };
}

/** The plan for `instance` in this process's environment, from this process's install. */
export function currentStartPlan(
  instance: string | null,
  options: { serviceEntry?: string | null } = {},
): StartPlan {
  // A variable this process may not read (the service may not read XDG_DATA_HOME) is one
  // nothing it starts needs: it is left unpinned, and unset in the entries it writes.
  const readable = (key: string) =>
    Deno.permissions.querySync({ name: "env", variable: key }).state === "granted";
  return startPlan(instance, (key) => readable(key) ? Deno.env.get(key) : undefined, {
    install: currentInstall(),
    serviceEntry: options.serviceEntry,
    loginRuntimeDir: Deno.env.get("XDG_RUNTIME_DIR") ? null : loginRuntimeDir(),
  });
}

/**
 * The one program `browser launch` runs: the shell that runs Chromium's watcher (decision 0640),
 * by absolute path. Chromium itself is started by that shell, so no Deno grant names it.
 */
export const BROWSER_WATCHER_SHELL = "/bin/sh";

/** Extra grants one start needs beyond its executable's. */
export interface StartOptions {
  /** `ghostlight browser launch`: the service may also start Chromium's watcher. */
  browserLaunch?: boolean;
  /**
   * `ghostlight doctor`: the installer reaches the service's sockets and may start the service
   * entry, and writes nothing.
   */
  doctor?: boolean;
  /**
   * `ghostlight remote ...` (decision 0400): the command line may also read the person's home
   * (`--token-file`) and start the remote shore's program.
   */
  remoteCommand?: boolean;
  /** The remote shore for remote `name`: its one network grant is `host` (`host:port`). */
  remote?: { name: string; host: string };
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

function flag(name: string, values: string[]): string {
  return `--allow-${name}=${values.map(checkedPath).join(",")}`;
}

/**
 * The installer's flags. `install` and `uninstall` read and write the person's home (and the XDG
 * data and config folders where they lie elsewhere): they edit client configurations there and
 * write the launchers, the prefix, host manifests and auto-start; they read the program they
 * install; no socket, no network, no program. `doctor` reads the same places but writes none: it
 * reaches the bridge and control sockets (Deno asks for write access to a socket's path to
 * connect) and may run the service entry, to start the service for its check. Deno refuses to
 * write a file a process may run, so the two cannot be one grant.
 */
function installerFlags(plan: StartPlan, options: StartOptions): string[] {
  const p = plan.paths;
  const { HOME, XDG_DATA_HOME, XDG_CONFIG_HOME } = plan.env;
  const roots = outermost([HOME, XDG_DATA_HOME, XDG_CONFIG_HOME].filter((dir) => dir));
  const program = plan.install.kind === "source"
    ? [plan.install.root, plan.install.deno]
    : [plan.install.dir];
  const machine = parentOf(MACHINE_POLICY_FILE);
  const read = flag(
    "read",
    outermost([...roots, p.runtimeDir, p.stateDir, p.configDir, machine, ...program]),
  );
  // The instance's state folder too, where it lies outside them: the first launch's record
  // goes there for `status` to read (decision 0354).
  if (!options.doctor) return [read, flag("write", outermost([...roots, p.stateDir]))];
  const sockets = [p.bridgeSocket, p.controlSocket];
  return [
    read,
    flag("write", sockets),
    flag("net", sockets.map((socket) => `unix:${socket}`)),
    ...(plan.serviceEntry === null ? [] : [flag("run", [plan.serviceEntry])]),
  ];
}

/**
 * The run-time flags that give `start` exactly this instance's folders, files and sockets, on
 * top of its permission set. The service reads and writes its four folders and reads the
 * extension bundle; a connector reads its own role's key and the service's public key (no other
 * key: decision 0250) and reaches its one socket (Deno asks for read
 * and write access to a socket's path to connect to it); the MCP connector may run the service
 * entry and nothing else. The installer's are {@linkcode installerFlags}.
 */
export function permissionFlags(
  start: Start,
  plan: StartPlan,
  options: StartOptions = {},
): string[] {
  const p = plan.paths;
  switch (start) {
    case "installer":
      return installerFlags(plan, options);
    case "service": {
      const own = [p.runtimeDir, p.stateDir, p.configDir, p.cacheDir];
      const bundle = plan.install.kind === "source" ? [`${plan.install.root}/extension`] : [];
      // The machine-wide policy, which can only tighten the person's (read, never written).
      const machine = parentOf(MACHINE_POLICY_FILE);
      // `remote` reads a token file the person names in their home, and starts the shore.
      const home = options.remoteCommand && plan.env.HOME ? [plan.env.HOME] : [];
      return [
        flag("read", outermost([...own, ...bundle, machine, ...home])),
        flag("write", own),
        flag("net", [p.bridgeSocket, p.browserSocket, p.controlSocket].map((s) => `unix:${s}`)),
        ...(options.browserLaunch ? [flag("run", [BROWSER_WATCHER_SHELL])] : []),
        ...(options.remoteCommand ? [flag("run", [shoreProgram(plan)])] : []),
      ];
    }
    case "remote-shore": {
      const remote = requireRemote(options);
      return [
        flag("read", [
          p.keys.mcp,
          p.keys.servicePublic,
          p.bridgeSocket,
          remotesFile(p),
          tokenFile(p, remote.name),
        ]),
        flag("write", [p.bridgeSocket]),
        flag("net", [`unix:${p.bridgeSocket}`, remote.host]),
        ...(plan.serviceEntry === null ? [] : [flag("run", [plan.serviceEntry])]),
      ];
    }
    case "mcp-connector":
      return [
        flag("read", [p.keys.mcp, p.keys.servicePublic, p.bridgeSocket]),
        flag("write", [p.bridgeSocket]),
        flag("net", [`unix:${p.bridgeSocket}`]),
        flag("run", [requireServiceEntry(plan)]),
      ];
    case "browser-connector":
      return [
        flag("read", [p.keys.browser, p.keys.servicePublic, p.browserSocket]),
        flag("write", [p.browserSocket]),
        flag("net", [`unix:${p.browserSocket}`]),
      ];
  }
}

function requireRemote(options: StartOptions): { name: string; host: string } {
  if (options.remote === undefined) throw new Error("starting the remote shore needs its remote");
  return options.remote;
}

/** What `ghostlight remote start` may run: the shore's program, Deno from a source install. */
function shoreProgram(plan: StartPlan): string {
  return plan.install.kind === "source"
    ? plan.install.deno
    : `${plan.install.dir}/${REMOTE_SHORE.compiledName}`;
}

function requireServiceEntry(plan: StartPlan): string {
  if (plan.serviceEntry === null) {
    throw new Error("starting the MCP connector needs the service entry it may start");
  }
  return plan.serviceEntry;
}

/** Arguments after the entry point that the starter fixes: where the service entry is. */
function programArgs(start: Start, plan: StartPlan): string[] {
  if (start === "remote-shore" && plan.serviceEntry !== null) {
    return ["--service-entry", plan.serviceEntry];
  }
  return start === "mcp-connector" ? ["--service-entry", requireServiceEntry(plan)] : [];
}

/**
 * The command that starts `start`: from source `deno run` with its set, `--config` and the
 * flags of {@linkcode permissionFlags}; compiled, the binary itself (its flags were compiled in).
 * Arguments the caller appends come after the entry point, so they are the program's own and
 * can never widen its permissions.
 */
export function startCommand(
  start: Start,
  plan: StartPlan,
  options: StartOptions = {},
): { command: string; args: string[] } {
  const row = rowOf(start, options);
  if (plan.install.kind === "compiled") {
    return {
      command: `${plan.install.dir}/${row.compiledName}`,
      args: programArgs(start, plan),
    };
  }
  const { deno, root } = plan.install;
  return {
    command: deno,
    args: [
      "run",
      "-q",
      // A refusal is an error, never a question: in a terminal Deno would otherwise ask the
      // person to widen the set (a compiled executable never asks).
      "--no-prompt",
      `-P=${start}`,
      "--config",
      `${root}/deno.json`,
      ...permissionFlags(start, plan, options),
      `${root}/${row.entryPoint}`,
      ...programArgs(start, plan),
    ],
  };
}

/** The word `ghostlight`'s command line takes as its command, as `runCli` reads it. */
function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance") i++;
    else if (!args[i].startsWith("--instance=") && args[i] !== "-h" && args[i] !== "--help") {
      return args[i];
    }
  }
  return undefined;
}

/**
 * Which start a `ghostlight` command line needs: `install`, `uninstall` and `doctor` the
 * installer's; `browser launch` the service's with Chromium; every other command the service's.
 * The person's launcher ({@linkcode cliScript}) decides the same way in shell.
 */
export function cliStartOf(
  args: readonly string[],
): { start: "service" | "installer"; options: StartOptions } {
  const command = commandWord(args);
  if (command !== undefined && ADMIN_COMMANDS.includes(command)) {
    return { start: "installer", options: { doctor: command === "doctor" } };
  }
  if (command === "remote") return { start: "service", options: { remoteCommand: true } };
  return { start: "service", options: { browserLaunch: command === "browser" } };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The service's setting variables a demand start passes on (the instance is pinned instead). */
const SERVICE_PASSED_ON = settingVariables(ServiceSettings).filter((name) =>
  name !== "GHOSTLIGHT_INSTANCE"
);

/** Options of an entry script: extra grants, and a comment line that marks who wrote it. */
export interface ScriptOptions extends StartOptions {
  /** A line for the script's head (install's mark, so uninstall knows its own). */
  mark?: string;
}

function shellCommand(start: Start, plan: StartPlan, options: StartOptions = {}): string {
  const { command, args } = startCommand(start, plan, options);
  return [command, ...args].map(shellQuote).join(" ");
}

function scriptHead(plan: StartPlan, what: string, mark: string | undefined): string[] {
  const instance = plan.paths.instance;
  return [
    "#!/bin/sh",
    `# Starts ${what} for ` +
    (instance === null ? "the default instance" : `instance ${instance}`) +
    " with least privilege (decisions 0100, 0084).",
    ...(mark === undefined ? [] : [`# ${mark}`]),
  ];
}

/**
 * Lines that set the pinned paths and the instance and unset the path variables the plan did
 * not pin, so a started process resolves the very paths its flags name.
 */
function pinLines(plan: StartPlan): string[] {
  const instance = plan.paths.instance;
  const pins = [...Object.keys(plan.env), "GHOSTLIGHT_INSTANCE"].map((key) => {
    const value = key === "GHOSTLIGHT_INSTANCE" ? instance : plan.env[key];
    return value === null || value === undefined
      ? `unset ${key}`
      : `${key}=${shellQuote(value)}; export ${key}`;
  });
  const unset = PATH_VARIABLES.filter((key) => key !== "HOME" && plan.env[key] === undefined)
    .map((key) => `unset ${key}`);
  return [...pins, ...unset];
}

/**
 * A POSIX shell script that starts `start` for this plan's instance with `"$@"` as its program
 * arguments: what install puts on PATH, what a native-messaging manifest points at, and (for
 * the service) the fixed entry the MCP connector may run.
 *
 * The service's entry starts from an empty environment (`env -i`) holding only the pinned paths,
 * the instance and the service's own settings: the MCP connector that runs it must not be able
 * to hand it anything else (another `PATH`, `DENO_V8_FLAGS`, another `DENO_DIR`).
 */
export function entryScript(start: Start, plan: StartPlan, options: ScriptOptions = {}): string {
  const run = shellCommand(start, plan, options);
  const head = scriptHead(plan, rowOf(start, options).compiledName, options.mark);
  if (start === "service") {
    const instance = plan.paths.instance;
    const env = [
      ...Object.entries(plan.env).map(([key, value]) => shellQuote(`${key}=${value}`)),
      ...(instance === null ? [] : [shellQuote(`GHOSTLIGHT_INSTANCE=${instance}`)]),
      ...SERVICE_PASSED_ON.map((name) => `\${${name}+"${name}=$${name}"}`),
    ];
    return [...head, `exec /usr/bin/env -i ${env.join(" ")} ${run} "$@"`, ""].join("\n");
  }
  return [...head, ...pinLines(plan), `exec ${run} "$@"`, ""].join("\n");
}

/**
 * The person's `ghostlight` command: a POSIX shell script that reads the command word as
 * {@linkcode cliStartOf} does and starts `install`, `uninstall` and `doctor` as the installer,
 * `browser launch` as the service allowed to run Chromium, and every other command as the
 * service. It is not the service entry: no executable may run it (decision 0084).
 */
export function cliScript(plan: StartPlan, options: { mark?: string } = {}): string {
  const head = scriptHead(plan, "ghostlight's command line", options.mark);
  return [
    ...head,
    ...pinLines(plan),
    "# The command word, read as 'ghostlight' reads it: after --instance NAME and --help.",
    "command=",
    "skip=",
    "for arg do",
    '  if [ -n "$skip" ]; then skip=; continue; fi',
    '  case "$arg" in',
    "    --instance) skip=1 ;;",
    "    --instance=*|-h|--help) ;;",
    "    *) command=$arg; break ;;",
    "  esac",
    "done",
    'case "$command" in',
    "  doctor)",
    `    exec ${shellCommand("installer", plan, { doctor: true })} "$@" ;;`,
    `  ${ADMIN_COMMANDS.filter((command) => command !== "doctor").join("|")})`,
    `    exec ${shellCommand("installer", plan)} "$@" ;;`,
    "  browser)",
    `    exec ${shellCommand("service", plan, { browserLaunch: true })} "$@" ;;`,
    "  remote)",
    `    exec ${shellCommand("service", plan, { remoteCommand: true })} "$@" ;;`,
    "esac",
    `exec ${shellCommand("service", plan)} "$@"`,
    "",
  ].join("\n");
}

/** Writes an entry script whole (no process ever runs half of one), owner-only and executable. */
export async function writeEntryScript(path: string, script: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeTextFile(temporary, script, { mode: 0o700 });
  await Deno.chmod(temporary, 0o700);
  await Deno.rename(temporary, path);
}
