/**
 * The running service: binds the instance's sockets, admits connectors after the proof, serves
 * the control API, and (when demand-started) exits after a quiet period.
 *
 * @module
 */

import { type QuestionListener, Questions } from "../asks/mod.ts";
import { BRIDGE_MAX_FRAME, UNNAMED_PRINCIPAL } from "../../shared/bridge.ts";
import { FROM_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { encodeFrame, FrameBudget } from "../../shared/framing.ts";
import { acceptAndProve, type HandshakeRefusal, HELLO_MAX_FRAME } from "../../shared/handshake.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import { extensionMismatch } from "../../shared/extension_features.ts";
import { VERSION } from "../../shared/version.ts";
import { AuditKey, AuditLog, ChainKey } from "../audit/mod.ts";
import {
  PromptRelay,
  quarantinedTabs,
  quarantineEvents,
  releaseAfterRunning,
  type RemoteBinding,
  RemoteShores,
  serveSession,
  type SessionDeps,
  type SessionInfo,
  WorkIds,
} from "../bridge/mod.ts";
import {
  BrowserError,
  BrowserHub,
  type BrowserLink,
  decomposeTabId,
  type PersonHandler,
} from "../browser/mod.ts";
import { Catalog } from "../catalog/mod.ts";
import {
  controlApp,
  ControlProofs,
  median,
  type Probe,
  serveControl,
  type Status,
} from "../control/mod.ts";
import {
  bindSockets,
  ensureKeys,
  ensureOwnedDir,
  type ServiceKeys,
  SocketGuard,
  type SocketName,
} from "../endpoint/mod.ts";
import {
  claimMismatch,
  MACHINE_POLICY_FILE,
  PersonControls,
  PolicyStore,
} from "../governance/mod.ts";
import { configureLog, log } from "../log/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { PAGE_ENABLE_COMMANDS, Recordings, TOOLS } from "../tools/mod.ts";
import { WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";
import { isPanelRequest } from "../../shared/panel.ts";
import {
  hostPort,
  readRemotes,
  readRemoteUrl,
  remotePrincipal,
  remotesFile,
} from "../../shared/remotes.ts";
import { Activity } from "./activity.ts";
import { bindRemote, rebindable } from "./remote_binding.ts";
import {
  ConnectionGate,
  MAX_BRIDGE_CONNECTIONS,
  MAX_BROWSER_CONNECTIONS,
} from "./connection_gate.ts";

/**
 * Bytes that frames in progress may hold on all of one service's connections together (each
 * frame is also held to its hop's own cap: 32 MiB on the bridge, 64 MiB from a browser).
 */
export const MAX_PARTIAL_FRAME_BYTES = 256 * 1024 * 1024;
import { personEffects, showQuestions } from "./person_effects.ts";
import { answerPerson, type PersonDesk, personState } from "./person_requests.ts";

/** How the service runs. */
export interface DaemonOptions {
  /** The service's settings, as `main` read them. */
  settings: ServiceSettings;
  /** Exit after `settings.idleExitMs` with no connector, no browser and no work (demand start). */
  exitWhenIdle: boolean;
  /** Echo the log to stderr as well as the log file. */
  logToStderr: boolean;
  /** The machine-wide policy file; tests point it into their own folder. */
  machinePolicyFile?: string;
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
  /** What the person's surfaces ask and are shown. */
  desk: PersonDesk;
}

/**
 * The questions a policy's ask puts to the person (decision 0360): while one is open, the
 * asking agent's tab group says so and each browser's toolbar icon counts them.
 */
function questionBroker(
  settings: Pick<ServiceSettings, "askTimeoutMs" | "askSettleMs">,
  workspaces: WorkspaceRegistry,
  person: PersonControls,
  browsers: BrowserHub,
): Questions {
  const questions = new Questions({
    timeoutMs: settings.askTimeoutMs,
    settleMs: settings.askSettleMs,
    live: (id) => workspaces.get(id) !== undefined,
  });
  questions.onChange((event) => {
    if (event.workspace !== null) person.showAsking(event.workspace, event.opened !== undefined);
    showQuestions(browsers, questions.questions());
  });
  workspaces.onRelease((id) => questions.ended(id));
  return questions;
}

/**
 * Writes a record when a remembered yes is forgotten, revoked by the person or gone with its
 * workspace: the audit says when a site yes stopped letting the agent's calls through.
 */
function auditForgotten(audit: AuditLog, auditKey: AuditKey): QuestionListener {
  return ({ workspace, forgot }) => {
    if (!forgot || workspace === null) return;
    const { grant, why } = forgot;
    audit.append({
      kind: "decision",
      result: "forgotten",
      principal: grant.principal,
      client: workspace.label.slice(0, 200),
      workspace: auditKey.workspace(workspace.id),
      work: null,
      tool: "asks",
      action: null,
      host: grant.host,
      capabilities: [grant.capability],
      rule: `the person's yes ${grant.number} to ${grant.capability} on this site for this ` +
        `agent (question ${grant.question}, answered from ${grant.by}) was forgotten: ${why}`,
      args: "none",
    }).catch((error) => log("warn", `a forgotten yes was not audited: ${error.message}`));
  };
}

/**
 * The side panel's prompts to remote agents, relayed to their shores (decision 0470), and each
 * remote's current shore, with the remotes file watched every `ms` so that a pin changed while a
 * remote is connected reaches its tool list (decision 0520).
 */
function remoteRelays(
  paths: InstancePaths,
  ms: number,
): { prompts: PromptRelay; remotes: RemoteShores } {
  const prompts = new PromptRelay(async () =>
    (await readRemotes(paths)).remotes.map((remote) => ({
      name: remote.name,
      host: hostPort(readRemoteUrl(remote.url)),
    }))
  );
  const remotes = new RemoteShores();
  remotes.watch(remotesFile(paths), ms).catch(() => {});
  return { prompts, remotes };
}

/** Who answers a browser's request: the panel's go to the relay, the popup's to the desk. */
function fromBrowser(desk: PersonDesk, prompts: PromptRelay): PersonHandler {
  return (request) =>
    isPanelRequest(request) ? prompts.answer(request) : answerPerson(desk, request, "the popup");
}

/** What the service's state is built from. */
interface StateSources {
  paths: InstancePaths;
  settings: ServiceSettings;
  keys: ServiceKeys;
  /** The service's key (or an older install's shared secret) was there: the instance has run. */
  hadRun: boolean;
  machinePolicyFile: string;
}

/**
 * Builds the service's state from its settings and files: the policy is read and watched, the
 * audit continued; nothing of it outlives or escapes the service.
 */
async function buildState(sources: StateSources): Promise<ServiceState> {
  const { paths, settings } = sources;
  // Every observed tab's new documents get the page runtime before their own scripts run.
  const browsers = new BrowserHub({ enable: PAGE_ENABLE_COMMANDS });
  const workspaces = new WorkspaceRegistry();
  // One scheduler for the whole service: lanes are workspaces, whichever connector they use.
  const scheduler = new Scheduler({
    ...DEFAULT_SCHEDULER_OPTIONS,
    queueDeadlineMs: settings.queueDeadlineMs,
  });
  const holds = new WorkspaceHolds(workspaces, {
    graceMs: settings.workspaceGraceMs,
    releaseTabs: releaseAfterRunning(scheduler, browsers),
    // Active work pins its workspace: a grace release waits for the call running in it.
    untilSettled: (id) => scheduler.isRunning(id) ? scheduler.afterRunning(id) : null,
  });
  const activity = new Activity(() => browsers.list().length);
  const policy = new PolicyStore({
    userFile: paths.policyFile,
    machineFile: sources.machinePolicyFile,
  });
  await policy.load();
  policy.watch(settings.policyReloadMs);
  // The agents' tabs' request filters follow the policy at once (decision 0275).
  policy.onChange(() => {
    for (const link of browsers.list()) link.refilter().catch(() => {});
  });
  const audit = await AuditLog.open({
    file: paths.auditFile,
    maxBytes: settings.auditMaxBytes,
    keepFiles: settings.auditKeepFiles,
    key: ChainKey.derive(sources.keys.audit),
    hadRun: sources.hadRun,
  });
  const person = new PersonControls({
    workspaces,
    holds,
    attentionAfter: settings.attentionAfter,
    effects: personEffects(browsers),
  });
  const auditKey = AuditKey.derive(sources.keys.audit);
  const questions = questionBroker(settings, workspaces, person, browsers);
  questions.onChange(auditForgotten(audit, auditKey));
  const { prompts, remotes } = remoteRelays(paths, settings.policyReloadMs);
  const desk: PersonDesk = {
    person,
    policy,
    audit,
    questions,
    service: { version: VERSION, instance: paths.instance },
    remotes: () => prompts.connected(),
  };
  browsers.onPerson(fromBrowser(desk, prompts));
  const shared: SessionDeps = {
    catalog: new Catalog(TOOLS),
    workspaces,
    holds,
    browsers,
    scheduler,
    workIds: new WorkIds(),
    activity: activity.works,
    settlementMs: settings.settlementMs,
    governance: {
      policy,
      person,
      audit,
      auditKey,
      questions,
    },
    // Recordings of a released workspace go with it.
    recordings: new Recordings((workspace) => workspaces.get(workspace.id) !== workspace),
    prompts,
    remotes,
  };
  browsers.onEvents({
    tabRemoved: (link, native) => workspaces.forgetTab(link.compose(native)),
    browserRestarted: (slot) => {
      for (const workspace of workspaces.list()) {
        for (const tabId of workspace.tabs) {
          if (decomposeTabId(tabId)?.slot === slot) workspaces.forgetTab(tabId);
        }
      }
    },
    tabCreated: (link, native, opener) => {
      if (opener === undefined) return;
      // An adopted popup is observed at once, so its first requests are in its buffers (the
      // extension began observing it as it opened, since its opener is observed).
      if (workspaces.adoptTab(link.compose(opener), link.compose(native))) {
        link.observe(native).catch(() => {});
        // It sends what its opener may not (decision 0275): the opener's filter, at once.
        link.inheritFilter(opener, native).catch(() => {});
      } else if (link.observes(opener)) {
        // No workspace takes it: the tab goes back to the person, unobserved.
        link.call("tab.release", { tab_id: native }).catch(() => {});
      }
    },
  });
  browsers.onEvents(quarantineEvents(scheduler));
  return { browsers, workspaces, holds, shared, activity, desk };
}

/** The version skew between this service and a browser's extension, when there is one. */
function mismatchOf(link: BrowserLink): { mismatch?: string } {
  const mismatch = extensionMismatch(link.details.extensionVersion, link.details.features);
  return mismatch === null ? {} : { mismatch };
}

/** A connector whose client calls itself by another principal's name, for status. */
function principalMismatch(
  session: SessionInfo,
  sessions: readonly SessionInfo[],
  policy: PolicyStore,
): { mismatch?: string } {
  const others = sessions.filter((other) => other !== session).map((other) => other.principal);
  const mismatch = claimMismatch(policy.rules(), {
    principal: session.principal,
    clientName: session.clientName,
  }, others);
  return mismatch === null ? {} : { mismatch };
}

/** What `ghostlight status` shows of a running service. */
function statusOf(
  state: ServiceState,
  identity: Status["service"],
  replacedSockets: Status["replacedSockets"],
): Status {
  const sessions = [...state.activity.sessions];
  return {
    service: identity,
    browsers: state.browsers.list().map((link) => ({
      slot: link.slot,
      extensionVersion: link.details.extensionVersion,
      userAgent: link.details.userAgent,
      ...(link.details.launchToken ? { launchToken: link.details.launchToken } : {}),
      connectedAt: link.connectedAt.toISOString(),
      features: [...link.details.features],
      ...mismatchOf(link),
    })),
    // A remote shore's state link is listed as its remote, not as an MCP connector.
    connectors: sessions.filter((session) => session.remoteState === undefined).map((session) => ({
      principal: session.principal,
      client: session.client,
      ...principalMismatch(session, sessions, state.shared.governance.policy),
      connectedAt: session.connectedAt.toISOString(),
      activeWorks: session.activeWorks,
    })),
    remotes: remoteStates(sessions),
    workspaces: state.workspaces.size,
    works: { running: state.shared.scheduler.running, queued: state.shared.scheduler.queued },
    quarantined: quarantinedTabs(state.shared.scheduler),
    plans: state.workspaces.plans(),
    person: personState(state.desk),
    ...(replacedSockets?.length ? { replacedSockets } : {}),
  };
}

/** What each running remote shore last said of its tunnel (decision 0460). */
function remoteStates(sessions: readonly SessionInfo[]): NonNullable<Status["remotes"]> {
  return sessions.flatMap(({ remote, remoteState }) =>
    remote === undefined || remoteState === undefined ? [] : [{
      name: remote.name,
      host: remote.host,
      state: remoteState.state,
      ...(remoteState.why === undefined ? {} : { why: remoteState.why }),
      since: remoteState.since.toISOString(),
    }]
  );
}

/** What an accept loop needs to prove a peer and serve it. */
interface Acceptor {
  state: ServiceState;
  keys: ServiceKeys;
  identity: { version: string; instance: string | null; pid: number };
  /** Each socket's bound on connections, kept across the socket being bound again. */
  gates: { bridge: ConnectionGate; browser: ConnectionGate };
  /** Frames in progress on every connection of this service, together. */
  budget: FrameBudget;
  /** True once the service is stopping: late peers are turned away. */
  stopping: () => boolean;
  /** Where the person's remotes file is, to bind a remote shore's connection (decision 0400). */
  paths: InstancePaths;
}

const REFUSALS: Record<HandshakeRefusal, string> = {
  no_hello: "sent no valid hello",
  wrong_bridge: "speaks another bridge version",
  wrong_role: "came to the wrong socket",
  no_proof: "did not answer the challenge",
  wrong_proof: "could not prove it holds its role's key",
  socket_replaced: "came through a socket that was replaced since (perhaps relayed)",
  not_admitted: "named a remote the service has not configured",
  late_proof: "answered the challenge too late and was told to connect again",
};

/**
 * Accepts connections on one socket within its gate: past the cap a connection is told so and
 * closed unread. Each admitted one is served by `serve`, and its place given back when it ends.
 */
async function acceptWithin(
  listener: Deno.UnixListener,
  gate: ConnectionGate,
  serve: (conn: Deno.UnixConn) => Promise<void>,
): Promise<void> {
  for await (const conn of listener) {
    if (!gate.enter((message) => log("warn", message))) {
      refuseQuietly(conn, gate.refusal());
      continue;
    }
    serve(conn).catch(() => {}).finally(() => {
      gate.leave();
      closeQuietly(conn);
    });
  }
}

/** Tells a connection past the cap why, then closes it; never waits on the peer. */
function refuseQuietly(conn: Deno.UnixConn, message: string): void {
  const frame = encodeFrame({ type: "refused", message }, HELLO_MAX_FRAME);
  conn.write(frame).catch(() => {}).finally(() => closeQuietly(conn));
}

/** Logs why a peer on `socket` was turned away during the handshake. */
function refusedPeer(socket: string): (why: HandshakeRefusal) => void {
  return (why) => {
    if (why !== "no_hello") log("warn", `a peer on the ${socket} socket ${REFUSALS[why]}`);
  };
}

/** Admits MCP connectors after the proof and serves each one's bridge session. */
async function acceptConnectors(
  listener: Deno.UnixListener,
  acceptor: Acceptor,
  socketIntact: () => Promise<boolean>,
): Promise<void> {
  const { state } = acceptor;
  await acceptWithin(listener, acceptor.gates.bridge, async (conn) => {
    const admitted = await state.activity.admitting(async () => {
      // A remote shore's remote is bound from the service's own remotes file (decision 0400).
      let remote: RemoteBinding | undefined;
      const opened = await acceptAndProve(conn, {
        expectedRole: "mcp",
        signer: acceptor.keys.signer,
        roleKey: acceptor.keys.roles.mcp,
        service: acceptor.identity,
        maxFrame: BRIDGE_MAX_FRAME,
        budget: acceptor.budget,
        onRefused: refusedPeer("bridge"),
        socketIntact,
        admit: async (hello) => {
          if (hello.remote === undefined) return null;
          const bound = await bindRemote(acceptor.paths, hello.remote);
          if ("refused" in bound) {
            log("warn", bound.refused);
            return bound.refused;
          }
          remote = rebindable(bound, acceptor.paths, conn);
          return null;
        },
      });
      if (!opened || acceptor.stopping()) return null;
      const client = opened.hello.client;
      const info: SessionInfo = {
        // A remote's principal comes from the service's own remotes file, never from its hello.
        principal: remote === undefined
          ? opened.hello.principal ?? UNNAMED_PRINCIPAL
          : remotePrincipal(remote.name),
        ...(remote === undefined ? {} : { remote }),
        client: client ? `${client.name} ${client.version}` : "unknown client",
        clientName: client?.name ?? "",
        connectedAt: new Date(),
        activeWorks: 0,
      };
      // Counted as a session before the hello stops counting, so busy() never dips between.
      state.activity.sessions.add(info);
      return { opened, info };
    });
    if (!admitted) return;
    const { opened, info } = admitted;
    try {
      await serveSession(opened.reader, opened.writer, info, state.shared);
    } finally {
      state.activity.sessions.delete(info);
      state.activity.touch();
    }
  });
}

/** Admits browser connectors after the proof and serves each one's link. */
async function acceptBrowsers(
  listener: Deno.UnixListener,
  acceptor: Acceptor,
  socketIntact: () => Promise<boolean>,
): Promise<void> {
  const { state } = acceptor;
  await acceptWithin(listener, acceptor.gates.browser, async (conn) => {
    const opened = await state.activity.admitting(() =>
      acceptAndProve(conn, {
        expectedRole: "browser",
        signer: acceptor.keys.signer,
        roleKey: acceptor.keys.roles.browser,
        service: acceptor.identity,
        maxFrame: FROM_EXTENSION_MAX_FRAME,
        budget: acceptor.budget,
        onRefused: refusedPeer("browser"),
        socketIntact,
      })
    );
    if (!opened || acceptor.stopping()) return;
    try {
      await state.browsers.serve(opened.reader, opened.writer);
    } finally {
      state.activity.touch();
    }
  });
}

/**
 * The service's keys, made where missing, and whether the instance has run before: its key, or
 * an older install's shared secret, was there.
 */
async function serviceKeys(paths: InstancePaths): Promise<{ keys: ServiceKeys; hadRun: boolean }> {
  const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);
  const hadRun = await exists(paths.keys.service) || await exists(paths.legacySecretFile);
  const keys = await ensureKeys(paths, {
    onRemovedLegacy: () =>
      log("info", "removed the shared secret of an older install: each role has its own key now"),
  });
  return { keys, hadRun };
}

/** How each socket is served, and each one's release (used again when a socket is rebound). */
function socketServers(
  acceptor: Acceptor,
  guard: SocketGuard,
  app: { fetch(request: Request): Response | Promise<Response> },
): {
  serve: Record<SocketName, (listener: Deno.UnixListener) => void>;
  releases: Record<SocketName, () => Promise<void>>;
} {
  /** Each socket's release: closes its listener and resolves once its accept loop has ended. */
  const releases = {} as Record<SocketName, () => Promise<void>>;
  const acceptLoop = (name: SocketName, listener: Deno.UnixListener, loop: Promise<void>) => {
    releases[name] = async () => {
      try {
        listener.close();
      } catch {
        // Closed already.
      }
      await loop.catch(() => {});
    };
  };
  const serve: Record<SocketName, (listener: Deno.UnixListener) => void> = {
    bridge: (listener) =>
      acceptLoop("bridge", listener, acceptConnectors(listener, acceptor, guard.intact("bridge"))),
    browser: (listener) =>
      acceptLoop("browser", listener, acceptBrowsers(listener, acceptor, guard.intact("browser"))),
    control: (listener) => {
      const server = serveControl(listener, (request) => app.fetch(request));
      releases.control = () => server.shutdown();
    },
  };
  return { serve, releases };
}

/** Starts the service for an instance. Throws `AlreadyRunning` when one serves it already. */
export async function startDaemon(paths: InstancePaths, options: DaemonOptions): Promise<Daemon> {
  const { settings } = options;
  await ensureOwnedDir(paths.stateDir);
  configureLog({ file: paths.logFile, stderr: options.logToStderr });
  const { keys, hadRun } = await serviceKeys(paths);
  const listeners = await bindSockets(paths);
  const guard = await SocketGuard.of(paths);
  const state = await buildState({
    paths,
    settings,
    keys,
    hadRun,
    machinePolicyFile: options.machinePolicyFile ?? MACHINE_POLICY_FILE,
  });
  const identity = { version: VERSION, instance: paths.instance, pid: Deno.pid };
  const startedAt = new Date().toISOString();
  const replacedSockets: { socket: SocketName; at: string }[] = [];
  const app = controlApp({
    status: () => statusOf(state, { ...identity, startedAt }, replacedSockets),
    person: (request) => answerPerson(state.desk, request, "the CLI"),
    probe: (rounds) => probeBrowsers(state.browsers, rounds),
    proofs: new ControlProofs(keys.control),
  });

  let resolveFinished: () => void;
  const finished = new Promise<void>((resolve) => resolveFinished = resolve);
  let stopping = false;
  const stop = async () => {
    if (stopping) return await finished;
    stopping = true;
    clearInterval(idleTimer);
    clearInterval(guardTimer);
    state.desk.policy.close();
    state.shared.remotes?.close();
    state.holds.close();
    // Each release closes its listener before anything is awaited.
    await Promise.all(Object.values(releases).map((release) => release().catch(() => {})));
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

  const acceptor: Acceptor = {
    paths,
    state,
    keys,
    identity,
    gates: {
      bridge: new ConnectionGate("bridge", MAX_BRIDGE_CONNECTIONS),
      browser: new ConnectionGate("browser", MAX_BROWSER_CONNECTIONS),
    },
    budget: new FrameBudget(MAX_PARTIAL_FRAME_BYTES),
    stopping: () => stopping,
  };
  const { serve, releases } = socketServers(acceptor, guard, app);
  serve.bridge(listeners.bridge);
  serve.browser(listeners.browser);
  serve.control(listeners.control);
  let guarding = false;
  const guardTimer = setInterval(() => {
    // One check at a time: a rebind under way is not taken for another replacement.
    if (guarding) return;
    guarding = true;
    guardSockets(guard, { serve, releases, stopping: () => stopping, replaced: replacedSockets })
      .catch(() => {}).finally(() => guarding = false);
  }, SOCKET_CHECK_MS);
  log("info", `service ${VERSION} listening in ${paths.runtimeDir} (pid ${Deno.pid})`);
  return { finished, stop, browsers: state.browsers };
}

/** How often the service checks that its socket paths still name the sockets it bound. */
const SOCKET_CHECK_MS = 1_000;
/** Replaced sockets the status shows, newest last. */
const MAX_REPLACED_SHOWN = 16;

/**
 * Binds again each socket whose path no longer names the service's own (decision 0250): logs it,
 * closes the old listener, serves the new one, and keeps the last few in `replaced` for the
 * status. A bind that fails (the path taken again at once) is tried on the next check.
 */
async function guardSockets(
  guard: SocketGuard,
  options: {
    serve: Record<SocketName, (listener: Deno.UnixListener) => void>;
    releases: Record<SocketName, () => Promise<void>>;
    stopping: () => boolean;
    replaced: { socket: SocketName; at: string }[];
  },
): Promise<void> {
  for (const name of await guard.replaced()) {
    if (options.stopping()) return;
    log(
      "warn",
      `the ${name} socket was removed or replaced by another process; binding it again ` +
        "(a squatter cannot prove itself to a connector without the service's key)",
    );
    options.replaced.push({ socket: name, at: new Date().toISOString() });
    if (options.replaced.length > MAX_REPLACED_SHOWN) options.replaced.shift();
    let fresh: Deno.UnixListener;
    try {
      fresh = await guard.rebind(name, options.releases[name]);
    } catch (error) {
      log("warn", `could not bind the ${name} socket again: ${(error as Error).message}`);
      continue;
    }
    if (options.stopping()) {
      fresh.close();
      return;
    }
    options.serve[name](fresh);
  }
}

/** How long the probe may wait on each browser, for all its rounds together. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Sends each attached browser, `rounds` times in a row, one command that changes nothing
 * (reading a tab id no browser hands out, 0) and times each answer from send to answer: "no
 * such tab" is the expected one. The browsers are probed at once; the first failure ends a
 * browser's rounds.
 */
async function probeBrowsers(browsers: BrowserHub, rounds: number): Promise<Probe> {
  const answers = browsers.list().map(async (link) => {
    const row = { slot: link.slot, extensionVersion: link.details.extensionVersion };
    const deadline = performance.now() + PROBE_TIMEOUT_MS;
    const samplesMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const sent = performance.now();
      try {
        await link.call("tab.get", { tab_id: 0 }, { timeoutMs: Math.max(1, deadline - sent) });
      } catch (error) {
        if (!(error instanceof BrowserError && error.kind === "no_such_tab")) {
          return { ...row, ms: null, samplesMs, error: (error as Error).message };
        }
      }
      samplesMs.push(Math.round((performance.now() - sent) * 1000) / 1000);
    }
    return { ...row, ms: median(samplesMs), samplesMs };
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
