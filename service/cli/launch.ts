/**
 * `ghostlight browser launch`: an isolated Chromium profile with the extension loaded and the
 * native host registered for this instance only, inside that profile. Runs until interrupted,
 * then closes Chromium and removes everything it created. Chromium ends with launch however
 * launch ends, SIGKILL included (decision 0640).
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import {
  EXTENSION_FILES,
  extensionIdFromKey,
  extensionSourceDir,
  nativeHostManifest,
  readManifest,
} from "../install/mod.ts";
import { overwriteRegularFileSync, readRegularText } from "../../shared/files.ts";
import { fetchStatus } from "../control/mod.ts";
import { type Daemon, startDaemon } from "../daemon/mod.ts";
import { ensureOwnedDir, socketAlive } from "../endpoint/mod.ts";
import {
  BROWSER_WATCHER_SHELL,
  currentStartPlan,
  entryScript,
  writeEntryScript,
} from "../privilege/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { z } from "zod";

/** How long launch waits for the extension to reach the service. */
const CONNECT_TIMEOUT_MS = 45_000;

/** How long Chromium has to end after SIGTERM before its watcher sends SIGKILL. */
const CHROMIUM_STOP_S = 5;

/** How many times the watcher tries to remove launch's folder once Chromium has ended. */
const FOLDER_TRIES = 3;

/**
 * How long launch waits for the watcher to name Chromium, and, stopping, for it to end: its
 * bound after SIGTERM and its tries at the folder, with time to spare.
 */
const WATCHER_STOP_MS = (CHROMIUM_STOP_S + FOLDER_TRIES + 2) * 1000;

/** The most bytes of the watcher's pid line. */
const MAX_PID_LINE = 16;

/** Options of `browser launch`. */
export interface LaunchOptions {
  headless: boolean;
  url: string | null;
  /** Pixels per CSS pixel, as on a HiDPI screen (Chromium's --force-device-scale-factor). */
  deviceScaleFactor?: number;
  /**
   * Opens this throwaway browser to DevTools on a loopback port, named in the ready line: for
   * tests that look at the extension's own pages (the popup). Never for a profile with
   * accounts in it.
   */
  remoteDebugging?: boolean;
  /**
   * Loads the extension built in this folder instead of this Ghostlight's own: an older build, to
   * see what version skew does. It must lie where the service may read (the instance's cache
   * folder).
   */
  extensionDir?: string;
}

/** The most bytes of the file Chromium writes with its DevTools port. */
const MAX_DEVTOOLS_PORT_BYTES = 4096;

const encoder = new TextEncoder();

/**
 * Writes a file of the throwaway profile whole, never through a link or into a FIFO left at its
 * name (decision 0339), owner-only.
 */
function writeProfileFile(path: string, text: string): void {
  overwriteRegularFileSync(path, encoder.encode(text), 0o600);
}

/**
 * Copies the built extension into `target` with its `config`, and returns its id. Exported for
 * its test.
 */
export async function prepareExtension(
  target: string,
  config: Record<string, string>,
  source: string | undefined,
): Promise<string> {
  const from = source ?? extensionSourceDir();
  await Deno.mkdir(`${target}/dist`, { recursive: true });
  for (const file of EXTENSION_FILES) {
    try {
      await Deno.copyFile(`${from}/${file}`, `${target}/${file}`);
    } catch (error) {
      throw new Error(
        source === undefined
          ? `the extension is not built (${from}/${file} is missing); run 'deno task build:extension'`
          : `cannot read ${from}/${file} (${(error as Error).message}); --extension takes a ` +
            "built extension inside the instance's cache folder ('ghostlight paths')",
      );
    }
  }
  writeProfileFile(`${target}/config.json`, JSON.stringify(config));
  const manifest = JSON.parse(await readManifest(from));
  return await extensionIdFromKey(manifest.key);
}

/**
 * Writes the executable the native-messaging manifest points at: the browser connector's entry
 * for this instance, with its least-privilege flags. It pins the variables the instance paths
 * derive from as this process sees them, whatever Chromium's own environment says (launch points
 * Chromium's XDG folders into its throwaway folder).
 */
async function writeHostWrapper(path: string, paths: InstancePaths): Promise<void> {
  await writeEntryScript(path, entryScript("browser-connector", currentStartPlan(paths.instance)));
}

/**
 * The watcher between `browser launch` and Chromium (decision 0640), run by `/bin/sh` with
 * Chromium's arguments. Its standard input is launch's lifeline: launch holds the only writing
 * end and never writes, so the pipe ends when launch does, however it ends (SIGKILL included),
 * or when it stops Chromium on purpose. A background job reads the lifeline to its end, then
 * sends Chromium SIGTERM, so it can write its profile and end its helpers, and SIGKILL if it is
 * still there `CHROMIUM_STOP_S` seconds later. The shell then prints Chromium's pid (only once
 * that job runs: a launch already gone would end the shell at that write), waits for Chromium,
 * removes launch's throwaway folder (its first argument; Chromium's helpers may write into it
 * for a moment after the browser ends, hence up to `FOLDER_TRIES` tries a second apart) and
 * exits with Chromium's status. The signals a terminal sends its whole group (INT, HUP) are
 * left to launch, which hears them too. A background job of a script starts with /dev/null as its
 * input, so the lifeline reaches its reader through fd 3.
 */
const WATCHER = `root=$1
shift
exec 3<&0
chromium "$@" </dev/null >/dev/null 3<&- &
browser=$!
trap '' INT HUP
{
  while read -r _; do :; done
  kill -TERM "$browser" 2>/dev/null
  waited=0
  while [ "$waited" -lt ${CHROMIUM_STOP_S} ] && kill -0 "$browser" 2>/dev/null; do
    sleep 1
    waited=$((waited + 1))
  done
  kill -KILL "$browser" 2>/dev/null
} <&3 3<&- &
lifeline=$!
exec 3<&-
echo "$browser"
exec >/dev/null
wait "$browser"
code=$?
kill "$lifeline" 2>/dev/null
tries=0
while [ -e "$root" ] && [ "$tries" -lt ${FOLDER_TRIES} ]; do
  rm -rf "$root" 2>/dev/null || sleep 1
  tries=$((tries + 1))
done
exit "$code"
`;

/** The exit status of a shell that found no program by the name: no Chromium on PATH. */
const NOT_FOUND = 127;

/** The pid line of the watcher. */
const PidLine = z.string().regex(/^[1-9][0-9]{0,9}\n/);

/** A Chromium that `browser launch` started, behind its watcher. */
interface Chromium {
  /** Chromium's own process id. */
  pid: number;
  /** Chromium's exit status, as its watcher passes it on. */
  exited: Promise<Deno.CommandStatus>;
  /** The last words of Chromium (and of its watcher) on stderr. */
  stderrTail: { text: string };
  /**
   * Ends the lifeline, so the watcher stops Chromium (SIGTERM, then SIGKILL after its bound),
   * and waits for it: bounded, since a watcher that does not end is killed.
   */
  stop(): Promise<void>;
}

/**
 * Starts Chromium, found on PATH by name, behind its watcher; `/bin/sh` is the only program
 * `browser launch` is allowed to run (decisions 0100, 0640).
 */
async function spawnChromium(
  root: string,
  args: string[],
  env: Record<string, string>,
): Promise<Chromium> {
  let watcher: Deno.ChildProcess;
  try {
    watcher = new Deno.Command(BROWSER_WATCHER_SHELL, {
      args: ["-c", WATCHER, "ghostlight-browser-watcher", root, ...args],
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      throw new Error(
        "this ghostlight may not start Chromium: run 'browser launch' through 'deno task " +
          "ghostlight', which allows it",
      );
    }
    throw new Error(
      `cannot run ${BROWSER_WATCHER_SHELL} to start Chromium: ${(error as Error).message}`,
    );
  }
  const stderrTail = { text: "" };
  keepTail(watcher.stderr, stderrTail).catch(() => {});
  const lifeline = watcher.stdin.getWriter();
  const exited = watcher.status;
  const stop = async () => {
    await lifeline.close().catch(() => {});
    const done = await Promise.race([
      exited.then(() => true),
      delay(WATCHER_STOP_MS).then(() => false),
    ]);
    if (!done) {
      try {
        watcher.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await exited;
    }
  };
  try {
    return { pid: await chromiumPid(watcher.stdout), exited, stderrTail, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Chromium's pid: the first line its watcher prints, bounded in bytes and in time. */
async function chromiumPid(stdout: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  let line = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), WATCHER_STOP_MS);
  });
  try {
    while (!line.includes("\n") && line.length <= MAX_PID_LINE) {
      const read = await Promise.race([reader.read(), late]);
      if (read === "late") throw new Error("Chromium's watcher did not name Chromium in time");
      if (read.done) break;
      line += decoder.decode(read.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
  const parsed = PidLine.safeParse(line);
  if (!parsed.success) {
    throw new Error(`Chromium's watcher said ${JSON.stringify(line.slice(0, 40))}, not a pid`);
  }
  return Number(parsed.data.trim());
}

/** Keeps the last bytes of a stream, for reporting why a browser died. */
async function keepTail(stream: ReadableStream<Uint8Array>, tail: { text: string }) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    tail.text = (tail.text + decoder.decode(chunk, { stream: true })).slice(-8192);
  }
}

/** Chromium's command line for a throwaway profile with the extension loaded. */
function chromiumArgs(profile: string, extensionDir: string, options: LaunchOptions): string[] {
  return [
    `--user-data-dir=${profile}`,
    `--load-extension=${extensionDir}`,
    `--disable-extensions-except=${extensionDir}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--window-size=1280,800",
    ...(options.headless ? ["--headless", "--disable-gpu"] : []),
    ...(options.deviceScaleFactor
      ? [`--force-device-scale-factor=${options.deviceScaleFactor}`]
      : []),
    ...(options.remoteDebugging ? ["--remote-debugging-port=0"] : []),
    ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
    options.url ?? "about:blank",
  ];
}

/**
 * Lays out the throwaway folder: the extension (configured for this instance and launch), the
 * native host wrapper, and a profile whose NativeMessagingHosts names that wrapper.
 */
async function prepareProfile(
  root: string,
  paths: InstancePaths,
  launch: { token: string; extensionDir?: string },
): Promise<{ extensionDir: string; extensionId: string; profile: string }> {
  const extensionDir = `${root}/extension`;
  const extensionId = await prepareExtension(extensionDir, {
    host: paths.nativeHostName,
    launch_token: launch.token,
  }, launch.extensionDir);
  const wrapper = `${root}/native-host.sh`;
  await writeHostWrapper(wrapper, paths);
  const profile = `${root}/profile`;
  await Deno.mkdir(`${profile}/NativeMessagingHosts`, { recursive: true });
  writeProfileFile(
    `${profile}/NativeMessagingHosts/${paths.nativeHostName}.json`,
    JSON.stringify(nativeHostManifest({ name: paths.nativeHostName, path: wrapper, extensionId })),
  );
  return { extensionDir, extensionId, profile };
}

/**
 * Waits (bounded) until the service lists the browser that carries `launchToken`; fails at once
 * with Chromium's last words if it exits first.
 */
async function attachedSlot(
  paths: InstancePaths,
  launchToken: string,
  browser: { exited: Promise<Deno.CommandStatus>; stderrTail: { text: string } },
): Promise<number> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  for (;;) {
    const early = await Promise.race([browser.exited, delay(200).then(() => null)]);
    if (early) {
      const said = browser.stderrTail.text.slice(-2000);
      if (early.code === NOT_FOUND) {
        throw new Error(
          "Chromium is not installed. Install it (Debian/Ubuntu: 'sudo apt-get install " +
            "chromium') and run this again.",
        );
      }
      const hint = /Missing X server|platform failed to initialize/.test(said)
        ? "\nThere is no display here for a window: run it again with --headless."
        : "";
      throw new Error(
        `Chromium exited (code ${early.code}) before the extension connected:\n${said}${hint}`,
      );
    }
    const status = await fetchStatus(paths.controlSocket).catch(() => null);
    const slot = status?.browsers.find((b) => b.launchToken === launchToken)?.slot;
    if (slot !== undefined) return slot;
    if (Date.now() > deadline) {
      throw new Error(
        `the extension did not connect to the service within ${CONNECT_TIMEOUT_MS / 1000} s; ` +
          `see ${paths.logFile}`,
      );
    }
  }
}

/** Resolves with the signal's name when the person stops `browser launch`. */
function interruption(): Promise<string> {
  return new Promise<string>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      Deno.addSignalListener(signal, () => resolve(signal));
    }
  });
}

/** Runs `browser launch` until interrupted. Prints one JSON line once the browser is attached. */
export async function launchBrowser(
  paths: InstancePaths,
  settings: ServiceSettings,
  options: LaunchOptions,
): Promise<void> {
  let daemon: Daemon | null = null;
  if (!(await socketAlive(paths.bridgeSocket))) {
    daemon = await startDaemon(paths, { settings, exitWhenIdle: false, logToStderr: false });
  }
  // Inside the instance's own cache folder: the only place besides its state this process may
  // write.
  await ensureOwnedDir(paths.cacheDir);
  const root = await Deno.makeTempDir({ dir: paths.cacheDir, prefix: "browser-" });
  let browser: Chromium | null = null;
  try {
    const launchToken = crypto.randomUUID();
    const { extensionDir, extensionId, profile } = await prepareProfile(root, paths, {
      token: launchToken,
      extensionDir: options.extensionDir,
    });
    // Chromium keeps crash reports and caches under XDG folders, outside --user-data-dir:
    // point them into the throwaway folder so launch leaves nothing behind.
    browser = await spawnChromium(root, chromiumArgs(profile, extensionDir, options), {
      XDG_CONFIG_HOME: `${root}/xdg-config`,
      XDG_CACHE_HOME: `${root}/xdg-cache`,
    });
    const { exited } = browser;
    const slot = await attachedSlot(paths, launchToken, browser);
    console.log(JSON.stringify({
      event: "browser_ready",
      instance: paths.instance,
      slot,
      extension_id: extensionId,
      user_data_dir: profile,
      pid: browser.pid,
      ...(options.remoteDebugging ? { devtools: await devtoolsEndpoint(profile) } : {}),
    }));
    const reason = await Promise.race([interruption(), exited.then(() => "browser exited")]);
    console.error(`ghostlight: stopping (${reason})`);
  } finally {
    if (browser) await browser.stop();
    // Once Chromium has ended its watcher removes the folder too; this is for one that could not.
    await removeTree(root);
    if (daemon) await daemon.stop();
  }
}

/** The browser's DevTools WebSocket, from the file Chromium writes once it listens. */
async function devtoolsEndpoint(profile: string): Promise<string> {
  const text = await readRegularText(`${profile}/DevToolsActivePort`, {
    maxBytes: MAX_DEVTOOLS_PORT_BYTES,
  });
  if (text === null) throw new Deno.errors.NotFound("Chromium has not written its DevTools port");
  const [port, path] = text.split("\n");
  return `ws://127.0.0.1:${port}${path}`;
}

/**
 * Removes a folder that Chromium's helper processes may still be writing into for a moment
 * after the browser process exits: retries for up to three seconds.
 */
async function removeTree(path: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      await Deno.remove(path, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      await delay(100);
    }
  }
  console.error(`ghostlight: could not remove ${path}; remove it by hand`);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
