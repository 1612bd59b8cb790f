/**
 * Serves the control API on the control socket with the bounds every other socket of the
 * service has: at most {@linkcode MAX_CONTROL_CONNECTIONS} connections at once (one more is
 * answered 503 and closed), a request head and body of bounded size, and a time limit to send
 * them, so a same-user process cannot hold the socket open or fill the service's memory.
 * `Deno.serve` offers none of these, so this speaks the little HTTP/1.1 the control API needs:
 * one request per connection, answered and closed.
 *
 * @module
 */

/** Control connections served at once; the CLI, doctor and the popup's relay need a few. */
export const MAX_CONTROL_CONNECTIONS = 16;
/** The largest request head (request line and headers). */
export const MAX_CONTROL_HEAD = 16 * 1024;
/** The largest request body (a person's request is a few hundred bytes). */
export const MAX_CONTROL_BODY = 64 * 1024;
/** How long a client may take to send its whole request. */
export const CONTROL_READ_MS = 5_000;

/** What answers a request: the control app's `fetch`. */
export type ControlHandler = (request: Request) => Response | Promise<Response>;

/** A running control server. */
export interface ControlServer {
  /** Stops accepting, and resolves once the accept loop has ended. */
  shutdown(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Accepts control connections on `listener` and answers each with `handler`. */
export function serveControl(
  listener: Deno.Listener<Deno.UnixConn, Deno.UnixAddr>,
  handler: ControlHandler,
): ControlServer {
  let open = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      if (open >= MAX_CONTROL_CONNECTIONS) {
        // Not lingered on: only connections within the cap hold the service's time.
        answerAndClose(conn, plain(503, "too many control connections; try again"), {
          linger: false,
        }).catch(() => {});
        continue;
      }
      open++;
      serveOne(conn, handler).finally(() => open--);
    }
  })().catch(() => {});
  return {
    async shutdown() {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      await accepting;
    },
  };
}

/** Reads one request from `conn` (bounded in size and time), answers it, and closes. */
async function serveOne(conn: Deno.UnixConn, handler: ControlHandler): Promise<void> {
  const timer = setTimeout(() => closeQuietly(conn), CONTROL_READ_MS);
  let response: Response;
  try {
    const request = await readRequest(conn);
    clearTimeout(timer);
    response = request instanceof Response ? request : await handler(request);
  } catch {
    clearTimeout(timer);
    closeQuietly(conn);
    return;
  }
  await answerAndClose(conn, response).catch(() => {});
}

/** The request on `conn`, or the refusal it gets when it is malformed or too large. */
async function readRequest(conn: Deno.UnixConn): Promise<Request | Response> {
  const buffer = new Uint8Array(MAX_CONTROL_HEAD + MAX_CONTROL_BODY);
  let length = 0;
  let headEnd = -1;
  while (headEnd < 0) {
    if (length >= MAX_CONTROL_HEAD) return plain(431, "the request head is too large");
    const read = await conn.read(buffer.subarray(length, MAX_CONTROL_HEAD));
    if (read === null) throw new Error("the client closed before its request ended");
    length += read;
    headEnd = indexOfBlankLine(buffer.subarray(0, length));
  }
  const [requestLine, ...headerLines] = decoder.decode(buffer.subarray(0, headEnd)).split("\r\n");
  const [method, requested] = requestLine.split(" ");
  const target = originForm(requested);
  if (!method || target === null) return plain(400, "malformed request line");
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const size = Number(headers.get("content-length") ?? "0");
  if (!Number.isInteger(size) || size < 0) return plain(400, "malformed content-length");
  if (size > MAX_CONTROL_BODY) return plain(413, "the request body is too large");
  const bodyStart = headEnd + 4;
  while (length < bodyStart + size) {
    const read = await conn.read(buffer.subarray(length, bodyStart + size));
    if (read === null) throw new Error("the client closed before its body ended");
    length += read;
  }
  const body = size > 0 ? buffer.slice(bodyStart, bodyStart + size) : undefined;
  return new Request(`http://ghostlight${target}`, { method, headers, body });
}

/**
 * The target as a path: origin-form as sent, absolute-form (what `fetch` through a Unix-socket
 * proxy client sends, and what HTTP/1.1 servers must accept) with its scheme and host dropped.
 */
function originForm(target: string | undefined): string | null {
  if (target?.startsWith("/")) return target;
  const absolute = target?.match(/^https?:\/\/[^/?#]*(.*)$/);
  if (!absolute) return null;
  return absolute[1].startsWith("/") ? absolute[1] : `/${absolute[1]}`;
}

/** Where the head ends (the index of its blank line), or -1. */
function indexOfBlankLine(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain" } });
}

/**
 * Writes `response` as HTTP/1.1 with its length, then closes the connection (after draining
 * what the client still sends, unless `linger` is false).
 */
async function answerAndClose(
  conn: Deno.UnixConn,
  response: Response,
  options: { linger: boolean } = { linger: true },
): Promise<void> {
  try {
    const body = new Uint8Array(await response.arrayBuffer());
    const reason = response.statusText || STATUS_TEXT[response.status] || "Status";
    const head = `HTTP/1.1 ${response.status} ${reason}\r\n` +
      `Content-Type: ${response.headers.get("content-type") ?? "application/octet-stream"}\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const out = new Uint8Array([...encoder.encode(head), ...body]);
    for (let written = 0; written < out.length;) {
      written += await conn.write(out.subarray(written));
    }
    if (options.linger) await linger(conn);
  } finally {
    closeQuietly(conn);
  }
}

/** How long, and how many bytes, an answered connection is drained before it is closed. */
const LINGER_MS = 1_000;
const LINGER_BYTES = 256 * 1024;

/**
 * Ends our side and reads what the client still sends (a request that was refused unread),
 * bounded: closing with unread bytes would reset the connection and lose the answer.
 */
async function linger(conn: Deno.UnixConn): Promise<void> {
  const timer = setTimeout(() => closeQuietly(conn), LINGER_MS);
  try {
    await conn.closeWrite();
    const sink = new Uint8Array(16 * 1024);
    for (let drained = 0; drained < LINGER_BYTES;) {
      const read = await conn.read(sink);
      if (read === null) break;
      drained += read;
    }
  } catch {
    // Closed by the timer or the peer.
  } finally {
    clearTimeout(timer);
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
