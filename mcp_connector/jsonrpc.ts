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
  | { kind: "response"; id: RequestId }
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
      return { kind: "response", id: message.id as RequestId };
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

/**
 * Writes protocol messages to the client, one per line, in order. A client that stops reading
 * until the outbound bounds overflow is stuck: {@linkcode stuck} resolves and the connection
 * ends, rather than a response going missing silently.
 */
export class StdioPeer {
  #writer: BoundedWriter;
  #stuck = Promise.withResolvers<string>();
  #isStuck = false;

  constructor(writable: WritableStream<Uint8Array>, bounds = {
    maxWaiting: MAX_QUEUED_OUT,
    maxBytes: MAX_QUEUED_OUT_BYTES,
  }) {
    this.#writer = new BoundedWriter(writable, {
      ...bounds,
      onOverflow: (error) => {
        this.#isStuck = true;
        this.#stuck.resolve(error.message);
      },
    });
  }

  /** Resolves, with the reason, once the client stopped reading and output overflowed. */
  get stuck(): Promise<string> {
    return this.#stuck.promise;
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

  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#send(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  #send(message: unknown): Promise<void> {
    return this.#writer.write(encodeLine(message)).catch(() => {});
  }

  /** Flushes queued messages; a stuck client's are abandoned, since it is not reading. */
  async close(): Promise<void> {
    if (!this.#isStuck) await this.#writer.close();
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
