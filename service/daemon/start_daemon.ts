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
import { serveSession, type SessionDeps, type SessionInfo, WorkIds } from "../bridge/mod.ts";
import { BrowserHub } from "../browser/mod.ts";
import { Catalog } from "../catalog/mod.ts";
import { controlApp, type Status } from "../control/mod.ts";
import { bindSockets, ensureOwnedDir, ensureSecret } from "../endpoint/mod.ts";
import { configureLog, log } from "../log/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { Recordings, releaseTabs, TOOLS } from "../tools/mod.ts";
import { WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";
import { Activity } from "./activity.ts";

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

/** Everything one service holds, built once per daemon and shared by its sessions. */
interface ServiceState {
  browsers: BrowserHub;
  workspaces: WorkspaceRegistry;
  holds: WorkspaceHolds;
  shared: SessionDeps;
  activity: Activity;
}

/** Builds the service's state from its settings; nothing of it outlives or escapes the service. */
function buildState(settings: ServiceSettings): ServiceState {
  const browsers = new BrowserHub();
  const workspaces = new WorkspaceRegistry();
  const holds = new WorkspaceHolds(workspaces, {
    graceMs: settings.workspaceGraceMs,
    releaseTabs: (workspace) => releaseTabs(workspace, browsers),
  });
  const activity = new Activity(() => browsers.list().length);
  const shared: SessionDeps = {
    catalog: new Catalog(TOOLS),
    workspaces,
    holds,
    browsers,
    // One scheduler for the whole service: lanes are workspaces, whichever connector they use.
    scheduler: new Scheduler({
      ...DEFAULT_SCHEDULER_OPTIONS,
      queueDeadlineMs: settings.queueDeadlineMs,
    }),
    workIds: new WorkIds(),
    activity: activity.works,
    settlementMs: settings.settlementMs,
    // Recordings of a released workspace go with it.
    recordings: new Recordings((workspace) => workspaces.get(workspace.id) !== workspace),
  };
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
  return { browsers, workspaces, holds, shared, activity };
}

/** What `ghostlight status` shows of a running service. */
function statusOf(state: ServiceState, identity: Status["service"]): Status {
  return {
    service: identity,
    browsers: state.browsers.list().map((link) => ({
      slot: link.slot,
      extensionVersion: link.details.extensionVersion,
      userAgent: link.details.userAgent,
      ...(link.details.launchToken ? { launchToken: link.details.launchToken } : {}),
      connectedAt: link.connectedAt.toISOString(),
    })),
    connectors: [...state.activity.sessions].map((session) => ({
      client: session.client,
      connectedAt: session.connectedAt.toISOString(),
      activeWorks: session.activeWorks,
    })),
    workspaces: state.workspaces.size,
    plans: state.workspaces.plans(),
  };
}

/** What an accept loop needs to prove a peer and serve it. */
interface Acceptor {
  state: ServiceState;
  secret: Uint8Array;
  identity: { version: string; instance: string | null; pid: number };
  /** True once the service is stopping: late peers are turned away. */
  stopping: () => boolean;
}

/** Admits MCP connectors after the proof and serves each one's bridge session. */
async function acceptConnectors(listener: Deno.UnixListener, acceptor: Acceptor): Promise<void> {
  const { state } = acceptor;
  for await (const conn of listener) {
    (async () => {
      const admitted = await state.activity.admitting(async () => {
        const opened = await acceptAndProve(conn, {
          expectedRole: "mcp",
          secret: acceptor.secret,
          service: acceptor.identity,
          maxFrame: BRIDGE_MAX_FRAME,
        });
        if (!opened || acceptor.stopping()) return null;
        const client = opened.hello.client;
        const info: SessionInfo = {
          client: client ? `${client.name} ${client.version}` : "unknown client",
          connectedAt: new Date(),
          activeWorks: 0,
        };
        // Counted as a session before the hello stops counting, so busy() never dips between.
        state.activity.sessions.add(info);
        return { opened, info };
      });
      if (!admitted) return closeQuietly(conn);
      const { opened, info } = admitted;
      try {
        await serveSession(opened.reader, opened.writer, info, state.shared);
      } finally {
        state.activity.sessions.delete(info);
        state.activity.touch();
        closeQuietly(conn);
      }
    })();
  }
}

/** Admits browser connectors after the proof and serves each one's link. */
async function acceptBrowsers(listener: Deno.UnixListener, acceptor: Acceptor): Promise<void> {
  const { state } = acceptor;
  for await (const conn of listener) {
    (async () => {
      const opened = await state.activity.admitting(() =>
        acceptAndProve(conn, {
          expectedRole: "browser",
          secret: acceptor.secret,
          service: acceptor.identity,
          maxFrame: FROM_EXTENSION_MAX_FRAME,
        })
      );
      if (!opened || acceptor.stopping()) return closeQuietly(conn);
      try {
        await state.browsers.serve(opened.reader, opened.writer);
      } finally {
        state.activity.touch();
        closeQuietly(conn);
      }
    })();
  }
}

/** Starts the service for an instance. Throws `AlreadyRunning` when one serves it already. */
export async function startDaemon(paths: InstancePaths, options: DaemonOptions): Promise<Daemon> {
  const { settings } = options;
  await ensureOwnedDir(paths.stateDir);
  configureLog({ file: paths.logFile, stderr: options.logToStderr });
  const secret = await ensureSecret(paths.secretFile);
  const listeners = await bindSockets(paths);
  const state = buildState(settings);
  const identity = { version: VERSION, instance: paths.instance, pid: Deno.pid };
  const startedAt = new Date().toISOString();
  const control = Deno.serve(
    { path: listeners.control, onListen: () => {} },
    controlApp(() => statusOf(state, { ...identity, startedAt })).fetch,
  );
  await Deno.chmod(listeners.control, 0o600);

  let resolveFinished: () => void;
  const finished = new Promise<void>((resolve) => resolveFinished = resolve);
  let stopping = false;
  const stop = async () => {
    if (stopping) return await finished;
    stopping = true;
    clearInterval(idleTimer);
    state.holds.close();
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
    if (options.exitWhenIdle && state.activity.idleMs() > settings.idleExitMs) {
      // stop() closes the listeners before it awaits anything, so no connection can slip in
      // between this check and the close.
      log("info", `idle for ${settings.idleExitMs} ms; exiting`);
      stop();
    }
  }, 250);

  const acceptor: Acceptor = { state, secret, identity, stopping: () => stopping };
  acceptConnectors(listeners.bridge, acceptor).catch(() => {});
  acceptBrowsers(listeners.browser, acceptor).catch(() => {});
  log("info", `service ${VERSION} listening in ${paths.runtimeDir} (pid ${Deno.pid})`);
  return { finished, stop, browsers: state.browsers };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
