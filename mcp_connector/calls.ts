/**
 * Tool calls in flight on one connection, shared by both revisions: the JSON-RPC id ↔ bridge seq
 * map, cancellation that reaches the service and silences the answer, the caller deadline that
 * answers `outcome_unknown` once while the work settles privately, and progress notifications
 * for callers that sent a progress token.
 *
 * @module
 */

import {
  CallRestriction,
  type ConnectorMessage,
  type Outcome,
  type ToolDescriptor,
} from "../shared/bridge.ts";
import { ErrorCode, type RequestId, RpcError, type StdioPeer } from "./jsonrpc.ts";
import {
  type AskHandler,
  type CallEnd,
  type CatalogSnapshot,
  type ServiceLink,
  ServiceUnavailable,
} from "./service_link.ts";
import type { ConnectorSettings } from "./settings.ts";

/**
 * Requests one connection may have unanswered at once, counting those still waiting for the
 * service's catalog or a workspace; more are refused rather than queued without bound.
 */
export const MAX_OPEN_REQUESTS = 256;

/** The connector's timing and restriction: the settings `main` read. */
export type CallSettings = Pick<
  ConnectorSettings,
  "callDeadlineMs" | "progressIntervalMs" | "restrictCapabilities" | "restrictHosts"
>;

/** The restriction this connector's environment puts on every call, if any. */
export function connectorRestriction(settings: CallSettings): CallRestriction | null {
  const { restrictCapabilities: capabilities, restrictHosts: hosts } = settings;
  if (capabilities === undefined && hosts === undefined) return null;
  const names = [
    capabilities && "GHOSTLIGHT_RESTRICT_CAPABILITIES",
    hosts && "GHOSTLIGHT_RESTRICT_HOSTS",
  ].filter((name) => name);
  const restriction = {
    source: `this connector's ${names.join(" and ")}`,
    ...(capabilities ? { capabilities } : {}),
    ...(hosts ? { hosts } : {}),
  };
  if (CallRestriction.safeParse(restriction).success) return restriction;
  // More or longer entries than a start carries: the service would take the start for a broken
  // connector and end the session. A capability no one has refuses every call, with the reason.
  return { source: restriction.source, capabilities: ["(too many/long)"] };
}

/** What a revision asks the service to start. */
export type StartRequest = Omit<Extract<ConnectorMessage, { type: "start" }>, "type" | "seq">;

/** A progress token: a string or an integer. */
export type ProgressToken = string | number;

interface Call {
  /** The seq its start was sent with, once sent: what cancels it at the service. */
  seq: number | null;
  finish: (end: CallEnd | null) => void;
  /** Stops its progress notifications: its request was answered while it runs on. */
  quiet: () => void;
}

/** A request admitted and not yet answered; `call` is set while its tool call runs. */
interface OpenRequest {
  cancelled: boolean;
  call: Call | null;
}

/**
 * The requests open on one connection, by JSON-RPC id, and the tool calls among them. An id is
 * admitted the moment its request arrives, before anything is awaited, so a reused id and an
 * early cancellation are both seen however early they come.
 */
export class CallBook {
  #link: ServiceLink;
  #peer: StdioPeer;
  #settings: CallSettings;
  #restriction: CallRestriction | null;
  #open = new Map<RequestId, OpenRequest>();
  #running = new Set<Promise<unknown>>();
  #answering = new Set<Promise<void>>();

  constructor(link: ServiceLink, peer: StdioPeer, settings: CallSettings) {
    this.#link = link;
    this.#peer = peer;
    this.#settings = settings;
    this.#restriction = connectorRestriction(settings);
  }

  /**
   * Admits a request as it arrives (synchronously, before any await). Throws -32600 when its id
   * is still open or the connection already has {@linkcode MAX_OPEN_REQUESTS} open.
   */
  admit(id: RequestId): void {
    if (this.#open.has(id)) {
      throw new RpcError(ErrorCode.invalidRequest, `Request id ${id} is already in use`);
    }
    if (this.#open.size >= MAX_OPEN_REQUESTS) {
      throw new RpcError(
        ErrorCode.invalidRequest,
        `${MAX_OPEN_REQUESTS} requests are already waiting for an answer on this connection; ` +
          "wait for some to be answered before sending more",
      );
    }
    this.#open.set(id, { cancelled: false, call: null });
  }

  /**
   * Admits a request and runs `answer` for it, then sends its result (nothing for null: a
   * cancelled call) or its error; a refused one (reused id, too many open, or `inUse` elsewhere
   * on the connection) is answered with its -32600 instead. The id is free again before its
   * answer is queued, so a client that reuses it as soon as it reads the answer is never told it
   * is in use. Every answer is tracked so {@linkcode drain} can wait for it.
   */
  serve(id: RequestId, answer: () => Promise<unknown>, inUse = false): void {
    let answering: Promise<void>;
    try {
      if (inUse) {
        throw new RpcError(ErrorCode.invalidRequest, `Request id ${id} is already in use`);
      }
      this.admit(id);
      answering = answer().then(
        (result) => {
          this.#open.delete(id);
          return result === null ? undefined : this.#peer.result(id, result);
        },
        (error) => {
          this.#open.delete(id);
          return this.#peer.failure(id, error);
        },
      );
    } catch (error) {
      answering = this.#peer.failure(id, error);
    }
    const tracked = answering.finally(() => this.#answering.delete(tracked));
    this.#answering.add(tracked);
  }

  /**
   * Runs one call for an admitted request. Resolves with its end, or with null when the client
   * cancelled it (before it started too), in which case nothing more may be sent for it.
   */
  run(
    id: RequestId,
    request: StartRequest,
    progressToken?: ProgressToken,
    asked?: AskHandler,
  ): Promise<CallEnd | null> {
    const open = this.#open.get(id);
    if (open === undefined || open.call !== null) {
      throw new Error(`request ${id} was not admitted, or already has a call running`);
    }
    if (open.cancelled) return Promise.resolve(null);
    const ended = new Promise<CallEnd | null>((resolve) => {
      const startedAt = Date.now();
      let progress = 0;
      const ticker = progressToken === undefined ? undefined : setInterval(() => {
        const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
        this.#peer.notify("notifications/progress", {
          progressToken,
          progress: ++progress,
          message: `${request.tool} is still running after ${seconds} s`,
        });
      }, this.#settings.progressIntervalMs);
      // The caller's deadline does not run while the call waits for the person: that wait has
      // its own bound in the service (the ask setting), which would otherwise be cut short. It
      // runs again, with what was left of it, when the question closes.
      let left = this.#settings.callDeadlineMs;
      let since = Date.now();
      const expire = () => call.finish({ outcome: deadlineOutcome(this.#settings.callDeadlineMs) });
      let deadline: ReturnType<typeof setTimeout> | undefined = setTimeout(expire, left);
      const asking = new Set<number>();
      const questionsOf: AskHandler = (message) => {
        if (message.type === "ask") {
          if (asking.size === 0 && deadline !== undefined) {
            clearTimeout(deadline);
            deadline = undefined;
            left = Math.max(0, left - (Date.now() - since));
          }
          asking.add(message.question);
        } else {
          asking.delete(message.question);
          if (asking.size === 0 && deadline === undefined && !done) {
            since = Date.now();
            deadline = setTimeout(expire, left);
          }
        }
        asked?.(message);
      };
      let done = false;
      const call: Call = {
        seq: null,
        finish: (end) => {
          if (done) return;
          done = true;
          if (open.call === call) open.call = null;
          clearTimeout(deadline);
          clearInterval(ticker);
          resolve(end);
        },
        quiet: () => clearInterval(ticker),
      };
      open.call = call;
      const onSent = (seq: number) => {
        call.seq = seq;
        if (open.cancelled) this.#link.cancel(seq);
      };
      // The link's own promise outlives a deadline or a cancellation: the work settles
      // privately and its late end is dropped here.
      const settled = this.#link.start(this.#restricted(request), onSent, questionsOf).then(
        (end) => call.finish(end),
        (error) => call.finish({ outcome: unreachableOutcome(error) }),
      ).finally(() => this.#running.delete(settled));
      this.#running.add(settled);
    });
    return ended;
  }

  /** The request with this connector's restriction added to its own (each can only tighten). */
  #restricted(request: StartRequest): StartRequest {
    if (this.#restriction === null) return request;
    const restrictions = [...(request.context.restrictions ?? []), this.#restriction];
    return { ...request, context: { ...request.context, restrictions } };
  }

  /**
   * Lets request `id` be answered while its call runs on (a `2026-07-28` question put to the
   * client in an `input_required` result): no more progress for it, and its id no longer
   * cancels the call; the promise {@linkcode run} returned still ends with the call, within the
   * same deadline.
   */
  detach(id: RequestId): void {
    const open = this.#open.get(id);
    const call = open?.call;
    if (!open || !call) return;
    call.quiet();
    open.call = null;
  }

  /** Cancels a call: the service retires or stops its work and the client hears nothing more. */
  cancel(id: RequestId): void {
    const open = this.#open.get(id);
    if (!open) return;
    open.cancelled = true;
    const call = open.call;
    if (call === null) return;
    if (call.seq !== null) this.#link.cancel(call.seq);
    call.finish(null);
  }

  /**
   * Waits up to `ms` for unanswered requests, then up to `ms` for works still settling on the
   * service, so their ends are not cut off.
   */
  async drain(ms: number): Promise<void> {
    await settleWithin([...this.#answering], ms);
    await settleWithin([...this.#running], ms);
  }
}

function deadlineOutcome(deadlineMs: number): Outcome {
  return {
    kind: "outcome_unknown",
    message: `The browser did not finish this call within ${deadlineMs / 1000} s; ` +
      "it may still be happening.",
    next_step: "Inspect the page (tabs_context_mcp, get_page_text or a screenshot) before " +
      "retrying; do not simply repeat it.",
  };
}

function unreachableOutcome(error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ServiceUnavailable) {
    return {
      kind: "not_dispatched",
      message: `The Ghostlight service could not be reached: ${message}.`,
      next_step: "Nothing was done in the browser; it is safe to retry.",
    };
  }
  return {
    kind: "outcome_unknown",
    message: `The call failed inside the connector: ${message}.`,
    next_step: "Inspect the page before retrying.",
  };
}

/** How long a closing connection waits for answers and works still in flight. */
export const END_GRACE_MS = 2_000;

/** Waits for `promises` to settle, but no longer than `ms`. */
export async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve) => timer = setTimeout(resolve, ms)),
  ]);
  clearTimeout(timer);
}

/** The progress token of a request, when it carries a valid one. */
export function progressTokenOf(params: Record<string, unknown>): ProgressToken | undefined {
  const meta = params._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const token = (meta as Record<string, unknown>).progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isInteger(token))
    ? token
    : undefined;
}

/**
 * The tool and arguments a `tools/call` names, checked the same way in both revisions: a missing
 * name, non-object arguments and an unknown tool are invalid params.
 */
export function readToolCall(
  params: Record<string, unknown>,
  catalog: CatalogSnapshot,
): { tool: ToolDescriptor; args: Record<string, unknown> } {
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") {
    throw new RpcError(
      ErrorCode.invalidParams,
      'tools/call needs a tool name, e.g. {"name":"tabs_context_mcp","arguments":{}}',
    );
  }
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    throw new RpcError(ErrorCode.invalidParams, "tools/call arguments must be an object");
  }
  const tool = catalog.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new RpcError(ErrorCode.invalidParams, `Unknown tool: ${name}`);
  return { tool, args: (args ?? {}) as Record<string, unknown> };
}
