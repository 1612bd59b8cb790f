/**
 * The `openab` binding of MCP-over-ACP (issue 31, decision 0460): OpenAB's tunnel contract. Over
 * one WebSocket (the bearer in the subprotocol offer `openab.bearer.<token>, acp.v1`) the shore is
 * an ACP client that declares `{type: "acp", id, name}` in `session/new` (or re-declares it in
 * `session/resume` after a reconnect); the gateway opens MCP connections with `mcp/connect`
 * (answered with a fresh `connectionId`), carries flattened inner MCP `2025-11-25` in
 * `mcp/message` (requests answered by the outer id, notifications both ways, `initialize` and
 * `notifications/initialized` passed through), abandons a request with `mcp/cancel` and releases a
 * connection with `mcp/disconnect`.
 *
 * Each `connectionId` is one in-process MCP connection into the same `serve` the stdio connector
 * runs: one MCP implementation, another carrier.
 *
 * @module
 */

import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import type { AnyMessage, SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { InstancePaths } from "../shared/instance.ts";
import { VERSION } from "../shared/version.ts";
import { answerThenClose, InnerConnector } from "./remote_inner.ts";
import type { AgentPermissions } from "./remote_permission.ts";
import type { ShorePrompts } from "./remote_prompts.ts";
import type { ConnectorSettings } from "./settings.ts";
import type { Tunnel } from "./ws_stream.ts";

/** The contract's limits (`docs/mcp-over-acp-tunnel-contract.md` §7), applied on our side too. */
export const OPENAB_LIMITS = {
  /** Any frame: an inbound one over it closes the tunnel; an answer over it is sent as an error. */
  maxFrame: 8 * 1024 * 1024,
  /** A frame carrying a `method`: over it, answered with an error, the tunnel kept. */
  maxMethodFrame: 1024 * 1024,
  /** MCP connections open at once (the gateway accepts 8 servers per session). */
  maxConnections: 8,
  /** Inner requests open at once over one tunnel. */
  maxActiveRequests: 16,
} as const;

/** What survives a reconnect: the session to resume and the server's stable declaration id. */
export interface OpenabSession {
  sessionId: string | null;
  readonly serverId: string;
}

/** A new session's state: no session yet, a fresh declaration id. */
export function newOpenabSession(): OpenabSession {
  return { sessionId: null, serverId: crypto.randomUUID() };
}

/** How one tunnel of the binding is served. */
export interface OpenabOptions {
  name: string;
  serviceEntry?: string | null;
  stop: AbortSignal;
  /** Whether to declare the server (a remote whose pin is empty serves nothing). */
  declare: boolean;
  /** Told once the session is set up (a new session or a resumed one). */
  onReady: (serverId: string, resumed: boolean) => void;
  /** A line for the person (the shore's stderr). */
  say: (line: string) => void;
  /**
   * Aborted, with why, when the service ends the shore (decision 0520): each open call is
   * answered saying why, then the tunnel closes with the same words.
   */
  halt: AbortSignal;
  /** The agent host's own permission requests, put to the person (decision 0530). */
  permissions: AgentPermissions;
  /**
   * The person's prompts from the side panel (decision 0531): ACP `session/prompt` on this
   * tunnel's session, as the contract's base protocol has the client drive the chat session.
   */
  prompts: ShorePrompts;
}

type Id = string | number;
const RequestId = z.union([z.string().max(200), z.number().int()]);
const ConnectParams = z.object({ acpId: z.string().max(200) }).passthrough();
const ConnectionParams = z.object({ connectionId: z.string().max(200) }).passthrough();
const MessageParams = z.object({
  connectionId: z.string().max(200),
  method: z.string().min(1).max(200),
  params: z.record(z.string(), z.unknown()).optional(),
}).passthrough();
const CancelParams = z.object({ requestId: RequestId }).passthrough();
/** A `session/update` as the prompts read it: only an `agent_message_chunk`'s text is used. */
const SessionUpdate = z.object({
  sessionId: z.string().max(200),
  update: z.object({
    sessionUpdate: z.string().max(64),
    content: z.object({ type: z.string().max(64), text: z.string().optional() }).passthrough()
      .optional(),
  }).passthrough(),
}).passthrough();
const PromptAnswer = z.object({ stopReason: z.string().min(1).max(64) }).passthrough();
const Reply = z.object({
  id: RequestId,
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).passthrough().optional(),
}).passthrough();

/** A JSON-RPC error the binding answers with. */
class Refusal extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** One inner request in flight over this tunnel. */
interface Active {
  controller: AbortController;
  connectionId: string;
  what: string;
  /** Set when the gateway said it stopped waiting: no answer is sent. */
  abandoned: boolean;
}

/** One MCP connection the gateway opened. */
interface Connection {
  inner: InnerConnector;
  stop: AbortController;
}

/**
 * Serves one tunnel of the `openab` binding until it closes; resolves with why. Setup that fails
 * (no answer within the setup bound, `remoteSetupMs`; a refused `session/new`, a refused
 * `session/resume`) throws, and nothing was opened: the gateway's `mcp/connect` is refused until
 * the session is set up.
 */
export function serveOpenab(
  tunnel: Tunnel,
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: OpenabOptions,
  session: OpenabSession,
): Promise<string> {
  return new OpenabTunnel(tunnel, paths, settings, options, session).run();
}

/** One tunnel of the binding: its frames, its MCP connections and its requests in flight. */
class OpenabTunnel {
  readonly #writer: WritableStreamDefaultWriter<AnyMessage>;
  readonly #waiting = new Map<Id, PromiseWithResolvers<unknown>>();
  readonly #active = new Map<Id, Active>();
  readonly #connections = new Map<string, Connection>();
  readonly #served = new Set<Promise<void>>();
  /** The gateway's requests being answered: a Stop lets their answers out before it closes. */
  readonly #answering = new Set<Promise<void>>();
  /**
   * Settles once the session is set up (true) or not (false): a gateway connects only after the
   * session's answer, which may be read before the setup's own continuation has run.
   */
  readonly #established = Promise.withResolvers<boolean>();
  #nextId = 0;

  constructor(
    private readonly tunnel: Tunnel,
    private readonly paths: InstancePaths,
    private readonly settings: ConnectorSettings,
    private readonly options: OpenabOptions,
    private readonly session: OpenabSession,
  ) {
    this.#writer = tunnel.writable.getWriter();
  }

  async run(): Promise<string> {
    const pump = this.#pump();
    // The person's Stop (decision 0520): open calls answered, then the tunnel closed.
    const halted = answerThenClose(
      this.options.halt,
      this.tunnel.closed,
      this.tunnel,
      () => [...this.#connections.values()].map((connection) => connection.inner),
      () => this.#answering,
    ).then((why) => why ?? this.tunnel.closed);
    try {
      // The contract's 30 s to set up (`GHOSTLIGHT_REMOTE_SETUP_MS`).
      const setupMs = this.settings.remoteSetupMs;
      const deadline = Promise.withResolvers<never>();
      const timer = setTimeout(
        () => deadline.reject(new Error(`no session within ${seconds(setupMs)}`)),
        setupMs,
      );
      const resumed = await Promise.race([
        this.#setup(),
        this.tunnel.closed.then((why) => Promise.reject(new Error(why))),
        deadline.promise,
      ]).finally(() => clearTimeout(timer));
      this.#established.resolve(true);
      this.options.onReady(this.session.serverId, resumed);
      this.#takePrompts();
      return await Promise.race([this.tunnel.closed, pump, halted]);
    } catch (error) {
      const why = `setting up the session failed: ${(error as Error).message}`;
      this.tunnel.close(why);
      throw new Error(why);
    } finally {
      await this.#teardown();
    }
  }

  /** ACP `initialize`, then `session/resume` (after a reconnect) or `session/new`. */
  async #setup(): Promise<boolean> {
    const { paths, options, session } = this;
    await this.#request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "ghostlight", version: VERSION },
    });
    const mcpServers = options.declare
      ? [{ type: "acp", id: session.serverId, name: paths.mcpServerName }]
      : [];
    if (session.sessionId !== null) {
      try {
        await this.#request("session/resume", {
          sessionId: session.sessionId,
          cwd: "/",
          mcpServers,
        });
        return true;
      } catch (error) {
        // Nothing was opened; the next connection starts a new session.
        session.sessionId = null;
        throw new Error(`the gateway refused session/resume: ${(error as Error).message}`);
      }
    }
    const created = parse(
      z.object({ sessionId: z.string().min(1).max(200) }).passthrough(),
      await this.#request("session/new", { cwd: "/", mcpServers }),
    );
    session.sessionId = created.sessionId;
    return false;
  }

  /** From now on the person's prompts go to this tunnel's session (decision 0531). */
  #takePrompts(): void {
    const sessionId = this.session.sessionId;
    if (sessionId === null) return;
    this.options.prompts.start({
      prompt: async (id, text) =>
        parse(
          PromptAnswer,
          await this.#request("session/prompt", {
            sessionId: id,
            prompt: [{ type: "text", text }],
          }),
        ),
      cancel: (id) => this.#send({ method: "session/cancel", params: { sessionId: id } }),
    }, sessionId);
  }

  /** After the tunnel: open calls cancelled and said unknown, connections ended, all awaited. */
  async #teardown(): Promise<void> {
    this.#established.resolve(false);
    this.tunnel.close("the shore ended the session");
    // A call in flight when the tunnel dropped: its effect is unknown, and it is never repeated.
    for (const entry of this.#active.values()) {
      if (!entry.abandoned) {
        this.options.say(
          `${entry.what} was in flight when the tunnel closed: its outcome is unknown (cancelled ` +
            `here, not repeated)`,
        );
      }
      entry.controller.abort("the tunnel closed");
    }
    for (const id of [...this.#connections.keys()]) this.#release(id, "the tunnel closed");
    for (const answer of this.#waiting.values()) answer.reject(new Error("the tunnel closed"));
    await Promise.allSettled([...this.#served]);
  }

  async #send(message: Record<string, unknown>): Promise<void> {
    try {
      await this.#writer.write({ jsonrpc: "2.0", ...message } as AnyMessage);
    } catch {
      // The tunnel is closed; its closing says why.
    }
  }

  async #request(method: string, params: unknown): Promise<unknown> {
    const id = ++this.#nextId;
    const answer = Promise.withResolvers<unknown>();
    this.#waiting.set(id, answer);
    await this.#send({ id, method, params });
    return answer.promise.finally(() => this.#waiting.delete(id));
  }

  /** Ends one MCP connection and its open calls; false when there is none by that id. */
  #release(connectionId: string, why: string): boolean {
    const connection = this.#connections.get(connectionId);
    if (connection === undefined) return false;
    this.#connections.delete(connectionId);
    for (const entry of this.#active.values()) {
      if (entry.connectionId === connectionId) entry.controller.abort(why);
    }
    connection.stop.abort(why);
    connection.inner.end();
    return true;
  }

  /** `mcp/connect`: a new MCP connection for the declared server. */
  async #connect(params: unknown): Promise<unknown> {
    const { acpId } = parse(ConnectParams, params);
    const { options, session } = this;
    if (!await this.#established.promise || !options.declare || acpId !== session.serverId) {
      throw new Refusal(-32602, `no MCP server is declared with the id ${acpId.slice(0, 80)}`);
    }
    if (this.#connections.size >= OPENAB_LIMITS.maxConnections) {
      throw new Refusal(
        -32000,
        `at most ${OPENAB_LIMITS.maxConnections} MCP connections are open at once`,
      );
    }
    const connectionId = crypto.randomUUID();
    const stop = new AbortController();
    const inner = new InnerConnector(this.paths, this.settings, {
      name: options.name,
      serviceEntry: options.serviceEntry,
      stop: AbortSignal.any([options.stop, stop.signal]),
      onNotification: ({ method, params }) =>
        this.#send({
          method: "mcp/message",
          params: { connectionId, method, params: params ?? {} },
        }),
    });
    this.#connections.set(connectionId, { inner, stop });
    const done = inner.served.finally(() => this.#served.delete(done));
    this.#served.add(done);
    return { connectionId };
  }

  /** `mcp/message` with an id: one inner request, answered by the outer id. */
  async #message(params: unknown, id: Id): Promise<unknown> {
    const message = parse(MessageParams, params);
    const connection = this.#connections.get(message.connectionId);
    if (connection === undefined) {
      throw new Refusal(-32602, `no MCP connection ${message.connectionId.slice(0, 80)} is open`);
    }
    if (this.#active.size >= OPENAB_LIMITS.maxActiveRequests) {
      throw new Refusal(
        -32000,
        `at most ${OPENAB_LIMITS.maxActiveRequests} tunnelled requests are open at once`,
      );
    }
    const controller = new AbortController();
    const entry: Active = {
      controller,
      connectionId: message.connectionId,
      what: describe(message.method, message.params),
      abandoned: false,
    };
    this.#active.set(id, entry);
    // The contract's 180 s per tunnelled request (`GHOSTLIGHT_REMOTE_REQUEST_MS`): the gateway
    // stops waiting then, so the call is cancelled here and the gateway told why.
    const requestMs = this.settings.remoteRequestMs;
    let overdue = false;
    const timer = setTimeout(() => {
      overdue = true;
      controller.abort(`no answer within ${seconds(requestMs)}`);
    }, requestMs);
    const seen = this.options.prompts.callStarted(message.method, message.params);
    try {
      const answer = await connection.inner.request(
        message.method,
        message.params ?? {},
        controller.signal,
      );
      this.options.prompts.callEnded(seen, answer);
      if (entry.abandoned) throw abandoned;
      if (overdue) {
        this.options.say(
          `${entry.what} ran past the tunnel's ${seconds(requestMs)} bound: cancelled here, its ` +
            "outcome unknown",
        );
        throw new Refusal(
          -32000,
          `${entry.what} did not finish within the tunnel's ${seconds(requestMs)} bound per ` +
            "request; it was cancelled (its outcome is unknown: look before retrying)",
        );
      }
      if (answer.error !== undefined) throw new Refusal(answer.error.code, answer.error.message);
      return answer.result ?? {};
    } finally {
      clearTimeout(timer);
      this.#active.delete(id);
    }
  }

  /** The gateway's requests, by method. */
  #handle(method: string, params: unknown, id: Id): Promise<unknown> {
    switch (method) {
      case "mcp/connect":
        return this.#connect(params);
      case "mcp/message":
        return this.#message(params, id);
      case "mcp/disconnect": {
        const { connectionId } = parse(ConnectionParams, params);
        if (!this.#release(connectionId, "the gateway disconnected (mcp/disconnect)")) {
          throw new Refusal(-32602, `no MCP connection ${connectionId.slice(0, 80)} is open`);
        }
        return Promise.resolve({});
      }
      case "session/request_permission":
        // The person decides (decision 0530).
        return this.options.permissions.answer(params);
      default:
        throw new Refusal(-32601, `${method.slice(0, 80)} is not served`);
    }
  }

  /** The gateway's notifications: an inner notification, or `mcp/cancel`. */
  #notice(method: string, params: unknown): void {
    if (method === "mcp/message") {
      const message = parse(MessageParams, params);
      this.#connections.get(message.connectionId)?.inner.notify(message.method, message.params);
    } else if (method === "session/update") {
      // The agent's reply to the person's prompt, for the side panel (decision 0531).
      const update = parse(SessionUpdate, params);
      this.options.prompts.update(update as unknown as SessionNotification);
    } else if (method === "mcp/cancel") {
      const { requestId } = parse(CancelParams, params);
      const entry = this.#active.get(requestId);
      if (entry === undefined) return;
      entry.abandoned = true;
      entry.controller.abort("the gateway cancelled the request (mcp/cancel)");
    }
  }

  async #answer(id: Id, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.#handle(method, params, id);
      const bytes = JSON.stringify({ jsonrpc: "2.0", id, result }).length;
      if (bytes > OPENAB_LIMITS.maxFrame) {
        // The gateway would close the whole connection on it: say so instead.
        throw new Refusal(
          -32000,
          `the answer is ${bytes} bytes, over the tunnel's ${OPENAB_LIMITS.maxFrame}-byte frame ` +
            `limit; ask for less (a smaller page, max_chars)`,
        );
      }
      await this.#send({ id, result });
    } catch (error) {
      if (error === abandoned) return;
      const code = error instanceof Refusal ? error.code : -32603;
      await this.#send({ id, error: { code, message: (error as Error).message } });
    }
  }

  /** Reads the gateway's frames until the tunnel ends. */
  async #pump(): Promise<string> {
    const frames = this.tunnel.readable as unknown as AsyncIterable<Record<string, unknown>>;
    for await (const message of frames) {
      if (typeof message.method === "string") {
        if (!("id" in message)) {
          try {
            this.#notice(message.method, message.params);
          } catch {
            // A malformed notification is dropped: there is no id to answer.
          }
          continue;
        }
        const id = RequestId.safeParse(message.id);
        if (id.success) {
          const answering = this.#answer(id.data, message.method, message.params)
            .finally(() => this.#answering.delete(answering));
          this.#answering.add(answering);
        }
        continue;
      }
      const reply = Reply.safeParse(message);
      const answer = reply.success ? this.#waiting.get(reply.data.id) : undefined;
      if (!reply.success || answer === undefined) continue;
      if (reply.data.error !== undefined) answer.reject(new Error(reply.data.error.message));
      else answer.resolve(reply.data.result);
    }
    return "the gateway's messages ended";
  }
}

/** Marks an answer nobody reads (the gateway sent `mcp/cancel`). */
const abandoned = new Error("abandoned");

function parse<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Refusal(
      -32602,
      `invalid params: ${issue.path.join(".") || "params"}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** How a request is named in the person's log: its method and, for a call, its tool. */
function describe(method: string, params: Record<string, unknown> | undefined): string {
  const tool = method === "tools/call" && typeof params?.name === "string"
    ? ` ${params.name.slice(0, 64)}`
    : "";
  return `${method.slice(0, 64)}${tool}`;
}

/** A bound in seconds, as the person reads it. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
