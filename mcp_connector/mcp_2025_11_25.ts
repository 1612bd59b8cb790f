/**
 * MCP revision `2025-11-25` over stdio: initialize → notifications/initialized lifecycle, ping,
 * tools/list with list-changed notifications, tools/call, and cancellation. One implicit
 * workspace per connection, opened at the first tool call and released at a clean end.
 *
 * @module
 */

import { ErrorCode, type Incoming, type RequestId, RpcError, type StdioPeer } from "./jsonrpc.ts";
import { renderCallEnd } from "./render.ts";
import { type CatalogSnapshot, type ServiceLink, ServiceUnavailable } from "./service_link.ts";

/** The revision this module implements. */
export const REVISION = "2025-11-25";

type Request = Extract<Incoming, { kind: "request" }>;
type Notification = Extract<Incoming, { kind: "notification" }>;

interface Call {
  work: string | null;
  cancelled: boolean;
}

/** One client session speaking `2025-11-25`. */
export class Session2025 {
  #peer: StdioPeer;
  #link: ServiceLink;
  #server: { name: string; version: string };
  #state: "new" | "initialized" | "ready" = "new";
  #client = { name: "unknown client", version: "" };
  #workspace: Promise<string> | null = null;
  #calls = new Map<RequestId, Call>();
  #inFlight = new Set<Promise<void>>();
  #catalog: CatalogSnapshot | null = null;

  constructor(peer: StdioPeer, link: ServiceLink, server: { name: string; version: string }) {
    this.#peer = peer;
    this.#link = link;
    this.#server = server;
    link.onCatalogChanged(() => {
      this.#catalog = null;
      if (this.#state === "ready") this.#peer.notify("notifications/tools/list_changed");
    });
  }

  /** Handles one request; every request gets exactly one answer unless cancelled. */
  handleRequest(request: Request): void {
    const task = this.#answer(request).finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
  }

  /** Handles one notification. */
  handleNotification(notification: Notification): void {
    switch (notification.method) {
      case "notifications/initialized":
        if (this.#state === "initialized") this.#state = "ready";
        return;
      case "notifications/cancelled": {
        const id = notification.params.requestId as RequestId | undefined;
        const call = id === undefined ? undefined : this.#calls.get(id);
        if (!call) return;
        call.cancelled = true;
        if (call.work) this.#link.cancel(call.work);
        return;
      }
    }
  }

  /** The client closed stdin: let running calls settle briefly, then release the workspace. */
  async end(): Promise<void> {
    const settle = Promise.allSettled([...this.#inFlight]);
    await Promise.race([settle, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    if (this.#workspace) {
      const workspace = await this.#workspace.catch(() => null);
      if (workspace) this.#link.releaseWorkspace(workspace);
    }
  }

  async #answer(request: Request): Promise<void> {
    try {
      const result = await this.#dispatch(request);
      const call = this.#calls.get(request.id);
      this.#calls.delete(request.id);
      if (call?.cancelled) return;
      await this.#peer.result(request.id, result);
    } catch (error) {
      this.#calls.delete(request.id);
      if (error instanceof RpcError) {
        await this.#peer.error(request.id, error.code, error.message, error.data);
      } else {
        const message = error instanceof Error ? error.message : String(error);
        await this.#peer.error(request.id, ErrorCode.internalError, message);
      }
    }
  }

  async #dispatch(request: Request): Promise<unknown> {
    switch (request.method) {
      case "initialize":
        return await this.#initialize(request.params);
      case "ping":
        return {};
      case "tools/list":
        this.#requireReady();
        return await this.#listTools(request.params);
      case "tools/call":
        this.#requireReady();
        return await this.#callTool(request);
      default:
        throw new RpcError(ErrorCode.methodNotFound, `Method not found: ${request.method}`);
    }
  }

  #requireReady(): void {
    if (this.#state === "new") {
      throw new RpcError(ErrorCode.invalidRequest, "Send initialize first");
    }
    if (this.#state === "initialized") {
      throw new RpcError(
        ErrorCode.invalidRequest,
        "Send notifications/initialized before using tools",
      );
    }
  }

  async #initialize(params: Record<string, unknown>): Promise<unknown> {
    if (this.#state !== "new") {
      throw new RpcError(ErrorCode.invalidRequest, "initialize was already received");
    }
    const info = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
    if (
      typeof params.protocolVersion !== "string" ||
      typeof params.capabilities !== "object" || params.capabilities === null ||
      typeof info?.name !== "string" || typeof info.version !== "string"
    ) {
      throw new RpcError(
        ErrorCode.invalidParams,
        "initialize needs protocolVersion (string), capabilities (object) and clientInfo " +
          "{name, version}",
      );
    }
    this.#client = { name: info.name.slice(0, 200), version: info.version.slice(0, 100) };
    this.#link.setClient(this.#client);
    const catalog = await this.#fetchCatalog();
    this.#state = "initialized";
    return {
      protocolVersion: REVISION,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: this.#server.name, title: "Ghostlight", version: this.#server.version },
      instructions: catalog.instructions,
    };
  }

  async #fetchCatalog(): Promise<CatalogSnapshot> {
    if (this.#catalog) return this.#catalog;
    try {
      this.#catalog = await this.#link.catalog();
      return this.#catalog;
    } catch (error) {
      throw new RpcError(ErrorCode.internalError, (error as Error).message);
    }
  }

  async #listTools(params: Record<string, unknown>): Promise<unknown> {
    if (params.cursor !== undefined) {
      throw new RpcError(ErrorCode.invalidParams, "Invalid cursor: the tool list has one page");
    }
    const catalog = await this.#fetchCatalog();
    return {
      tools: catalog.tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
      })),
    };
  }

  #ensureWorkspace(): Promise<string> {
    this.#workspace ??= this.#link.openWorkspace(this.#client.name).catch((error) => {
      this.#workspace = null;
      throw error;
    });
    return this.#workspace;
  }

  async #callTool(request: Request): Promise<unknown> {
    const { name, arguments: args } = request.params as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string") {
      throw new RpcError(ErrorCode.invalidParams, "tools/call needs a tool name");
    }
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      throw new RpcError(ErrorCode.invalidParams, "tools/call arguments must be an object");
    }
    const catalog = await this.#fetchCatalog();
    if (!catalog.tools.some((tool) => tool.name === name)) {
      throw new RpcError(ErrorCode.invalidParams, `Unknown tool: ${name}`);
    }
    if (this.#calls.has(request.id)) {
      throw new RpcError(ErrorCode.invalidRequest, `Request id ${request.id} is already in use`);
    }
    const call: Call = { work: null, cancelled: false };
    this.#calls.set(request.id, call);
    try {
      const workspace = await this.#ensureWorkspace();
      const end = await this.#link.start({
        tool: name,
        arguments: (args ?? {}) as Record<string, unknown>,
        workspace,
        context: { client_name: this.#client.name, client_version: this.#client.version },
      }, (work) => {
        call.work = work;
        if (call.cancelled) this.#link.cancel(work);
      });
      if ("rejected" in end && end.rejected.kind === "unknown_tool") {
        throw new RpcError(ErrorCode.invalidParams, `Unknown tool: ${name}`);
      }
      return renderCallEnd(end);
    } catch (error) {
      if (error instanceof ServiceUnavailable) {
        return renderCallEnd({
          outcome: {
            kind: "not_dispatched",
            message: error.message,
            next_step: "Nothing was done in the browser; it is safe to retry.",
          },
        });
      }
      throw error;
    }
  }
}
