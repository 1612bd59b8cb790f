/**
 * The JSON-RPC 2.0 core over stdio shared by both MCP revisions: bounded line reading, message
 * classification with the right error codes, and serialised writing to stdout. Nothing but
 * protocol goes to stdout.
 *
 * @module
 */

import { BoundedWriter, type ByteSource, encodeLine, LineReader } from "../shared/framing.ts";

/**
 * The largest MCP message line accepted from a client. It must admit the largest upload a tool
 * accepts (`MAX_UPLOAD_BYTES`, 8 MiB, in `shared/transfer.ts`): its base64 is 10.7 MiB, and the
 * rest leaves over 1 MiB for the request around it (a test holds the two together).
 */
export const MAX_LINE_BYTES = 12 * 1024 * 1024;
/** Messages that may wait for stdout before the connector treats the client as stuck. */
const MAX_QUEUED_OUT = 1024;
/** Bytes that may wait for stdout before the connector treats the client as stuck. */
const MAX_QUEUED_OUT_BYTES = 64 * 1024 * 1024;

/** JSON-RPC and MCP error codes used by the connector. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  unsupportedProtocolVersion: -32022,
} as const;

/** A JSON-RPC request id: a string or an integer, never null. */
export type RequestId = string | number;

/** A message read from the client, classified. */
export type Incoming =
  | { kind: "request"; id: RequestId; method: string; params: Record<string, unknown> }
  | { kind: "notification"; method: string; params: Record<string, unknown> }
  | { kind: "response"; id: RequestId; result?: unknown; error?: unknown }
  | { kind: "invalid"; id: RequestId | null; code: number; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function validId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/** Classifies one line of input. Never throws. */
export function classify(line: string): Incoming {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: "invalid", id: null, code: ErrorCode.parseError, message: "Parse error" };
  }
  if (Array.isArray(message)) {
    return {
      kind: "invalid",
      id: null,
      code: ErrorCode.invalidRequest,
      message: "Batches are not supported; send one JSON-RPC message per line",
    };
  }
  if (!isRecord(message) || message.jsonrpc !== "2.0") {
    const id = isRecord(message) && validId(message.id) ? message.id : null;
    return { kind: "invalid", id, code: ErrorCode.invalidRequest, message: "Invalid Request" };
  }
  const hasId = "id" in message;
  if (hasId && !validId(message.id)) {
    return {
      kind: "invalid",
      id: null,
      code: ErrorCode.invalidRequest,
      message: "Invalid Request: id must be a string or an integer",
    };
  }
  if (typeof message.method !== "string") {
    if (hasId && ("result" in message || "error" in message)) {
      return {
        kind: "response",
        id: message.id as RequestId,
        ...("result" in message ? { result: message.result } : { error: message.error }),
      };
    }
    return {
      kind: "invalid",
      id: hasId ? message.id as RequestId : null,
      code: ErrorCode.invalidRequest,
      message: "Invalid Request: method must be a string",
    };
  }
  if (message.params !== undefined && !isRecord(message.params)) {
    return {
      kind: "invalid",
      id: hasId ? message.id as RequestId : null,
      code: hasId ? ErrorCode.invalidParams : ErrorCode.invalidRequest,
      message: "Invalid params: params must be an object",
    };
  }
  const params = (message.params ?? {}) as Record<string, unknown>;
  if (!hasId) return { kind: "notification", method: message.method, params };
  return { kind: "request", id: message.id as RequestId, method: message.method, params };
}

/** A JSON-RPC error to send back for a request. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

/** How long answers may wait unread before the connector treats the client as stuck. */
export const DEFAULT_STALL_MS = 60_000;

/** The connector's outbound bounds, with the stall bound its settings give. */
export function peerBounds(stallMs = DEFAULT_STALL_MS): PeerBounds {
  return { maxWaiting: MAX_QUEUED_OUT, maxBytes: MAX_QUEUED_OUT_BYTES, stallMs };
}

/** What may wait for a client, and how long it may leave it unread. */
export interface PeerBounds {
  /** Messages that may wait; the reader holds off at half of it. */
  maxWaiting: number;
  /** Bytes that may wait; the reader holds off at half of it. */
  maxBytes: number;
  /** How long waiting answers may go without one being taken before the client is stuck. */
  stallMs: number;
}

/**
 * Writes protocol messages to the client, one per line, in order. Reading pushes back: while half
 * the outbound bounds wait for the client, {@linkcode room} holds the reader off, so a burst of
 * requests is answered at the pace the client reads (decision 0290). A client that leaves its
 * answers unread for `stallMs`, or lets the outbound bounds overflow all the same, is stuck:
 * {@linkcode stuck} resolves and the connection ends, rather than a response going missing
 * silently.
 */
export class StdioPeer {
  #writer: BoundedWriter;
  #bounds: PeerBounds;
  #stuck = Promise.withResolvers<string>();
  #isStuck = false;
  #room: PromiseWithResolvers<void> | null = null;
  /** When a write last completed, or something began to wait while nothing else did. */
  #progressAt = Date.now();
  #stallTimer: ReturnType<typeof setInterval>;

  constructor(writable: WritableStream<Uint8Array>, bounds: PeerBounds = peerBounds()) {
    this.#bounds = bounds;
    this.#writer = new BoundedWriter(writable, {
      maxWaiting: bounds.maxWaiting,
      maxBytes: bounds.maxBytes,
      onOverflow: (error) => this.#giveUp(error.message),
    });
    this.#stallTimer = setInterval(() => {
      const idle = Date.now() - this.#progressAt;
      if (this.#writer.waiting === 0 || idle < bounds.stallMs) return;
      this.#giveUp(
        `the client has not read its answers for ${Math.round(idle / 1000)} s ` +
          `(${this.#writer.waiting} waiting; the bound is ${bounds.stallMs} ms)`,
      );
    }, Math.max(10, Math.min(1_000, bounds.stallMs / 4)));
    Deno.unrefTimer(this.#stallTimer);
  }

  /** Resolves, with the reason, once the client stopped reading and output overflowed. */
  get stuck(): Promise<string> {
    return this.#stuck.promise;
  }

  /**
   * Resolves once less than half the outbound bounds wait for the client, so that reading its
   * next request cannot pile up answers it is not taking.
   */
  room(): Promise<void> {
    if (!this.#full()) return Promise.resolve();
    this.#room ??= Promise.withResolvers<void>();
    return this.#room.promise;
  }

  #full(): boolean {
    return this.#writer.waiting >= this.#bounds.maxWaiting / 2 ||
      this.#writer.waitingBytes >= this.#bounds.maxBytes / 2;
  }

  #giveUp(reason: string): void {
    if (this.#isStuck) return;
    this.#isStuck = true;
    clearInterval(this.#stallTimer);
    this.#stuck.resolve(reason);
  }

  /** Sends a result. */
  result(id: RequestId, result: unknown): Promise<void> {
    return this.#send({ jsonrpc: "2.0", id, result });
  }

  /** Sends an error (id null only for unparseable input). */
  error(id: RequestId | null, code: number, message: string, data?: unknown): Promise<void> {
    const error = data === undefined ? { code, message } : { code, message, data };
    return this.#send({ jsonrpc: "2.0", id, error });
  }

  /** Sends the error for anything thrown while answering: an RpcError as is, else -32603. */
  failure(id: RequestId, error: unknown): Promise<void> {
    if (error instanceof RpcError) return this.error(id, error.code, error.message, error.data);
    const message = error instanceof Error ? error.message : String(error);
    return this.error(id, ErrorCode.internalError, message);
  }

  /** Sends a request to the client (a server-to-client request of `2025-11-25`). */
  request(id: RequestId, method: string, params: Record<string, unknown>): Promise<void> {
    return this.#send({ jsonrpc: "2.0", id, method, params });
  }

  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#send(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  #send(message: unknown): Promise<void> {
    if (this.#writer.waiting === 0) this.#progressAt = Date.now();
    const written = this.#writer.write(encodeLine(message)).then(() => {
      this.#progressAt = Date.now();
      if (this.#room && !this.#full()) {
        this.#room.resolve();
        this.#room = null;
      }
    }, () => {});
    // A sender waits for its message to be written, or for the client to be given up on.
    return Promise.race([written, this.#stuck.promise.then(() => {})]);
  }

  /**
   * Flushes queued messages; a stuck client's are abandoned, since it is not reading, and so are
   * those of a client that becomes stuck while they are flushed.
   */
  async close(): Promise<void> {
    if (!this.#isStuck) await Promise.race([this.#writer.close(), this.#stuck.promise]);
    clearInterval(this.#stallTimer);
  }
}

/** A line over {@linkcode MAX_LINE_BYTES}: its size, and its request id when one was readable. */
export type Oversized = { kind: "oversized"; bytes: number; id: RequestId | null };

/** Reads classified messages from stdin until it closes. */
export async function* readMessages(
  readable: ByteSource,
): AsyncGenerator<Incoming | Oversized> {
  const reader = new LineReader(readable, MAX_LINE_BYTES);
  while (true) {
    const next = await reader.next();
    if (next === null) return;
    if (next.kind === "oversized") {
      yield { kind: "oversized", bytes: next.bytes, id: idOfCutLine(next.head, next.tail) };
      continue;
    }
    if (next.text.trim() === "") continue;
    yield classify(next.text);
  }
}

/**
 * The top-level `id` of a request line too long to parse, read from the line's start (members
 * before the big one) or, failing that, from its end (a serializer that writes `id` last).
 */
export function idOfCutLine(head: string, tail: string): RequestId | null {
  const id = idFromStart(head) ?? idFromEnd(tail);
  return validId(id) ? id : null;
}

/** Walks the outer object's members from the start until `id` or until the text runs out. */
function idFromStart(text: string): unknown {
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return undefined;
  i++;
  while (i < text.length) {
    const key = readString(text, skipSpace(text, i));
    if (!key) return undefined;
    i = skipSpace(text, key.end);
    if (text[i] !== ":") return undefined;
    const valueAt = skipSpace(text, i + 1);
    const end = skipValue(text, valueAt);
    if (end < 0) return undefined;
    if (key.value === "id") return JSON.parse(text.slice(valueAt, end));
    i = skipSpace(text, end);
    if (text[i] !== ",") return undefined;
    i++;
  }
  return undefined;
}

/** `"id": <value>` as the outer object's last member at the line's very end. */
function idFromEnd(text: string): unknown {
  const match = /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(text);
  return match ? JSON.parse(match[1]) : undefined;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && " \t\r\n".includes(text[i])) i++;
  return i;
}

/** The string starting at `i` and where it ends, or null when none starts there or it is cut. */
function readString(text: string, i: number): { value: string; end: number } | null {
  if (text[i] !== '"') return null;
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') {
      try {
        return { value: JSON.parse(text.slice(i, j + 1)), end: j + 1 };
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Where the value starting at `i` ends, or -1 when the text ends first. */
function skipValue(text: string, i: number): number {
  if (text[i] === '"') return readString(text, i)?.end ?? -1;
  if (text[i] !== "{" && text[i] !== "[") {
    const end = text.slice(i).search(/[\s,}\]]/);
    return end <= 0 ? -1 : i + end;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      const string = readString(text, j);
      if (!string) return -1;
      j = string.end - 1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}
