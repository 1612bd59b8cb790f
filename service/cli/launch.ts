/**
 * `ghostlight browser launch`: an isolated Chromium profile with the extension loaded and the
 * native host registered for this instance only, inside that profile. Runs until interrupted,
 * then closes Chromium and removes everything it created.
 *
 * @module
 */

import { decodeBase64 } from "../../shared/base64.ts";
import {
  commandFor,
  runningFromSource,
  siblingPath,
  SOURCE_ROOT,
} from "../../shared/executables.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import { nativeHostManifest } from "./native_host.ts";
import { fetchStatus } from "../control/mod.ts";
import { type Daemon, startDaemon } from "../daemon/mod.ts";
import { socketAlive } from "../endpoint/mod.ts";
import type { ServiceSettings } from "../settings.ts";

/** How long launch waits for the extension to reach the service. */
const CONNECT_TIMEOUT_MS = 45_000;
/** Files that make up the built extension. */
const EXTENSION_FILES = ["manifest.json", "popup.html", "dist/background.js", "dist/popup.js"];

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
}

/** The extension id Chrome derives from the manifest's public key. */
export async function extensionIdFromKey(keyBase64: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", decodeBase64(keyBase64) as Uint8Array<ArrayBuffer>),
  );
  return [...digest.slice(0, 16)]
    .map((byte) => String.fromCharCode(97 + (byte >> 4)) + String.fromCharCode(97 + (byte & 15)))
    .join("");
}

/** Where the built extension lives: the source tree, or the files compiled into the binary. */
function extensionSourceDir(): string {
  return runningFromSource()
    ? `${SOURCE_ROOT}/extension`
    : new URL("../../extension", import.meta.url).pathname;
}

async function prepareExtension(target: string, config: Record<string, string>): Promise<string> {
  const source = extensionSourceDir();
  await Deno.mkdir(`${target}/dist`, { recursive: true });
  for (const file of EXTENSION_FILES) {
    try {
      await Deno.copyFile(`${source}/${file}`, `${target}/${file}`);
    } catch {
      throw new Error(
        `the extension is not built (${source}/${file} is missing); run 'deno task build:extension'`,
      );
    }
  }
  await Deno.writeTextFile(`${target}/config.json`, JSON.stringify(config));
  const manifest = JSON.parse(await Deno.readTextFile(`${source}/manifest.json`));
  return await extensionIdFromKey(manifest.key);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Writes the executable the native-messaging manifest points at. */
async function writeHostWrapper(path: string, paths: InstancePaths): Promise<void> {
  // Chrome runs the host by absolute path: from source that is the deno on PATH, compiled it is
  // the browser connector installed beside this binary.
  const { command, args } = commandFor("browser-connector");
  const resolved = runningFromSource() ? await which(command) : siblingPath("browser-connector");
  // The host must resolve the same instance paths as this process, whatever Chromium's own
  // environment says (launch points Chromium's XDG folders into its throwaway folder): every
  // variable the paths depend on is set as here, or unset when it is unset here.
  const exports = [
    "HOME",
    "XDG_RUNTIME_DIR",
    "XDG_STATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "TMPDIR",
  ].map((key) => {
    const value = Deno.env.get(key);
    return value === undefined ? `unset ${key}` : `export ${key}=${shellQuote(value)}`;
  });
  const instance = paths.instance === null ? [] : ["--instance", paths.instance];
  const script = [
    "#!/bin/sh",
    "# Written by 'ghostlight browser launch'; removed when it stops.",
    ...exports,
    `exec ${[resolved, ...args, ...instance].map(shellQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
  await Deno.writeTextFile(path, script, { mode: 0o700 });
}

async function which(name: string): Promise<string> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      const info = await Deno.stat(`${dir}/${name}`);
      if (info.isFile && info.mode !== null && (info.mode & 0o111) !== 0) return `${dir}/${name}`;
    } catch {
      // Not in this directory.
    }
  }
  throw new Error(`'${name}' is not on PATH`);
}

/** Finds Chromium, or says how to install it. */
async function findChromium(): Promise<string> {
  try {
    return await which("chromium");
  } catch {
    throw new Error(
      "Chromium is not installed. Install it (Debian/Ubuntu: 'sudo apt-get install chromium') " +
        "and run this again.",
    );
  }
}

/** Keeps the last bytes of a stream, for reporting why a browser died. */
async function keepTail(stream: ReadableStream<Uint8Array>, tail: { text: string }) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    tail.text = (tail.text + decoder.decode(chunk, { stream: true })).slice(-8192);
  }
}

/** Runs `browser launch` until interrupted. Prints one JSON line once the browser is attached. */
export async function launchBrowser(
  paths: InstancePaths,
  settings: ServiceSettings,
  options: LaunchOptions,
): Promise<void> {
  const chromium = await findChromium();
  let daemon: Daemon | null = null;
  if (!(await socketAlive(paths.bridgeSocket))) {
    daemon = await startDaemon(paths, { settings, exitWhenIdle: false, logToStderr: false });
  }
  const root = await Deno.makeTempDir({ prefix: "ghostlight-browser-" });
  let browser: Deno.ChildProcess | null = null;
  const stderrTail = { text: "" };
  try {
    const launchToken = crypto.randomUUID();
    const extensionDir = `${root}/extension`;
    const extensionId = await prepareExtension(extensionDir, {
      host: paths.nativeHostName,
      launch_token: launchToken,
    });
    const wrapper = `${root}/native-host.sh`;
    await writeHostWrapper(wrapper, paths);
    const profile = `${root}/profile`;
    await Deno.mkdir(`${profile}/NativeMessagingHosts`, { recursive: true });
    await Deno.writeTextFile(
      `${profile}/NativeMessagingHosts/${paths.nativeHostName}.json`,
      JSON.stringify(
        nativeHostManifest({ name: paths.nativeHostName, path: wrapper, extensionId }),
      ),
    );
    const args = [
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
    browser = new Deno.Command(chromium, {
      args,
      // Chromium keeps crash reports and caches under XDG folders, outside --user-data-dir:
      // point them into the throwaway folder so launch leaves nothing behind.
      env: { XDG_CONFIG_HOME: `${root}/xdg-config`, XDG_CACHE_HOME: `${root}/xdg-cache` },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    keepTail(browser.stderr, stderrTail).catch(() => {});
    const exited = browser.status.then((status) => status);

    const deadline = Date.now() + CONNECT_TIMEOUT_MS;
    let slot: number | null = null;
    while (slot === null) {
      const early = await Promise.race([exited, delay(200).then(() => null)]);
      if (early) {
        throw new Error(
          `Chromium exited (code ${early.code}) before the extension connected:\n` +
            stderrTail.text.slice(-2000),
        );
      }
      const status = await fetchStatus(paths.controlSocket).catch(() => null);
      slot = status?.browsers.find((b) => b.launchToken === launchToken)?.slot ?? null;
      if (slot === null && Date.now() > deadline) {
        throw new Error(
          `the extension did not connect to the service within ${CONNECT_TIMEOUT_MS / 1000} s; ` +
            `see ${paths.logFile}`,
        );
      }
    }
    console.log(JSON.stringify({
      event: "browser_ready",
      instance: paths.instance,
      slot,
      extension_id: extensionId,
      user_data_dir: profile,
      pid: browser.pid,
      ...(options.remoteDebugging ? { devtools: await devtoolsEndpoint(profile) } : {}),
    }));

    const interrupted = new Promise<string>((resolve) => {
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
        Deno.addSignalListener(signal, () => resolve(signal));
      }
    });
    const reason = await Promise.race([interrupted, exited.then(() => "browser exited")]);
    console.error(`ghostlight: stopping (${reason})`);
  } finally {
    if (browser) await stopProcess(browser);
    await removeTree(root);
    if (daemon) await daemon.stop();
  }
}

/** The browser's DevTools WebSocket, from the file Chromium writes once it listens. */
async function devtoolsEndpoint(profile: string): Promise<string> {
  const text = await Deno.readTextFile(`${profile}/DevToolsActivePort`);
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

async function stopProcess(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    return;
  }
  const done = await Promise.race([child.status.then(() => true), delay(5_000).then(() => false)]);
  if (!done) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
  }
}
