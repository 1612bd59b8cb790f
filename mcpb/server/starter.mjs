// How a Node entry (the MCPB bundle's server, the npm package's bin) starts Ghostlight from the
// app it carries: app/scripts/start.ts under a Deno, with flags naming only what start.ts touches;
// start.ts then starts the connector, the service or the installer with their own least privilege
// (decisions 0100, 0084). The entry relays its input into start.ts, so it holds the only writing
// end of start.ts's stdin: however the entry ends, start.ts reads the end of its input with its
// parent gone and ends the connector at once (issue 25). The entry itself ends as soon as the
// process that started it is gone (a client killing `npx`, which started this entry).
// deno-lint-ignore-file no-process-global
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const windows = process.platform === "win32";
export const exe = windows ? ".exe" : "";
export const dataHome = windows
  ? process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local")
  : process.env.XDG_DATA_HOME || join(homedir(), ".local", "share");

/** The instance's install prefix, as service/install/layout.ts places it. */
export function prefixOf(instance) {
  return join(dataHome, instance ? `ghostlight-${instance}` : "ghostlight");
}

/** How often the entry looks whether the process that started it is gone. */
const PARENT_POLL_MS = 100;

/** The arguments that run start.ts of `app` under `deno` with its own grants. */
export function starterArgs(app, deno, instance) {
  const entries = join(prefixOf(instance), "from-source");
  const uid = process.getuid?.();
  return [
    "run",
    "-q",
    "--no-prompt",
    "--config",
    join(app, "deno.json"),
    "--allow-env=HOME,XDG_DATA_HOME,XDG_RUNTIME_DIR,XDG_STATE_HOME,XDG_CONFIG_HOME," +
    "XDG_CACHE_HOME,TMPDIR,DENO_DIR,GHOSTLIGHT_INSTANCE",
    "--allow-sys=uid",
    // Its entry folder (writing an entry whole renames it into place), and the login runtime
    // folder, which it looks at when XDG_RUNTIME_DIR is not set.
    `--allow-read=${[entries, ...(uid === undefined ? [] : [`/run/user/${uid}`])].join(",")}`,
    `--allow-write=${entries}`,
    `--allow-run=${deno}`,
    join(app, "scripts", "start.ts"),
  ];
}

/**
 * Runs start.ts with `args` after its own, this entry's input relayed into it and its output
 * passed straight through, and exits with its code.
 */
export function runStarter(app, deno, instance, args) {
  const child = spawn(deno, [...starterArgs(app, deno, instance), ...args], {
    stdio: ["pipe", "inherit", "inherit"],
  });
  process.stdin.pipe(child.stdin);
  // A child that ended first closes the pipe; what the client still sends goes nowhere.
  child.stdin.on("error", () => {});
  child.on("error", (error) => {
    process.stderr.write(`Ghostlight: could not start ${deno}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  // The process that started this entry is gone (killed outright): end now. Exiting closes the
  // relay, and start.ts, seeing its input end with its parent gone, ends the connector at once.
  const starter = starterGone();
  setInterval(() => {
    if (starter()) process.exit(1);
  }, PARENT_POLL_MS).unref();
}

/** The parent of process `pid` and its command name, or null where it cannot be read. */
function processInfo(pid) {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      return { parent: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]), name };
    } catch {
      return null;
    }
  }
  if (windows) return null;
  const ps = spawnSync("ps", ["-o", "ppid=,comm=", "-p", String(pid)], { encoding: "utf8" });
  const match = /^\s*(\d+)\s+(.*?)\s*$/.exec(ps.stdout ?? "");
  return match ? { parent: Number(match[1]), name: match[2].replace(/^.*\//, "") } : null;
}

const SHELLS = ["sh", "dash", "bash", "zsh"];

/**
 * A test of whether whatever started this entry is gone. `npx` runs a package's bin through
 * `sh -c`, which waits for it rather than ending with `npx`: when the parent is a shell, the
 * process that started the shell counts too.
 */
function starterGone() {
  const parent = process.ppid;
  const info = processInfo(parent);
  const grandparent = info !== null && SHELLS.includes(info.name) && info.parent > 1
    ? info.parent
    : null;
  return () => {
    if (process.ppid !== parent) return true;
    if (grandparent === null) return false;
    if (process.platform === "linux") return processInfo(parent)?.parent !== grandparent;
    try {
      process.kill(grandparent, 0);
      return false;
    } catch (error) {
      return error.code === "ESRCH";
    }
  };
}
