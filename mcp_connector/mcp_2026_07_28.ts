/**
 * MCP revision `2026-07-28` over stdio: no handshake; every request carries its own version,
 * capabilities and (optionally) client identity in `_meta` and is validated on its own, never
 * borrowing from an earlier one. `server/discover`, `tools/list` (cacheable), `tools/call`,
 * `subscriptions/listen`; every result has `resultType` and the server's identity. Browser state
 * travels as an explicit `workspaceId` argument minted by the context-creating tools.
 *
 * @module
 */

import { CatalogCache, listedTools } from "./catalog_cache.ts";
import { CallRestriction, MAX_HANDLE, type ToolDescriptor } from "../shared/bridge.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import {
  type CallBook,
  END_GRACE_MS,
  type ProgressToken,
  progressTokenOf,
  readToolCall,
} from "./calls.ts";
import { ErrorCode, type Incoming, type RequestId, RpcError, type StdioPeer } from "./jsonrpc.ts";
import { CallQuestions, choiceOf, declaresForm } from "./elicitation.ts";
import { inputKey, Parking } from "./input_required.ts";
import { renderCallEnd, type ToolResult } from "./render.ts";
import { report } from "./report.ts";
import type { CallEnd, ServiceLink } from "./service_link.ts";

/** The revision this module implements. */
export const REVISION = "2026-07-28";

/** The `_meta` keys this revision defines. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  /** Ghostlight's own: a restriction of this one call, on top of the person's policy. */
  restriction: "com.ghostlight/restriction",
} as const;

/** How long clients may reuse a `server/discover` result. */
export const DISCOVER_TTL_MS = 3_600_000;
/** How long clients may reuse a `tools/list` result; listeners hear of changes sooner. */
export const TOOLS_TTL_MS = 300_000;

/** Listen streams one connection may hold open at once. */
export const MAX_SUBSCRIPTIONS = 16;

/** The methods this revision serves; every other one (including removed ones) is -32601. */
const METHODS = new Set(["server/discover", "tools/list", "tools/call", "subscriptions/listen"]);

// No description: it would be repeated on every tool the agent reads (the tools list must stay
// under its budget); the rule is told once, on the two tools that mint one, and in the
// instructions.
const WORKSPACE_ID_SCHEMA = { type: "string" };

/** The handle's retention policy, told where the handle is created (tools page, "Lifetime"). */
const WORKSPACE_LIFETIME = " Without a workspaceId it starts a new workspace and returns its " +
  "workspaceId: pass it on every later browser call. A workspace lasts while this connection is " +
  "open and about a minute after; an expired one is reported unknown: start a new one.";

type Request = Extract<Incoming, { kind: "request" }>;
type Notification = Extract<Incoming, { kind: "notification" }>;

/** Who the server is, as results carry it. */
export interface ServerIdentity {
  name: string;
  version: string;
}

/** What one request's envelope says, once validated. */
export interface Envelope {
  client: { name: string; version: string } | null;
  progressToken?: ProgressToken;
  /** The call's own restriction (`com.ghostlight/restriction`), as the caller wrote it. */
  restriction?: CallRestriction;
  /** This request's capabilities declare form elicitation (decision 0430). */
  elicitation?: true;
}

function metaOf(params: Record<string, unknown>): Record<string, unknown> | null {
  const meta = params._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta)
    ? meta as Record<string, unknown>
    : null;
}

/** Whether a request carries this revision's envelope at all (what binds the process). */
export function hasEnvelope(params: Record<string, unknown>): boolean {
  const meta = metaOf(params);
  return meta !== null && META.protocolVersion in meta;
}

/** The `-32022` error for a version this process cannot serve. */
export function unsupportedVersion(requested: unknown, supported: readonly string[]): RpcError {
  return new RpcError(ErrorCode.unsupportedProtocolVersion, "Unsupported protocol version", {
    supported: [...supported],
    requested,
  });
}

/**
 * Validates one request's envelope: the version (missing → -32602, unsupported → -32022 with
 * `supported`), then the capabilities (missing → -32602). Client info is optional and used only
 * for presentation and audit.
 */
export function readEnvelope(
  params: Record<string, unknown>,
  supported: readonly string[],
): Envelope {
  const meta = metaOf(params);
  const version = meta?.[META.protocolVersion];
  if (typeof version !== "string") {
    throw new RpcError(
      ErrorCode.invalidParams,
      `Every request needs params._meta["${META.protocolVersion}"] (a string such as ` +
        `"${REVISION}")`,
    );
  }
  if (version !== REVISION) throw unsupportedVersion(version, supported);
  const capabilities = meta![META.clientCapabilities];
  if (typeof capabilities !== "object" || capabilities === null || Array.isArray(capabilities)) {
    throw new RpcError(
      ErrorCode.invalidParams,
      `Every request needs params._meta["${META.clientCapabilities}"] (an object; {} declares ` +
        "none)",
    );
  }
  const info = meta![META.clientInfo] as { name?: unknown; version?: unknown } | undefined;
  const client = typeof info?.name === "string"
    ? {
      name: info.name.slice(0, 200),
      version: typeof info.version === "string" ? info.version.slice(0, 100) : "",
    }
    : null;
  const progressToken = progressTokenOf(params);
  const restriction = readRestriction(meta![META.restriction]);
  return {
    client,
    ...(progressToken === undefined ? {} : { progressToken }),
    ...(restriction === undefined ? {} : { restriction }),
    ...(declaresForm(capabilities) ? { elicitation: true } : {}),
  };
}

/**
 * A call's `com.ghostlight/restriction`: `{"capabilities": [...], "hosts": [...]}`, both
 * optional lists of strings. Its shape is checked here (-32602); what the strings say is the
 * service's to judge, and one it cannot read refuses the call.
 */
function readRestriction(raw: unknown): CallRestriction | undefined {
  if (raw === undefined) return undefined;
  const { capabilities, hosts, ...rest } = (typeof raw === "object" && raw !== null &&
      !Array.isArray(raw)
    ? raw
    : { invalid: true }) as Record<string, unknown>;
  const restriction = {
    source: `the call's _meta "${META.restriction}"`,
    ...(capabilities === undefined ? {} : { capabilities: capabilities as string[] }),
    ...(hosts === undefined ? {} : { hosts: hosts as string[] }),
  };
  // Checked by the bridge's own schema (how long a capability, how many): a restriction the
  // service's schema refuses would end this connection's session, every call on it with it.
  if (Object.keys(rest).length > 0 || !CallRestriction.safeParse(restriction).success) {
    throw new RpcError(
      ErrorCode.invalidParams,
      `params._meta["${META.restriction}"] must be an object with optional string lists ` +
        '"capabilities" (read, action, write, execute) and "hosts" (example.com, ' +
        "*.example.com, *)",
    );
  }
  return restriction;
}

function stamp(server: ServerIdentity, result: Record<string, unknown>): Record<string, unknown> {
  return {
    resultType: "complete",
    ...result,
    _meta: { ...(result._meta as object ?? {}), [META.serverInfo]: { ...server } },
  };
}

/** The `server/discover` result. Needs no service: probes must stay free of side effects. */
export function discoverResult(
  server: ServerIdentity,
  supportedVersions: readonly string[],
): Record<string, unknown> {
  return stamp(server, {
    supportedVersions: [...supportedVersions],
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
    ttlMs: DISCOVER_TTL_MS,
    cacheScope: "public",
  });
}

/**
 * A tool as this revision lists it: every tool that can use a workspace (the stateful ones, and
 * update_plan, whose plan is shown with the workspace) accepts an optional `workspaceId`.
 */
export function listedTool(tool: ToolDescriptor): Record<string, unknown> {
  const inputSchema = tool.acceptsWorkspace
    ? {
      ...tool.inputSchema,
      properties: {
        ...(tool.inputSchema.properties as Record<string, unknown> | undefined ?? {}),
        workspaceId: WORKSPACE_ID_SCHEMA,
      },
    }
    : tool.inputSchema;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.createsContext ? tool.description + WORKSPACE_LIFETIME : tool.description,
    inputSchema,
    annotations: tool.annotations,
  };
}

interface Subscription {
  toolsListChanged: boolean;
}

/** One stdio connection speaking `2026-07-28`. Holds only in-flight requests and streams. */
export class Session2026 {
  #peer: StdioPeer;
  #link: ServiceLink;
  #calls: CallBook;
  #server: ServerIdentity;
  #catalog: CatalogCache;
  #subscriptions = new Map<RequestId, Subscription>();
  #identified = false;
  /** Calls whose question was put to the client, waiting for its retry (decision 0430). */
  #parking = new Parking(report);
  /** Retries waiting for a parked call's end, by request id: how each is cancelled. */
  #resumed = new Map<RequestId, () => void>();

  constructor(
    peer: StdioPeer,
    link: ServiceLink,
    options: { calls: CallBook; server: ServerIdentity },
  ) {
    this.#peer = peer;
    this.#link = link;
    this.#calls = options.calls;
    this.#server = options.server;
    this.#catalog = new CatalogCache(link, async () => {
      for (const [id, subscription] of this.#subscriptions) {
        if (!subscription.toolsListChanged) continue;
        await this.#peer.notify("notifications/tools/list_changed", {
          _meta: { [META.subscriptionId]: id },
        });
      }
    });
  }

  /** Handles one request; every request gets exactly one answer unless cancelled. */
  handleRequest(request: Request): void {
    const inUse = this.#subscriptions.has(request.id);
    this.#calls.serve(request.id, () => this.#answer(request), inUse);
  }

  /** Handles one notification: only cancellation means anything here. */
  handleNotification(notification: Notification): void {
    if (notification.method !== "notifications/cancelled") return;
    const id = notification.params.requestId;
    if (typeof id !== "string" && typeof id !== "number") return;
    if (this.#subscriptions.delete(id)) return;
    this.#resumed.get(id)?.();
    this.#calls.cancel(id);
  }

  /**
   * stdin closed: end listen streams — the graceful empty result, then the server-side
   * `notifications/cancelled` the cancellation page requires for a stream the server tears
   * down — and let running calls settle briefly.
   */
  async end(): Promise<void> {
    for (const id of this.#subscriptions.keys()) {
      await this.#peer.result(id, stamp(this.#server, { _meta: { [META.subscriptionId]: id } }));
      await this.#peer.notify("notifications/cancelled", {
        requestId: id,
        reason: "The server is shutting down.",
      });
    }
    this.#subscriptions.clear();
    await this.#calls.drain(END_GRACE_MS);
  }

  /** The result as this revision sends it (stamped), or null for a cancelled call. */
  async #answer(request: Request): Promise<Record<string, unknown> | null> {
    const result = await this.#dispatch(request);
    return result === null ? null : stamp(this.#server, result);
  }

  async #dispatch(request: Request): Promise<Record<string, unknown> | null> {
    if (!METHODS.has(request.method)) {
      throw new RpcError(
        ErrorCode.methodNotFound,
        `Method not found: ${request.method} (not part of ${REVISION})`,
      );
    }
    const envelope = readEnvelope(request.params, [REVISION]);
    if (envelope.client && !this.#identified) {
      // For `ghostlight status` only: which client this connection serves.
      this.#identified = true;
      this.#link.setClient(envelope.client);
    }
    switch (request.method) {
      case "server/discover":
        return discoverResult(this.#server, [REVISION]);
      case "tools/list":
        return await this.#listTools(request.params);
      case "tools/call":
        return await this.#callTool(request, envelope);
      default:
        return this.#listen(request);
    }
  }

  async #listTools(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (params.cursor !== undefined) {
      throw new RpcError(ErrorCode.invalidParams, "Invalid cursor: the tool list has one page");
    }
    const catalog = await this.#catalog.get();
    const tools = listedTools(catalog).map(listedTool);
    // A list the policy or a restriction narrowed is this connector's own: no shared cache may
    // keep it, and a policy reload can change it (list_changed says so).
    if (catalog.withheld.length > 0) return { tools, ttlMs: 0, cacheScope: "private" };
    return { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "public" };
  }

  #listen(request: Request): null {
    const filter = request.params.notifications;
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
      throw new RpcError(
        ErrorCode.invalidParams,
        'subscriptions/listen needs params.notifications, e.g. {"toolsListChanged":true}',
      );
    }
    if (this.#subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(
        ErrorCode.invalidRequest,
        `At most ${MAX_SUBSCRIPTIONS} listen streams may be open at once; cancel one first`,
      );
    }
    const toolsListChanged = (filter as Record<string, unknown>).toolsListChanged === true;
    this.#subscriptions.set(request.id, { toolsListChanged });
    this.#peer.notify("notifications/subscriptions/acknowledged", {
      _meta: { [META.subscriptionId]: request.id },
      notifications: toolsListChanged ? { toolsListChanged: true } : {},
    });
    // The stream stays open: it is answered only when the connector ends it.
    return null;
  }

  async #callTool(request: Request, envelope: Envelope): Promise<Record<string, unknown> | null> {
    const { tool, args } = readToolCall(request.params, await this.#catalog.get());
    const name = tool.name;
    if (request.params.requestState !== undefined) return await this.#resume(request, name);
    const { workspaceId, ...rest } = args;
    const toolArgs = tool.acceptsWorkspace ? rest : args;
    // A handle longer than any the service mints cannot be one; the bridge would refuse it.
    const malformed = typeof workspaceId !== "string" || workspaceId.length > MAX_HANDLE;
    if (tool.acceptsWorkspace && workspaceId !== undefined && malformed) {
      return { ...invalidWorkspaceId(name) };
    }
    const client = envelope.client ?? { name: "unknown client", version: "" };
    // Only a request that declared form elicitation has the person's questions put to it.
    const questions = envelope.elicitation ? new CallQuestions() : undefined;
    const ended = this.#calls.run(
      request.id,
      {
        tool: name,
        arguments: toolArgs,
        ...(tool.acceptsWorkspace && typeof workspaceId === "string"
          ? { workspace: workspaceId }
          : {}),
        context: {
          client_name: client.name,
          client_version: client.version,
          ...(envelope.restriction ? { restrictions: [envelope.restriction] } : {}),
          ...(questions ? { elicitation: true } : {}),
        },
      },
      envelope.progressToken,
      questions?.handler,
    );
    return await this.#until(request.id, name, ended, questions);
  }

  /**
   * The answer to a call's request: its end, or, when a question opens first and can be put to
   * the client, `input_required` with the form (the call is parked for the retry).
   */
  async #until(
    id: RequestId,
    tool: string,
    ended: Promise<CallEnd | null>,
    questions: CallQuestions | undefined,
    cancelled?: Promise<null>,
  ): Promise<Record<string, unknown> | null> {
    const first = await Promise.race([
      ended.then((end) => ({ end })),
      ...(cancelled ? [cancelled.then((end) => ({ end }))] : []),
      ...(questions ? [questions.next().then((asked) => ({ asked }))] : []),
    ]);
    if ("asked" in first) {
      const parked = this.#parking.park({ tool, ended, questions: questions!, asked: first.asked });
      if (parked !== null) {
        this.#calls.detach(id);
        return parked;
      }
      // Too many parked already: this question is left to the CLI and the popup.
      return await this.#until(id, tool, ended, undefined, cancelled);
    }
    const end = first.end;
    if (end === null) return null;
    if ("rejected" in end && end.rejected.kind === "unknown_tool") {
      throw new RpcError(ErrorCode.invalidParams, `Unknown tool: ${tool}`);
    }
    return { ...renderWithWorkspace(end) };
  }

  /**
   * A retry with the client's answer: the answer goes to the service while its question is still
   * open (the first answer from anywhere wins), and the retry waits for the call's end or its
   * next question.
   */
  async #resume(request: Request, tool: string): Promise<Record<string, unknown> | null> {
    const { requestState, inputResponses } = request.params as {
      requestState?: unknown;
      inputResponses?: unknown;
    };
    const parked = typeof requestState === "string" ? this.#parking.take(requestState) : undefined;
    if (!parked || parked.tool !== tool) return { ...noLongerWaiting(tool) };
    const { asked, questions } = parked;
    const responses = typeof inputResponses === "object" && inputResponses !== null
      ? inputResponses as Record<string, unknown>
      : {};
    const choice = choiceOf(responses[inputKey(asked.question)]);
    if (choice && questions.isOpen(asked.question)) {
      this.#link.answer(asked.seq, asked.question, choice);
    }
    const cancelled = new Promise<null>((resolve) => {
      this.#resumed.set(request.id, () => {
        this.#link.cancel(asked.seq);
        resolve(null);
      });
    });
    try {
      return await this.#until(request.id, tool, parked.ended, questions, cancelled);
    } finally {
      this.#resumed.delete(request.id);
    }
  }
}

/** The answer to a retry whose call is not parked (any more). */
function noLongerWaiting(tool: string): ToolResult {
  return {
    content: [{
      type: "text",
      text: `This ${tool} call's answer to the person's question came for a call that is no ` +
        "longer waiting for it (its end was kept for a while and then dropped, or the " +
        "connection restarted). Whether it ran is unknown: look at the page (tabs_context_mcp, " +
        "get_page_text) before trying again.",
    }],
    isError: true,
  };
}

function invalidWorkspaceId(tool: string): ToolResult {
  return {
    content: [{
      type: "text",
      text: `workspaceId must be the string that tabs_context_mcp or tabs_create_mcp returned.\n` +
        `Call ${tool} again with {"workspaceId":"ws_…", …}, or call tabs_context_mcp without ` +
        "one to start a new workspace.",
    }],
    isError: true,
  };
}

/** Renders a call's end; context-creating tools hand the model its `workspaceId`. */
export function renderWithWorkspace(end: CallEnd): ToolResult {
  const result = renderCallEnd(end);
  if (!("outcome" in end) || end.outcome.kind !== "success" || !end.outcome.workspace) {
    return result;
  }
  const workspaceId = end.outcome.workspace;
  return {
    content: [
      ...result.content,
      {
        type: "text",
        text: `workspaceId: ${workspaceId} — pass it as workspaceId on every later call in ` +
          "this workspace.",
      },
    ],
    structuredContent: { ...(result.structuredContent ?? {}), workspaceId },
    ...(result.isError ? { isError: true } : {}),
  };
}
