/**
 * The running service: binds the instance's sockets, admits connectors after the proof, serves
 * the control API, and (when demand-started) exits after a quiet period.
 *
 * @module
 */

import { BRIDGE_MAX_FRAME } from "../../shared/bridge.ts";
import { FROM_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { acceptAndProve } from "../../shared/handshake.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import { VERSION } from "../../shared/version.ts";
import { serveSession, type SessionInfo } from "../bridge/mod.ts";
import { BrowserError, BrowserHub } from "../browser/mod.ts";
import { Catalog } from "../catalog/mod.ts";
import { controlApp, type Probe, type Status } from "../control/mod.ts";
import { bindSockets, ensureOwnedDir, ensureSecret } from "../endpoint/mod.ts";
import { configureLog, log } from "../log/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { HANDLERS } from "../tools/mod.ts";
import { WorkspaceRegistry } from "../workspace/mod.ts";

/** How the service runs. */
export interface DaemonOptions {
  /** The service's settings, as `main` read them. */
  settings: ServiceSettings;
  /** Exit after `settings.idleExitMs` with no connector, no browser and no work (demand start). */
  exitWhenIdle: boolean;
  /** Echo the log to stderr as well as the log file. */
  logToStderr: boolean;
}

/** A running service. */
export interface Daemon {
  /** Resolves when the service has stopped. */
  finished: Promise<void>;
  /** Stops the service. */
  stop(): Promise<void>;
  browsers: BrowserHub;
}

/** Starts the service for an instance. Throws `AlreadyRunning` when one serves it already. */
export async function startDaemon(paths: InstancePaths, options: DaemonOptions): Promise<Daemon> {
  await ensureOwnedDir(paths.stateDir);
  configureLog({ file: paths.logFile, stderr: options.logToStderr });
  const secret = await ensureSecret(paths.secretFile);
  const listeners = await bindSockets(paths);
  const browsers = new BrowserHub();
  const workspaces = new WorkspaceRegistry();
  const catalog = new Catalog(new Set(Object.keys(HANDLERS)));
  const { settings } = options;
  /** One scheduler for the whole service: lanes are workspaces, whichever connector they use. */
  const scheduler = new Scheduler({
    ...DEFAULT_SCHEDULER_OPTIONS,
    queueDeadlineMs: settings.queueDeadlineMs,
  });
  const activity = { works: 0 };
  const sessions = new Set<SessionInfo>();
  const startedAt = new Date();
  const identity = { version: VERSION, instance: paths.instance, pid: Deno.pid };
  browsers.onEvents({
    tabRemoved: (link, native) => workspaces.forgetTab(link.compose(native)),
    tabCreated: (link, native, opener) => {
      if (opener === undefined) return;
      // An adopted popup is observed at once, so its first requests are in its buffers.
      if (workspaces.adoptTab(link.compose(opener), link.compose(native))) {
        link.observe(native).catch(() => {});
      }
    },
  });

  const status = (): Status => ({
    service: { ...identity, startedAt: startedAt.toISOString() },
    browsers: browsers.list().map((link) => ({
      slot: link.slot,
      extensionVersion: link.details.extensionVersion,
      userAgent: link.details.userAgent,
      ...(link.details.launchToken ? { launchToken: link.details.launchToken } : {}),
      connectedAt: link.connectedAt.toISOString(),
    })),
    connectors: [...sessions].map((session) => ({
      client: session.client,
      connectedAt: session.connectedAt.toISOString(),
      activeWorks: session.activeWorks,
    })),
    workspaces: workspaces.size,
    plans: workspaces.plans(),
  });

  const control = Deno.serve({
    path: listeners.control,
    onListen: () => {},
  }, controlApp(status, () => probeBrowsers(browsers)).fetch);
  await Deno.chmod(listeners.control, 0o600);

  let lastBusy = Date.now();
  /** Connections accepted and still in their hello: about to be a session or a browser. */
  let handshaking = 0;
  const busy = () =>
    handshaking > 0 || sessions.size > 0 || browsers.list().length > 0 || activity.works > 0;
  /** Accepts a connection's hello while counting it as activity, so idle exit waits for it. */
  const admit = async <H>(admitting: () => Promise<H>): Promise<H> => {
    handshaking++;
    try {
      return await admitting();
    } finally {
      handshaking--;
      lastBusy = Date.now();
    }
  };

  const acceptMcp = async () => {
    for await (const conn of listeners.bridge) {
      (async () => {
        const admitted = await admit(async () => {
          const opened = await acceptAndProve(conn, {
            expectedRole: "mcp",
            secret,
            service: identity,
            maxFrame: BRIDGE_MAX_FRAME,
          });
          if (!opened || stopping) return null;
          const client = opened.hello.client;
          const info: SessionInfo = {
            client: client ? `${client.name} ${client.version}` : "unknown client",
            connectedAt: new Date(),
            activeWorks: 0,
          };
          // Counted as a session before the hello stops counting, so busy() never dips between.
          sessions.add(info);
          return { opened, info };
        });
        if (!admitted) return closeQuietly(conn);
        const { opened, info } = admitted;
        try {
          await serveSession(opened.reader, opened.writer, info, {
            catalog,
            workspaces,
            browsers,
            activity,
            scheduler,
            settlementMs: settings.settlementMs,
            workspaceGraceMs: settings.workspaceGraceMs,
          });
        } finally {
          sessions.delete(info);
          lastBusy = Date.now();
          closeQuietly(conn);
        }
      })();
    }
  };

  const acceptBrowsers = async () => {
    for await (const conn of listeners.browser) {
      (async () => {
        const opened = await admit(() =>
          acceptAndProve(conn, {
            expectedRole: "browser",
            secret,
            service: identity,
            maxFrame: FROM_EXTENSION_MAX_FRAME,
          })
        );
        if (!opened || stopping) return closeQuietly(conn);
        try {
          await browsers.serve(opened.reader, opened.writer);
        } finally {
          lastBusy = Date.now();
          closeQuietly(conn);
        }
      })();
    }
  };

  let resolveFinished: () => void;
  const finished = new Promise<void>((resolve) => resolveFinished = resolve);
  let stopping = false;
  const stop = async () => {
    if (stopping) return await finished;
    stopping = true;
    clearInterval(idleTimer);
    listeners.bridge.close();
    listeners.browser.close();
    await control.shutdown().catch(() => {});
    for (const path of [paths.bridgeSocket, paths.browserSocket, paths.controlSocket]) {
      await Deno.remove(path).catch(() => {});
    }
    log("info", "service stopped");
    resolveFinished();
  };

  const idleTimer = setInterval(() => {
    if (busy()) lastBusy = Date.now();
    else if (options.exitWhenIdle && Date.now() - lastBusy > settings.idleExitMs) {
      // stop() closes the listeners before it awaits anything, so no connection can slip in
      // between this check and the close.
      log("info", `idle for ${settings.idleExitMs} ms; exiting`);
      stop();
    }
  }, 250);

  acceptMcp().catch(() => {});
  acceptBrowsers().catch(() => {});
  log("info", `service ${VERSION} listening in ${paths.runtimeDir} (pid ${Deno.pid})`);
  return { finished, stop, browsers };
}

/** How long the probe waits for each browser's answer. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Sends each attached browser one command that changes nothing (reading a tab id no browser
 * hands out, 0) and times the answer: "no such tab" is the expected one.
 */
async function probeBrowsers(browsers: BrowserHub): Promise<Probe> {
  const answers = browsers.list().map(async (link) => {
    const sent = performance.now();
    const row = { slot: link.slot, extensionVersion: link.details.extensionVersion };
    try {
      await link.call("tab.get", { tab_id: 0 }, { timeoutMs: PROBE_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof BrowserError && error.kind === "no_such_tab")) {
        return { ...row, ms: null, error: (error as Error).message };
      }
    }
    return { ...row, ms: Math.round(performance.now() - sent) };
  });
  return { browsers: await Promise.all(answers) };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
