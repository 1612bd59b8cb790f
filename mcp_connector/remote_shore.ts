/**
 * The remote shore (issue 31, decision 0400): over one outbound WebSocket to an agent host it is
 * an ACP client, and it serves Ghostlight's tools to that host as an MCP server over the same
 * connection (MCP-over-ACP, the ACP SDK's `acp` binding: `session/new` declares
 * `{type: "acp", serverId, name}`, each `mcp/message` carries one inner MCP `2026-07-28` request).
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
import { VERSION } from "../shared/version.ts";
import { serve } from "./main.ts";
import { META } from "./mcp_2026_07_28.ts";
import { ShorePrompts } from "./remote_prompts.ts";
import type { ServiceLink } from "./service_link.ts";
import type { ConnectorSettings } from "./settings.ts";
import { openTunnel, type Tunnel, type TunnelBounds } from "./ws_stream.ts";

/** Inner MCP requests one remote may have open at once (more are refused with -33000). */
export const MAX_ACTIVE_REQUESTS = 16;

/** What the shore serves and where it dials. */
export interface ShoreOptions {
  /** The remote's name, as the person configured it. */
  name: string;
  url: URL;
  /** The token for the handshake, or none. */
  token: string | null;
  /** The fixed entry the shore may start the service with, if any. */
  serviceEntry?: string | null;
  /** Ends the shore (Ctrl-C). */
  stop: AbortSignal;
  /** Narrower bounds, for tests. */
  bounds?: Partial<TunnelBounds>;
  /** Told once the agent host has accepted the session that declares the tools. */
  onReady?: (serverId: string) => void;
}

/** An answer line from the in-process MCP connector, by the id the shore gave its request. */
type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/**
 * The in-process MCP connector the shore carries requests into: a line in for each inner
 * request, its answer out by id. Requests are bounded by {@linkcode MAX_ACTIVE_REQUESTS} (the
 * SDK refuses more before they reach here).
 */
class InnerConnector {
  #input: ReadableStreamDefaultController<Uint8Array> | null = null;
  #pending = new Map<number, (answer: Answer) => void>();
  #next = 0;
  #buffer = "";
  readonly served: Promise<void>;
  /** The person's prompts from the side panel (decision 0470). */
  readonly prompts: ShorePrompts;
  readonly #encoder = new TextEncoder();

  constructor(paths: InstancePaths, settings: ConnectorSettings, options: ShoreOptions) {
    const input = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#input = controller;
      },
    });
    const decoder = new TextDecoder();
    const output = new WritableStream<Uint8Array>({
      write: (chunk) => this.#lines(decoder.decode(chunk, { stream: true })),
    });
    let link: ServiceLink | null = null;
    this.served = serve(paths, settings, {
      input,
      output,
      stop: options.stop,
      serviceEntry: options.serviceEntry,
      remote: options.name,
      onLink: (made) => link = made,
    });
    this.prompts = new ShorePrompts(link!);
  }

  /** Sends one inner request and waits for its answer; a cancelled one is told to stop. */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Answer> {
    const id = ++this.#next;
    const answered = new Promise<Answer>((resolve) => this.#pending.set(id, resolve));
    this.#send({ jsonrpc: "2.0", id, method, params });
    const cancel = () => {
      if (!this.#pending.delete(id)) return;
      this.#send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "the agent host cancelled the request" },
      });
    };
    signal.addEventListener("abort", cancel, { once: true });
    return answered.finally(() => signal.removeEventListener("abort", cancel));
  }

  /** Ends the input: the connector finishes what it has and ends. */
  end(): void {
    try {
      this.#input?.close();
    } catch {
      // Already closed.
    }
    for (const resolve of this.#pending.values()) {
      resolve({ error: { code: -32603, message: "the remote shore is ending" } });
    }
    this.#pending.clear();
  }

  #send(message: unknown): void {
    this.#input?.enqueue(this.#encoder.encode(`${JSON.stringify(message)}\n`));
  }

  #lines(text: string): void {
    this.#buffer += text;
    let newline: number;
    while ((newline = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      let message: { id?: unknown; result?: unknown; error?: Answer["error"] };
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      // Notifications (progress) are not carried yet: each request's outcome is its answer.
      if (typeof message.id !== "number") continue;
      const resolve = this.#pending.get(message.id);
      if (resolve === undefined) continue;
      this.#pending.delete(message.id);
      resolve("error" in message ? { error: message.error } : { result: message.result });
    }
  }
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
 * Runs the shore until the tunnel closes or `stop` aborts; resolves with why it ended. Setup
 * that fails (the dial, ACP `initialize`, `session/new`) closes the tunnel and throws: nothing
 * is left half open.
 */
export async function runShore(
  paths: InstancePaths,
  settings: ConnectorSettings,
  options: ShoreOptions,
): Promise<string> {
  const tunnel: Tunnel = await openTunnel(options.url, options.token, {
    stallMs: settings.clientStallMs,
    ...options.bounds,
  });
  const inner = new InnerConnector(paths, settings, options);
  const provider = new McpOverAcpProvider();
  const app = client({ name: "ghostlight-remote-shore" })
    .onRequest(methods.client.mcp.message, provider.handleRequest)
    // The agent's words go to the person's side panel (decision 0470).
    .onNotification(methods.client.session.update, ({ params }) => inner.prompts.update(params))
    // Ghostlight asks the person itself (its policy); it grants nothing on an agent's ask.
    .onRequest(methods.client.session.requestPermission, () => ({
      outcome: { outcome: "cancelled" as const },
    }));
  const connection = app.connect({ readable: tunnel.readable, writable: tunnel.writable });
  const stopped = () => tunnel.close("the person stopped the remote shore");
  options.stop.addEventListener("abort", stopped, { once: true });
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
        const answer = await inner.request(context.method, innerParams(context), context.signal);
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
    options.onReady?.(server.serverId);
    inner.prompts.start(connection.agent, sessionId);
    return await Promise.race([
      tunnel.closed,
      connection.closed.then(() => "the ACP connection closed"),
    ]);
  } catch (error) {
    const why = `setting up the session failed: ${(error as Error).message}`;
    tunnel.close(why);
    throw new Error(why);
  } finally {
    options.stop.removeEventListener("abort", stopped);
    connection.close();
    inner.end();
    await inner.served;
  }
}
