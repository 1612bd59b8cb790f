/**
 * The remote shore's one outbound WebSocket as an ACP message stream (decision 0400), with every
 * buffer bounded: an inbound frame over {@linkcode MAX_INBOUND_FRAME_BYTES} closes the tunnel,
 * inbound messages not yet taken hold at most {@linkcode MAX_INBOUND_QUEUED_BYTES}, and outbound
 * messages wait while the socket holds {@linkcode MAX_OUTBOUND_BYTES} unsent, up to
 * `stallMs`, after which the tunnel is closed rather than buffer more.
 *
 * @module
 */

import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";

/** The largest inbound frame: the largest MCP line the connector takes, and room around it. */
export const MAX_INBOUND_FRAME_BYTES = 16 * 1024 * 1024;
/** Inbound bytes received and not yet taken by the ACP connection. */
export const MAX_INBOUND_QUEUED_BYTES = 32 * 1024 * 1024;
/** Outbound bytes the socket may hold unsent before a write waits (and one message's most). */
export const MAX_OUTBOUND_BYTES = 32 * 1024 * 1024;
/** How often a waiting write looks at the socket's unsent bytes. */
const DRAIN_POLL_MS = 10;

/** An ACP stream over one WebSocket, and how it ended. */
export interface Tunnel {
  readable: ReadableStream<AnyMessage>;
  writable: WritableStream<AnyMessage>;
  /** Resolves with why the tunnel closed (never with the token). */
  closed: Promise<string>;
  /** Resolves once the socket has closed (its close frame sent, or the connection gone). */
  finished: Promise<void>;
  close(reason: string): void;
}

/** Bounds of one tunnel; the defaults above unless a test narrows them. */
export interface TunnelBounds {
  maxInboundFrame?: number;
  maxInboundQueued?: number;
  maxOutbound?: number;
  /** How long a write may wait for the agent host to read before the tunnel is closed. */
  stallMs: number;
  /**
   * The largest inbound frame that carries a `method` (the `openab` binding's 1 MiB): past it a
   * request is answered with an error and a notification dropped, and the tunnel stays open.
   * None by default.
   */
  maxMethodFrame?: number;
}

/** How the token rides in the handshake: a bearer header, or the `openab` subprotocol offer. */
export type TokenCarrier = "header" | "subprotocol";

/** The subprotocol an `openab` gateway echoes, and the prefix of the bearer offer. */
export const ACP_SUBPROTOCOL = "acp.v1";
const BEARER_SUBPROTOCOL = "openab.bearer.";
/** What a subprotocol name may hold (RFC 9110's token characters). */
const SUBPROTOCOL_TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function isMessage(value: unknown): value is AnyMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** How one tunnel ends: once, with its reason, closing the socket. */
class Ending {
  readonly ended = Promise.withResolvers<string>();
  reason: string | null = null;
  /** Wakes the reader when it waits for a message that will not come. */
  wake: (() => void) | null = null;

  constructor(private readonly socket: WebSocket) {}

  /**
   * Closes with `code`: 1000, or 4000 + the protocol's code for the fault (4009 too big, 4008
   * policy, 4007 bad data, 4003 unsupported, 4002 protocol): a WebSocket client may send only
   * 1000 and 3000-4999, and a close it may not send would leave the socket open.
   */
  close(why: string, code = 1000): void {
    if (this.reason !== null) return;
    this.reason = why;
    try {
      // The reason is at most 123 bytes of UTF-8; the text here is ASCII.
      this.socket.close(code, why.slice(0, 120));
    } catch {
      try {
        this.socket.close();
      } catch {
        // Already closing.
      }
    }
    this.wake?.();
    this.ended.resolve(why);
  }
}

/** The inbound side: frames checked and queued within their bounds, read one at a time. */
function inbound(
  socket: WebSocket,
  ending: Ending,
  maxFrame: number,
  maxQueued: number,
  maxMethodFrame: number,
): ReadableStream<AnyMessage> {
  const queue: { message: AnyMessage; bytes: number }[] = [];
  let queuedBytes = 0;
  const encoder = new TextEncoder();
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") {
      return ending.close("the agent host sent a binary frame; ACP frames are text", 4003);
    }
    const bytes = encoder.encode(event.data).length;
    if (bytes > maxFrame) {
      return ending.close(`the agent host sent a frame of ${bytes} bytes, over ${maxFrame}`, 4009);
    }
    if (queuedBytes + bytes > maxQueued) {
      return ending.close(`the agent host sent more than ${maxQueued} bytes not yet taken`, 4008);
    }
    let message: unknown;
    try {
      message = JSON.parse(event.data);
    } catch {
      return ending.close("the agent host sent a frame that is not JSON", 4007);
    }
    if (!isMessage(message)) {
      return ending.close("the agent host sent a frame that is not one JSON-RPC 2.0 message", 4007);
    }
    if (bytes > maxMethodFrame && "method" in message) {
      // Checked after parsing, so a request has an id to answer; the connection is kept.
      if ("id" in message) {
        socket.send(JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          error: {
            code: -32600,
            message: `a frame carrying a method is at most ${maxMethodFrame} bytes; this one ` +
              `is ${bytes}`,
          },
        }));
      }
      return;
    }
    queue.push({ message, bytes });
    queuedBytes += bytes;
    ending.wake?.();
  };
  return new ReadableStream<AnyMessage>({
    async pull(controller) {
      while (queue.length === 0 && ending.reason === null) {
        await new Promise<void>((resolve) => ending.wake = resolve);
        ending.wake = null;
      }
      const next = queue.shift();
      if (next === undefined) return controller.close();
      queuedBytes -= next.bytes;
      controller.enqueue(next.message);
    },
    cancel() {
      ending.close("the shore stopped reading");
    },
  }, { highWaterMark: 0 });
}

/** The outbound side: a write waits while the socket holds its budget unsent, up to `stallMs`. */
function outbound(
  socket: WebSocket,
  ending: Ending,
  maxOutbound: number,
  stallMs: number,
): WritableStream<AnyMessage> {
  const encoder = new TextEncoder();
  return new WritableStream<AnyMessage>({
    async write(message) {
      const text = JSON.stringify(message);
      const bytes = encoder.encode(text).length;
      if (bytes > maxOutbound) {
        throw new Error(`an outbound message of ${bytes} bytes is over the ${maxOutbound} bound`);
      }
      const since = Date.now();
      while (ending.reason === null && socket.bufferedAmount + bytes > maxOutbound) {
        if (Date.now() - since > stallMs) {
          ending.close(`the agent host did not read for ${stallMs} ms; closing the tunnel`, 4008);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
      if (ending.reason !== null) throw new Error(`the tunnel is closed: ${ending.reason}`);
      socket.send(text);
    },
    close() {
      ending.close("the shore ended the session");
    },
    abort() {
      ending.close("the shore ended the session");
    },
  });
}

/** A WebSocket to `url` carrying `token` as `carrier` says; throws without naming the token. */
function dial(url: URL, token: string | null, carrier: TokenCarrier): WebSocket {
  if (carrier === "header") {
    const headers: Record<string, string> = token === null
      ? {}
      : { Authorization: `Bearer ${token}` };
    return new WebSocket(url.href, { headers } as unknown as string[]);
  }
  if (token !== null && !SUBPROTOCOL_TOKEN.test(token)) {
    throw new Error(
      "the token holds a character a WebSocket subprotocol cannot carry (only letters, digits " +
        "and !#$%&'*+-.^_`|~); ask the gateway for another",
    );
  }
  const offer = token === null
    ? [ACP_SUBPROTOCOL]
    : [`${BEARER_SUBPROTOCOL}${token}`, ACP_SUBPROTOCOL];
  return new WebSocket(url.href, offer);
}

/**
 * Opens a WebSocket to `url` with the token as `Authorization: Bearer` (Deno's WebSocket sends
 * headers) or, for the `openab` binding, in the subprotocol offer `openab.bearer.<token>, acp.v1`
 * (the gateway must echo `acp.v1`), and resolves once it is open; rejects with a reason that
 * never names the token.
 */
export function openTunnel(
  url: URL,
  token: string | null,
  bounds: TunnelBounds,
  carrier: TokenCarrier = "header",
): Promise<Tunnel> {
  let socket: WebSocket;
  try {
    socket = dial(url, token, carrier);
  } catch (error) {
    return Promise.reject(error);
  }
  const ending = new Ending(socket);
  const readable = inbound(
    socket,
    ending,
    bounds.maxInboundFrame ?? MAX_INBOUND_FRAME_BYTES,
    bounds.maxInboundQueued ?? MAX_INBOUND_QUEUED_BYTES,
    bounds.maxMethodFrame ?? Infinity,
  );
  const writable = outbound(
    socket,
    ending,
    bounds.maxOutbound ?? MAX_OUTBOUND_BYTES,
    bounds.stallMs,
  );
  const finished = Promise.withResolvers<void>();
  socket.onclose = (event) => {
    const said = event.reason ? ` ${event.reason}` : "";
    ending.close(`the agent host closed the connection (${event.code}${said})`);
    finished.resolve();
  };
  return new Promise<Tunnel>((resolve, reject) => {
    socket.onopen = () => {
      if (carrier === "subprotocol" && socket.protocol !== ACP_SUBPROTOCOL) {
        return ending.close(`the gateway did not accept the ${ACP_SUBPROTOCOL} subprotocol`, 4002);
      }
      resolve({
        readable,
        writable,
        closed: ending.ended.promise,
        finished: finished.promise,
        close: (why) => ending.close(why),
      });
    };
    socket.onerror = () => {
      // Deno's error event says little; the close that follows carries the code.
      if (socket.readyState !== WebSocket.OPEN) {
        reject(new Error(`could not open a WebSocket to ${url.host}${url.pathname}`));
      }
    };
    ending.ended.promise.then((why) => reject(new Error(why)));
  });
}
