/**
 * `ghostlight-mcp-connector`: the stdio MCP server an MCP client spawns. Speaks exactly
 * `2025-11-25` and `2026-07-28`, picking one per process, and relays tool calls to the service
 * over the bridge. Owns request ids and rendering; never governance, tabs or browser frames.
 *
 * The switch: `server/discover` is answered without binding (and without reaching the service,
 * so a discovery probe leaves nothing behind); a valid `initialize` binds `2025-11-25`; the
 * first request carrying the `2026-07-28` envelope with a supported version binds `2026-07-28`.
 * After binding, the other revision's shapes are refused.
 *
 * @module
 */

import { Principal } from "../shared/bridge.ts";
import type { ByteSource } from "../shared/framing.ts";
import { parentExits } from "../shared/parent.ts";
import { type InstancePaths, instancePathsFromEnv } from "../shared/instance.ts";
import { VERSION } from "../shared/version.ts";
import { CallBook, type CallSettings, connectorRestriction } from "./calls.ts";
import {
  ErrorCode,
  type Incoming,
  MAX_LINE_BYTES,
  peerBounds,
  readMessages,
  RpcError,
  StdioPeer,
} from "./jsonrpc.ts";
import { readInitialize, REVISION as LEGACY, Session2025 } from "./mcp_2025_11_25.ts";
import {
  discoverResult,
  hasEnvelope,
  META,
  readEnvelope,
  REVISION as MODERN,
  Session2026,
  unsupportedVersion,
} from "./mcp_2026_07_28.ts";
import { report } from "./report.ts";
import { ServiceLink } from "./service_link.ts";
import { type ConnectorSettings, readConnectorSettings } from "./settings.ts";

/** How often the connector checks that the client that spawned it is still alive. */
const PARENT_CHECK_MS = 1_000;

type Request = Extract<Incoming, { kind: "request" }>;
type Notification = Extract<Incoming, { kind: "notification" }>;

/** What the switch needs of a revision module's session. */
interface RevisionSession {
  handleRequest(request: Request): void;
  handleNotification(notification: Notification): void;
  /** A response to a request this connector sent the client (none in `2026-07-28`). */
  handleResponse?(response: Extract<Incoming, { kind: "response" }>): void;
  end(): Promise<void>;
}

/**
 * The connector's arguments: the instance, the principal its client's entry names, and the
 * fixed entry its starter lets it run.
 */
interface ConnectorArgs {
  instance?: string;
  principal?: string;
  serviceEntry?: string;
}

const USAGE = "usage: [--instance NAME] [--principal NAME] [--service-entry PATH]";

/** The connector's arguments; a principal is checked here, so a bad one never connects. */
export function parseArgs(args: string[]): ConnectorArgs {
  const out: ConnectorArgs = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance") out.instance = args[++i];
    else if (args[i].startsWith("--instance=")) out.instance = args[i].slice(11);
    else if (args[i] === "--principal") out.principal = readPrincipal(args[++i]);
    else if (args[i].startsWith("--principal=")) out.principal = readPrincipal(args[i].slice(12));
    else if (args[i] === "--service-entry") out.serviceEntry = args[++i];
    else {
      throw new Error(`unknown argument ${JSON.stringify(args[i].slice(0, 100))}; ${USAGE}`);
    }
  }
  return out;
}

function readPrincipal(raw: string | undefined): string {
  const parsed = Principal.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new Error(
    `--principal ${JSON.stringify((raw ?? "").slice(0, 100))} is not a principal: ` +
      `${parsed.error.issues[0].message} (e.g. claude-desktop)`,
  );
}

/** The versions a process can still serve, by what it is bound to. */
function servable(bound: "none" | typeof LEGACY | typeof MODERN): string[] {
  if (bound === "none") return [MODERN, LEGACY];
  return [bound];
}

/** Picks the revision for this process and routes every message to it. */
class RevisionSwitch {
  #peer: StdioPeer;
  #link: ServiceLink;
  #calls: CallBook;
  #server: { name: string; version: string };
  #session: RevisionSession | null = null;
  #bound: "none" | typeof LEGACY | typeof MODERN = "none";

  constructor(
    peer: StdioPeer,
    link: ServiceLink,
    options: { server: { name: string; version: string }; calls: CallSettings },
  ) {
    this.#peer = peer;
    this.#link = link;
    this.#calls = new CallBook(link, peer, options.calls);
    this.#server = options.server;
  }

  /** Answers or routes one request; every error becomes a JSON-RPC error for its id. */
  async request(request: Request): Promise<void> {
    try {
      if (this.#session === null) await this.#unbound(request);
      else this.#routeBound(this.#session, request);
    } catch (error) {
      await this.#peer.failure(request.id, error);
    }
  }

  /** Routes a notification; before binding there is nothing to notify. */
  notification(notification: Notification): void {
    this.#session?.handleNotification(notification);
  }

  /** Routes a response from the client to the session that asked. */
  response(response: Extract<Incoming, { kind: "response" }>): void {
    this.#session?.handleResponse?.(response);
  }

  /** Ends the bound session, if any. */
  async end(): Promise<void> {
    await this.#session?.end();
  }

  #bind(revision: typeof LEGACY | typeof MODERN, request: Request): void {
    const options = { calls: this.#calls, server: this.#server };
    this.#bound = revision;
    this.#session = revision === LEGACY
      ? new Session2025(this.#peer, this.#link, options)
      : new Session2026(this.#peer, this.#link, options);
    this.#session.handleRequest(request);
  }

  async #unbound(request: Request): Promise<void> {
    if (request.method === "initialize") {
      readInitialize(request.params);
      return this.#bind(LEGACY, request);
    }
    if (request.method === "ping" && !hasEnvelope(request.params)) {
      // 2025-11-25 lets a client ping before initialize; it binds nothing.
      await this.#peer.result(request.id, {});
      return;
    }
    if (request.method === "server/discover") {
      readEnvelope(request.params, servable(this.#bound));
      await this.#peer.result(request.id, discoverResult(this.#server, servable(this.#bound)));
      return;
    }
    if (hasEnvelope(request.params)) {
      readEnvelope(request.params, servable(this.#bound));
      return this.#bind(MODERN, request);
    }
    throw new RpcError(
      ErrorCode.invalidRequest,
      `Send initialize first (${LEGACY}), or carry params._meta["${META.protocolVersion}"]: ` +
        `"${MODERN}" with "${META.clientCapabilities}" on every request (${MODERN})`,
    );
  }

  #routeBound(session: RevisionSession, request: Request): void {
    if (this.#bound === LEGACY && hasEnvelope(request.params)) {
      throw new RpcError(
        ErrorCode.invalidRequest,
        `This connection was initialized with ${LEGACY}; ${MODERN} requests cannot be mixed ` +
          "into it. Start a new connection for them.",
      );
    }
    if (this.#bound === MODERN && request.method === "initialize") {
      throw unsupportedVersion(request.params.protocolVersion ?? null, servable(MODERN));
    }
    session.handleRequest(request);
  }
}

/** Serves one client on `input`/`output` until `input` closes or `stop` aborts. */
export async function serve(
  paths: InstancePaths,
  settings: ConnectorSettings,
  io: {
    input: ByteSource;
    output: WritableStream<Uint8Array>;
    stop?: AbortSignal;
    /** The fixed entry the connector may start the service with. */
    serviceEntry?: string | null;
    /** Who this connector acts for, from its start; none is the unnamed principal. */
    principal?: string | null;
    /** The remote this process serves as the remote shore (decision 0400); none locally. */
    remote?: string | null;
    /** Handed the link to the service (the remote shore relays prompts on it, decision 0470). */
    onLink?: (link: ServiceLink) => void;
    /**
     * Whether the input ended because the client (or the starter between it and the connector)
     * is gone, rather than closed it: then no one waits for an answer.
     */
    inputLost?: () => Promise<boolean>;
  },
): Promise<void> {
  const peer = new StdioPeer(io.output, peerBounds(settings.clientStallMs));
  const restriction = connectorRestriction(settings);
  // The link connects (and starts the service) only when a bound session first needs it.
  const link = new ServiceLink(paths, { name: "unknown client", version: "" }, {
    serviceEntry: io.serviceEntry,
    principal: io.principal,
    remote: io.remote,
    restrictions: restriction === null ? [] : [restriction],
  });
  io.onLink?.(link);
  const revisions = new RevisionSwitch(peer, link, {
    server: { name: paths.mcpServerName, version: VERSION },
    calls: settings,
  });
  const messages = readMessages(io.input);
  const stopped = new Promise<null>((resolve) => {
    if (io.stop?.aborted) resolve(null);
    io.stop?.addEventListener("abort", () => resolve(null), { once: true });
    // A client that stopped reading its answers: end the connection, never drop one silently.
    peer.stuck.then((reason) => {
      report(`ending the connection: ${reason}`);
      resolve(null);
    });
  });
  let ended: "stopped" | "input" = "stopped";
  while (true) {
    // Back-pressure: no next request while the client's answers pile up unread (decision 0290).
    if (await Promise.race([peer.room(), stopped]) === null) break;
    const next = await Promise.race([messages.next(), stopped]);
    if (next === null) break;
    if (next.done) {
      ended = "input";
      break;
    }
    const message = next.value;
    switch (message.kind) {
      case "oversized":
        await peer.error(
          message.id,
          ErrorCode.invalidRequest,
          `Message of ${message.bytes} bytes is over the ${MAX_LINE_BYTES}-byte limit`,
        );
        continue;
      case "invalid":
        await peer.error(message.id, message.code, message.message);
        continue;
      case "response":
        revisions.response(message);
        continue;
      case "notification":
        revisions.notification(message);
        continue;
      case "request":
        await revisions.request(message);
    }
  }
  if (io.stop?.aborted || (ended === "input" && await io.inputLost?.())) {
    // No one is left to answer: the connection to the service ends now, so the calls still
    // queued there retire before they reach a page (issue 25). Calls already in the browser
    // run to their end on the service and are audited there.
    link.close();
    return;
  }
  await revisions.end();
  link.close();
  await peer.close();
}

/** Aborts when the process that started this one is gone (the remote shore's watch too). */
export function starterGone(): AbortSignal {
  return parentGone(Deno.ppid);
}

/** Aborts when the process that spawned the connector is gone (it was re-parented). */
function parentGone(parent: number): AbortSignal {
  const controller = new AbortController();
  const timer = setInterval(() => {
    if (Deno.ppid !== parent) {
      clearInterval(timer);
      controller.abort();
    }
  }, PARENT_CHECK_MS);
  Deno.unrefTimer(timer);
  return controller.signal;
}

if (import.meta.main) {
  // Read once, here; everything below receives them.
  const settings = readConnectorSettings((key) => Deno.env.get(key));
  let paths: InstancePaths;
  let args: ConnectorArgs;
  try {
    args = parseArgs(Deno.args);
    paths = instancePathsFromEnv(args.instance ?? settings.instance);
  } catch (error) {
    report((error as Error).message);
    Deno.exit(2);
  }
  const parent = Deno.ppid;
  const stop = parentGone(parent);
  stop.addEventListener("abort", () => report("the client that started this connector is gone"));
  await serve(paths, settings, {
    input: Deno.stdin,
    output: Deno.stdout.writable,
    stop,
    serviceEntry: args.serviceEntry,
    principal: args.principal,
    inputLost: async () => {
      const lost = await parentExits(parent);
      if (lost) report("the client that started this connector is gone");
      return lost;
    },
  });
  Deno.exit(0);
}
