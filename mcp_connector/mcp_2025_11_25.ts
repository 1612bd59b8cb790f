/**
 * MCP revision `2025-11-25` over stdio: initialize → notifications/initialized lifecycle, ping,
 * tools/list with list-changed notifications, tools/call with progress, and cancellation. One
 * implicit workspace per connection, opened at the first tool call and released at a clean end.
 * Logging is not advertised, so `logging/setLevel` is an unknown method.
 *
 * @module
 */

import { CatalogCache, listedTools } from "./catalog_cache.ts";
import {
  type CallBook,
  END_GRACE_MS,
  type ProgressToken,
  progressTokenOf,
  readToolCall,
} from "./calls.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { ErrorCode, type Incoming, type RequestId, RpcError, type StdioPeer } from "./jsonrpc.ts";
import { renderCallEnd, type ToolResult } from "./render.ts";
import { choiceOf, declaresForm, formParams } from "./elicitation.ts";
import type { AskHandler, CallEnd, ServiceLink } from "./service_link.ts";

/** The revision this module implements. */
export const REVISION = "2025-11-25";

type Request = Extract<Incoming, { kind: "request" }>;
type Notification = Extract<Incoming, { kind: "notification" }>;

type Response = Extract<Incoming, { kind: "response" }>;

/** Most questions put to this client at once; the service puts one per workspace. */
const MAX_ELICITING = 8;

/** The client identity an `initialize` carries. */
export interface ClientIdentity {
  name: string;
  version: string;
}

/**
 * Checks an `initialize` request's params; the switch binds this revision only for a valid one.
 * Returns the client's identity.
 */
export function readInitialize(params: Record<string, unknown>): ClientIdentity {
  const info = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
  if (
    typeof params.protocolVersion !== "string" ||
    typeof params.capabilities !== "object" || params.capabilities === null ||
    Array.isArray(params.capabilities) ||
    typeof info?.name !== "string" || typeof info.version !== "string"
  ) {
    throw new RpcError(
      ErrorCode.invalidParams,
      "initialize needs protocolVersion (string), capabilities (object) and clientInfo " +
        '{name, version}, e.g. {"protocolVersion":"2025-11-25","capabilities":{},' +
        '"clientInfo":{"name":"my-client","version":"1.0.0"}}',
    );
  }
  return { name: info.name.slice(0, 200), version: info.version.slice(0, 100) };
}

/** One client session speaking `2025-11-25`. */
export class Session2025 {
  #peer: StdioPeer;
  #link: ServiceLink;
  #calls: CallBook;
  #server: { name: string; version: string };
  #state: "new" | "initialized" | "ready" = "new";
  #client: ClientIdentity = { name: "unknown client", version: "" };
  #workspace: Promise<string> | null = null;
  #catalog: CatalogCache;
  /** The client declared form elicitation at initialize. */
  #elicitation = false;
  /** Questions put to the client, by the request id sent: the call's seq and question. */
  #eliciting = new Map<string, { seq: number; question: number }>();

  constructor(
    peer: StdioPeer,
    link: ServiceLink,
    options: { calls: CallBook; server: { name: string; version: string } },
  ) {
    this.#peer = peer;
    this.#link = link;
    this.#calls = options.calls;
    this.#server = options.server;
    this.#catalog = new CatalogCache(link, async () => {
      if (this.#state === "ready") await this.#peer.notify("notifications/tools/list_changed");
    });
  }

  /** Handles one request; every request gets exactly one answer unless cancelled. */
  handleRequest(request: Request): void {
    this.#calls.serve(request.id, () => this.#dispatch(request));
  }

  /** Handles one notification. */
  handleNotification(notification: Notification): void {
    switch (notification.method) {
      case "notifications/initialized":
        if (this.#state === "initialized") this.#state = "ready";
        return;
      case "notifications/cancelled": {
        const id = notification.params.requestId;
        if (typeof id === "string" || typeof id === "number") this.#calls.cancel(id);
        return;
      }
    }
  }

  /**
   * The client's answer to a question put by elicitation: "accept" with a choice is the
   * person's answer; "decline" is a no; "cancel", an error or anything else leaves the question
   * to the person's other surfaces.
   */
  handleResponse(response: Response): void {
    const key = String(response.id);
    const asked = this.#eliciting.get(key);
    if (!asked) return;
    this.#eliciting.delete(key);
    const choice = choiceOf(response.result);
    if (choice) this.#link.answer(asked.seq, asked.question, choice);
  }

  /**
   * What this session does with a call's questions: puts them to the client, or nothing; and,
   * when the call ends however it ends (a broken service link sends no `withdraw`), takes back
   * the forms still open for it.
   */
  #asked(): { handler?: AskHandler; ended: () => void } {
    if (!this.#elicitation) return { ended: () => {} };
    const mine = new Set<string>();
    const withdraw = (key: string) => {
      mine.delete(key);
      // Answered elsewhere, or ended: the client's form is taken back.
      if (this.#eliciting.delete(key)) {
        this.#peer.notify("notifications/cancelled", {
          requestId: key,
          reason: "answered elsewhere, or the call ended",
        });
      }
    };
    const handler: AskHandler = (message) => {
      const key = `ghostlight-question-${message.question}`;
      if (message.type === "withdraw") return withdraw(key);
      if (this.#eliciting.size >= MAX_ELICITING || this.#eliciting.has(key)) return;
      this.#eliciting.set(key, { seq: message.seq, question: message.question });
      mine.add(key);
      this.#peer.request(key, "elicitation/create", formParams(message.message));
    };
    return { handler, ended: () => [...mine].forEach(withdraw) };
  }

  /** The client closed stdin: let running calls settle briefly, then release the workspace. */
  async end(): Promise<void> {
    await this.#calls.drain(END_GRACE_MS);
    if (this.#workspace) {
      const workspace = await this.#workspace.catch(() => null);
      if (workspace) await this.#link.releaseWorkspace(workspace);
    }
  }

  /** Resolves with the result, or null for a cancelled call (nothing is sent). */
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
    if (this.#state !== "ready") {
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
    this.#client = readInitialize(params);
    this.#elicitation = declaresForm(params.capabilities);
    this.#link.setClient(this.#client);
    // Reaches the service (starting it on demand) before answering, so a client learns at
    // initialize that it cannot be reached; the catalog then stays cached for tools/list.
    await this.#catalog.get();
    this.#state = "initialized";
    return {
      protocolVersion: REVISION,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: this.#server.name, title: "Ghostlight", version: this.#server.version },
      instructions: INSTRUCTIONS,
    };
  }

  async #listTools(params: Record<string, unknown>): Promise<unknown> {
    if (params.cursor !== undefined) {
      throw new RpcError(ErrorCode.invalidParams, "Invalid cursor: the tool list has one page");
    }
    const catalog = await this.#catalog.get();
    return {
      tools: listedTools(catalog).map((tool) => ({
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

  async #callTool(request: Request): Promise<ToolResult | null> {
    const { tool, args } = readToolCall(request.params, await this.#catalog.get());
    const name = tool.name;
    const end = await this.#run(request.id, name, args, {
      progressToken: progressTokenOf(request.params),
      retryOnLostWorkspace: true,
    });
    if (end === null) return null;
    if ("rejected" in end && end.rejected.kind === "unknown_tool") {
      throw new RpcError(ErrorCode.invalidParams, `Unknown tool: ${name}`);
    }
    return renderCallEnd(end);
  }

  async #run(
    id: RequestId,
    tool: string,
    args: Record<string, unknown>,
    options: { progressToken?: ProgressToken; retryOnLostWorkspace: boolean },
  ): Promise<CallEnd | null> {
    let workspace: string;
    try {
      workspace = await this.#ensureWorkspace();
    } catch (error) {
      return {
        outcome: {
          kind: "not_dispatched",
          message: `Could not open a browser workspace: ${(error as Error).message}.`,
          next_step: "Nothing was done in the browser; it is safe to retry.",
        },
      };
    }
    const asked = this.#asked();
    const end = await this.#calls.run(
      id,
      {
        tool,
        arguments: args,
        workspace,
        context: {
          client_name: this.#client.name,
          client_version: this.#client.version,
          ...(this.#elicitation ? { elicitation: true } : {}),
        },
      },
      options.progressToken,
      asked.handler,
    ).finally(asked.ended);
    // A restarted service no longer knows this connection's workspace; a rejection means
    // nothing started, so open a fresh one and try once more.
    if (
      end !== null && "rejected" in end && end.rejected.kind === "no_workspace" &&
      options.retryOnLostWorkspace
    ) {
      this.#workspace = null;
      return await this.#run(id, tool, args, { ...options, retryOnLostWorkspace: false });
    }
    return end;
  }
}
