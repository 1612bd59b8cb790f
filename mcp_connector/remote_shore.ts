/**
 * The remote shore (issue 31, decision 0400): over one outbound WebSocket to an agent host it is
 * an ACP client, and it serves Ghostlight's tools to that host as an MCP server over the same
 * connection (MCP-over-ACP), in one of two wire bindings chosen per remote: the ACP SDK's `acp`
 * (`session/new` declares `{type: "acp", serverId, name}`, each `mcp/message` carries one inner
 * MCP `2026-07-28` request) or OpenAB's tunnel contract, `openab` (`remote_openab.ts`). A dropped
 * tunnel is dialled again after a jittered back-off (decision 0460).
 *
 * It has no MCP server of its own: each inner request becomes one JSON-RPC line into the very
 * `serve` the stdio connector runs, and each answer line comes back as that request's outcome.
 * One MCP implementation, another carrier. The connection to the service says hello as remote
 * NAME; the service binds `remote:NAME` and its pin from its own configuration.
 *
 * @module
 */

import {
  client,
  type McpOperationContext,
  type McpOutcome,
  McpOverAcpProvider,
  McpProtocolError,
  methods,
  PROTOCOL_VERSION,
} from "@agentclientprotocol/sdk/unstable";
import type { InstancePaths } from "../shared/instance.ts";
import { type Binding, findRemote } from "../shared/remotes.ts";
import { VERSION } from "../shared/version.ts";
import { META } from "./mcp_2026_07_28.ts";
import { answerThenClose, InnerConnector } from "./remote_inner.ts";
import { AgentPermissions, type PermissionAsker } from "./remote_permission.ts";
import { acpPeer, type PromptLink, ShorePrompts } from "./remote_prompts.ts";
import { ServiceLink } from "./service_link.ts";
import {
  newOpenabSession,
  OPENAB_LIMITS,
  type OpenabSession,
  serveOpenab,
} from "./remote_openab.ts";
import type { ConnectorSettings } from "./settings.ts";
import { openTunnel, type Tunnel, type TunnelBounds } from "./ws_stream.ts";
import { backoffDelay } from "./backoff.ts";

/** Inner MCP requests one remote may have open at once (more are refused with -33000). */
export const MAX_ACTIVE_REQUESTS = 16;

/** What the shore serves and where it dials. */
export interface ShoreOptions {
  /** The remote's name, as the person configured it. */
  name: string;
  url: URL;
  /** The wire binding of MCP-over-ACP (decision 0460). */
  binding: Binding;
  /** The token for the handshake, or none. */
  token: string | null;
  /** The fixed entry the shore may start the service with, if any. */
  serviceEntry?: string | null;
  /** Ends the shore (Ctrl-C). */
  stop: AbortSignal;
  /** Narrower bounds, for tests. */
  bounds?: Partial<TunnelBounds>;
  /** Told each time the agent host has accepted the session that declares the tools. */
  onReady?: (serverId: string) => void;
  /** A line for the person (the shore's stderr): each drop, each wait before reconnecting. */
  say?: (line: string) => void;
  /**
   * Told when the service ended the shore (decision 0520): the person stopped the remote agent,
   * or a newer shore replaced it. The shore then returns without dialling again.
   */
  onEnded?: (why: string) => void;
}

/** One inner request's params as the connector reads them: its `_meta` envelope made whole. */
function innerParams(context: McpOperationContext): Record<string, unknown> {
  const params = context.params ?? {};
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  return {
    ...params,
    _meta: {
      ...meta,
      [META.protocolVersion]: context.protocolVersion,
      [META.clientCapabilities]: context.clientCapabilities,
      ...(context.clientInfo === undefined ? {} : { [META.clientInfo]: context.clientInfo }),
    },
  };
}

/**
 * A notification the connector scoped to one inner request, as the agent host knows that
 * request: the subscription id it carries is the host's `requestId`, not the shore's own id.
 */
function scopedTo(
  params: Record<string, unknown> | undefined,
  requestId: string,
): Record<string, unknown> | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (meta?.[META.subscriptionId] === undefined) return params;
  return { ...params, _meta: { ...meta, [META.subscriptionId]: requestId } };
}

/**
 * Serves one tunnel of the `acp` binding (the ACP SDK's) until it closes; resolves with why.
 * Setup that fails (ACP `initialize`, `session/new`) closes the tunnel and throws: nothing is
 * left half open. Each tunnel is a new session (the SDK binding resumes nothing).
 */
async function serveAcp(
  tunnel: Tunnel,
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: ShoreOptions,
  ready: (serverId: string) => void,
  halt: AbortSignal,
  permissions: AgentPermissions,
): Promise<string> {
  const inner = new InnerConnector(paths, settings, options);
  inner.prompts.onCancel(() => permissions.cancelAll());
  /** The inner requests being served, so that an end can answer them before it closes. */
  const open = new Set<Promise<unknown>>();
  const provider = new McpOverAcpProvider();
  const app = client({ name: "ghostlight-remote-shore" })
    .onRequest(methods.client.mcp.message, provider.handleRequest)
    // The agent's words go to the person's side panel (decision 0470).
    .onNotification(methods.client.session.update, ({ params }) => inner.prompts.update(params))
    // The person decides (decision 0530).
    .onRequest(
      methods.client.session.requestPermission,
      ({ params }) => permissions.answer(params),
    );
  const connection = app.connect({ readable: tunnel.readable, writable: tunnel.writable });
  try {
    await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "ghostlight", version: VERSION },
    });
    const server = provider.registerServer(connection.agent, {
      name: paths.mcpServerName,
      maxActiveRequests: MAX_ACTIVE_REQUESTS,
      handler: async (context): Promise<McpOutcome> => {
        const seen = inner.prompts.callStarted(context.method, context.params);
        // A listen stream's notifications go back scoped to the host's request (decision 0520).
        const answering = inner.request(
          context.method,
          innerParams(context),
          context.signal,
          (notification) =>
            context.notify(notification.method, scopedTo(notification.params, context.requestId)),
        );
        open.add(answering);
        const answer = await answering.finally(() => open.delete(answering));
        inner.prompts.callEnded(seen, answer);
        if (answer.error !== undefined) {
          throw new McpProtocolError(answer.error.code, answer.error.message, answer.error.data);
        }
        return { result: answer.result ?? null };
      },
    });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, {
      cwd: "/",
      mcpServers: [server.declaration],
    }) as { sessionId: string };
    ready(server.serverId);
    inner.prompts.start(acpPeer(connection.agent), sessionId);
    return await Promise.race([
      tunnel.closed,
      connection.closed.then(() => "the ACP connection closed"),
      answerThenClose(halt, tunnel.closed, tunnel, () => [inner], () => open)
        .then((why) => why ?? "the tunnel ended first"),
    ]);
  } catch (error) {
    const why = `setting up the session failed: ${(error as Error).message}`;
    tunnel.close(why);
    throw new Error(why);
  } finally {
    tunnel.close("the shore ended the session");
    connection.close();
    inner.end();
    await inner.served;
  }
}

/**
 * Reconnecting (decision 0460): the cap as a multiple of the first wait (the setting
 * `remoteReconnectMs`, 0.5 s by default), and how many setups may fail in a row.
 */
export const RECONNECT = {
  capTimesFirst: 60,
  /** A session that lived this long starts the waits again from the first. */
  stableMs: 60_000,
  maxFailedSetups: 8,
} as const;

/** The wait before reconnect `attempt` (0 first): doubling, capped, jittered into [half, whole]. */
export function reconnectDelay(
  attempt: number,
  firstMs: number,
  random: () => number = Math.random,
): number {
  return backoffDelay(attempt, firstMs, firstMs * RECONNECT.capTimesFirst, random);
}

/** Resolves after `ms`, or at once when `stop` aborts. */
function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs the shore until `stop` aborts, the remote is removed, or setup has failed
 * {@linkcode RECONNECT.maxFailedSetups} times in a row (then it throws with the last reason).
 * A dropped tunnel is followed by a new one after a jittered, capped back-off; the `openab`
 * binding resumes its session there, re-declaring its server. Each tunnel is its own objects
 * (socket, inner connections, service links): the old one's teardown cannot touch the new one.
 */
export async function runShore(
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: ShoreOptions,
): Promise<string> {
  const say = options.say ?? (() => {});
  // The shore's word on its tunnel, for the person's `status` (the service lists it as the remote).
  const reporter = new ServiceLink(paths, { name: "ghostlight-remote-shore", version: VERSION }, {
    serviceEntry: options.serviceEntry,
    remote: options.name,
  });
  const report = (state: "connected" | "degraded", why?: string) =>
    reporter.reportRemote(state, why).catch(() => {
      // No service to tell: the shore's own output still says it.
    });
  // The service ends this shore on the person's Stop, or when a newer shore replaced it.
  const halt = new AbortController();
  reporter.onRemoteEnd((why) => halt.abort(why));
  const ask = reporter.askAgentPermission.bind(reporter);
  try {
    const why = await reconnecting(
      paths,
      settings,
      { ...options, ask, promptLink: reporter },
      say,
      report,
      halt.signal,
    );
    if (halt.signal.aborted) options.onEnded?.(String(halt.signal.reason));
    return halt.signal.aborted ? String(halt.signal.reason) : why;
  } finally {
    reporter.close();
  }
}

/** The loop of {@linkcode runShore}: one tunnel after another, with back-off between. */
async function reconnecting(
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: ShoreOptions & { ask: PermissionAsker; promptLink: PromptLink },
  say: (line: string) => void,
  report: (state: "connected" | "degraded", why?: string) => void,
  halt: AbortSignal,
): Promise<string> {
  const openab: OpenabSession = newOpenabSession();
  // Ctrl-C, or the service ending the shore: no wait outlasts either, and no dial follows.
  const ended = AbortSignal.any([options.stop, halt]);
  let attempt = 0;
  let failedSetups = 0;
  let declare = true;
  for (;;) {
    let readyAt: number | null = null;
    const ready = (serverId: string) => {
      readyAt = Date.now();
      failedSetups = 0;
      report("connected");
      options.onReady?.(serverId);
    };
    let why: string;
    try {
      why = await serveOne(paths, settings, options, { openab, declare, ready, say, halt });
    } catch (error) {
      why = (error as Error).message;
    }
    if (ended.aborted) return why;
    if (readyAt === null) failedSetups++;
    else if (Date.now() - readyAt >= RECONNECT.stableMs) attempt = 0;
    if (failedSetups >= RECONNECT.maxFailedSetups) {
      throw new Error(`${why} (${failedSetups} attempts in a row failed; not trying again)`);
    }
    const wait = reconnectDelay(attempt++, settings.remoteReconnectMs);
    const degraded = `${why}; reconnecting in ${(wait / 1000).toFixed(1)} s`;
    say(`remote ${options.name}: degraded: ${degraded}`);
    report("degraded", degraded);
    await pause(wait, ended);
    if (ended.aborted) return why;
    // The person may have changed the remote meanwhile: removed, it ends; unpinned, it declares
    // no server (and a resume withdraws the one it declared).
    const remote = await findRemote(paths, options.name).catch(() => null);
    if (remote === null) return `remote ${options.name} is no longer configured`;
    declare = remote.tools.length > 0;
  }
}

/** One tunnel: dial, set up, serve until it closes. */
async function serveOne(
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: ShoreOptions & { ask: PermissionAsker; promptLink: PromptLink },
  state: {
    openab: OpenabSession;
    declare: boolean;
    ready: (serverId: string) => void;
    say: (line: string) => void;
    /** Aborted, with why, when the service ends the shore (decision 0520). */
    halt: AbortSignal;
  },
): Promise<string> {
  const isOpenab = options.binding === "openab";
  const tunnel = await openTunnel(options.url, options.token, {
    stallMs: settings.clientStallMs,
    ...(isOpenab
      ? {
        maxInboundFrame: OPENAB_LIMITS.maxFrame,
        maxMethodFrame: OPENAB_LIMITS.maxMethodFrame,
      }
      : {}),
    ...options.bounds,
  }, isOpenab ? "subprotocol" : "header");
  const stopped = () => tunnel.close("the person stopped the remote shore");
  options.stop.addEventListener("abort", stopped, { once: true });
  // The agent host's own permission requests: the person's; withdrawn when the tunnel ends.
  const permissions = new AgentPermissions(
    options.ask,
    (line) => state.say(`remote ${options.name}: ${line}`),
  );
  try {
    if (!isOpenab) {
      return await serveAcp(
        tunnel,
        paths,
        settings,
        options,
        state.ready,
        state.halt,
        permissions,
      );
    }
    return await serveOpenab(tunnel, paths, settings, {
      name: options.name,
      serviceEntry: options.serviceEntry,
      stop: options.stop,
      declare: state.declare,
      onReady: (serverId) => state.ready(serverId),
      say: state.say,
      halt: state.halt,
      permissions,
      // The contract's client drives the chat session: prompts over the status link (0531).
      prompts: new ShorePrompts(options.promptLink),
    }, state.openab);
  } finally {
    permissions.cancelAll();
    options.stop.removeEventListener("abort", stopped);
    // The close frame, with its reason, goes out before the shore dials again or exits.
    await closeSent(tunnel);
  }
}

/** How long the shore waits for its socket to finish closing. */
const CLOSE_WAIT_MS = 5_000;

/** Resolves once the tunnel's socket has closed, or after {@linkcode CLOSE_WAIT_MS}. */
async function closeSent(tunnel: Tunnel): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    tunnel.finished,
    new Promise((resolve) => timer = setTimeout(resolve, CLOSE_WAIT_MS)),
  ]);
  clearTimeout(timer);
}
