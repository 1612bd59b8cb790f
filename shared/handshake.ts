/**
 * Both ends of the handshake that opens every connector ↔ service connection. Each side proves
 * its own key (decision 0250): the connector sends a nonce, the service answers with its
 * signature and a challenge of its own, the connector answers the challenge with its role's key,
 * and the service admits it. Nothing else is read from or routed to a connector before that.
 *
 * @module
 */

import {
  Admission,
  BRIDGE_MAJOR,
  ConnectorHello,
  ConnectorProof,
  type Role,
  ServiceHello,
  type ServiceHello as ServiceHelloType,
} from "./bridge.ts";
import { BoundedWriter, encodeFrame, type FrameBudget, FrameReader } from "./framing.ts";
import type { KeyFiles } from "./instance.ts";
import {
  computePeerProof,
  type Exchange,
  freshNonce,
  proofsEqual,
  readKeyFile,
  signAsService,
  verifyServiceProof,
} from "./proof.ts";

/** Hellos are small; anything larger is not a hello. */
export const HELLO_MAX_FRAME = 16 * 1024;
/** How long either side waits for the other's hello. */
export const HELLO_TIMEOUT_MS = 5_000;
/** Bytes that may wait for a peer on an internal hop before the connection is ended. */
export const QUEUED_BYTES = 64 * 1024 * 1024;
/** Frames that may wait for a peer on an internal hop before the connection is ended. */
const QUEUED_FRAMES = 256;

/** The bounded writer of an opened connection: a stuck peer gets its connection closed. */
function boundedWriter(conn: Deno.UnixConn): BoundedWriter {
  return new BoundedWriter(conn, {
    maxWaiting: QUEUED_FRAMES,
    maxBytes: QUEUED_BYTES,
    onOverflow: () => {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    },
  });
}

/** Writes all of `bytes`: one write call may take only part of them. */
export async function writeAll(
  conn: { write(bytes: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** A connection past its hello, ready for the role's own messages. */
export interface OpenedConnection<H> {
  conn: Deno.UnixConn;
  reader: FrameReader;
  writer: BoundedWriter;
  hello: H;
}

/**
 * Thrown when the peer is not a genuine Ghostlight service for this instance, or when this
 * connector cannot read the keys to tell (then `advice` says what to do instead).
 */
export class ImpostorError extends Error {
  constructor(socket: string, why: string, advice?: string) {
    super(
      `refusing to talk to the process on ${socket}: ${why}. ` +
        (advice ??
          "It is not this user's Ghostlight service; stop whatever owns that socket and try again."),
    );
    this.name = "ImpostorError";
  }
}

/**
 * Thrown when the service turned the connector away only for lateness (its proof came after the
 * service stopped waiting, on a machine too busy to answer in time): connecting again may succeed.
 */
export class HandshakeLate extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HandshakeLate";
  }
}

/** A wait of the handshake that ran out. */
class TimedOut extends Error {}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Writes `frame`, then reads the service's answer. A service that refuses may close before our
 * write lands, so its answer is read before a failed write is reported: `wrote` is that failure.
 */
async function sayThenHear(
  conn: Deno.UnixConn,
  reader: FrameReader,
  frame: unknown,
  what: string,
): Promise<{ heard: unknown; wrote: Error | null }> {
  const wrote = await writeAll(conn, encodeFrame(frame, HELLO_MAX_FRAME)).then(
    () => null,
    (error: Error) => error,
  );
  const heard = await withTimeout(reader.next(HELLO_MAX_FRAME), HELLO_TIMEOUT_MS, what).catch(
    (error) => {
      throw wrote ?? error;
    },
  );
  return { heard, wrote };
}

/** What both sides said, as the proofs sign it: the service's hello without its proof. */
function exchangeOf(hello: ConnectorHello, answer: ServiceHelloType): Exchange {
  const { proof: _proof, ...service } = answer as Extract<ServiceHelloType, { type: "hello" }>;
  return { connector: hello, service };
}

/**
 * Connector side: connects to `socket`, says hello, checks the service's signature with the
 * service's public key and answers its challenge with the role's own key, both from `keys`.
 * Throws {@linkcode ImpostorError} when the service's proof is wrong.
 */
export async function connectAndVerify(
  options: {
    socket: string;
    keys: KeyFiles;
    role: Role;
    /** An MCP connector's principal, fixed at its start. */
    principal?: string;
    /** A remote shore's remote (decision 0400). */
    remote?: string;
    client?: { name: string; version: string };
    maxFrame: number;
  },
): Promise<OpenedConnection<Extract<ServiceHelloType, { type: "hello" }>>> {
  const conn = await Deno.connect({ transport: "unix", path: options.socket });
  try {
    const reader = new FrameReader(conn, options.maxFrame);
    const hello: ConnectorHello = {
      type: "hello",
      bridge_major: BRIDGE_MAJOR,
      role: options.role,
      nonce: freshNonce(),
      ...(options.principal ? { principal: options.principal } : {}),
      ...(options.remote ? { remote: options.remote } : {}),
      ...(options.client ? { client: options.client } : {}),
    };
    // A service at its connection bound refuses at once and closes.
    const { heard: raw, wrote } = await sayThenHear(conn, reader, hello, "the service's hello");
    if (wrote && ServiceHello.safeParse(raw).data?.type !== "refused") throw wrote;
    const parsed = ServiceHello.safeParse(raw);
    if (!parsed.success) throw new ImpostorError(options.socket, "its hello is not Ghostlight's");
    const answer = parsed.data;
    if (answer.type === "refused") throw new Error(`the service refused: ${answer.message}`);
    let servicePublic: Uint8Array;
    let roleKey: Uint8Array;
    try {
      servicePublic = await readKeyFile(options.keys.servicePublic);
      roleKey = await readKeyFile(options.keys[options.role]);
    } catch (error) {
      throw new ImpostorError(
        options.socket,
        `this connector's keys cannot be read (${(error as Error).message})`,
        "Restart the service so it makes the instance's keys, or see 'ghostlight doctor'.",
      );
    }
    const exchange = exchangeOf(hello, answer);
    if (!await verifyServiceProof(servicePublic, exchange, answer.proof)) {
      throw new ImpostorError(options.socket, "it could not prove it holds the service's key");
    }
    if (answer.bridge_major !== BRIDGE_MAJOR) {
      throw new Error(
        `the running service speaks bridge ${answer.bridge_major}, this connector ` +
          `${BRIDGE_MAJOR}; restart the service so both come from the same install`,
      );
    }
    const proof: ConnectorProof = {
      type: "proof",
      proof: await computePeerProof(roleKey, exchange),
    };
    // A service that stopped waiting for the proof has said so, and may have closed.
    const { heard: last, wrote: proved } = await sayThenHear(
      conn,
      reader,
      proof,
      "the service's admission",
    );
    // The service has proved itself above: a close here is not an impostor's doing.
    if (last === null) {
      throw proved ?? new Error("the service closed the connection before admitting us");
    }
    const admission = Admission.safeParse(last);
    if (!admission.success) throw new ImpostorError(options.socket, "it did not admit us");
    if (admission.data.type === "refused") {
      const message = `the service refused: ${admission.data.message}`;
      throw admission.data.again ? new HandshakeLate(message) : new Error(message);
    }
    return { conn, reader, writer: boundedWriter(conn), hello: answer };
  } catch (error) {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
    throw error;
  }
}

const LATE = Symbol("late");

/**
 * The connector's answer to the challenge, or {@linkcode LATE} when it did not come within
 * `waitMs`: then the connector, on a busy machine rather than a wrong one, is told to come again.
 */
async function proofOrLate(
  conn: Deno.UnixConn,
  reader: FrameReader,
  waitMs: number,
): Promise<unknown> {
  const answered = await withTimeout(reader.next(HELLO_MAX_FRAME), waitMs, "the connector's proof")
    .catch((error) => {
      if (error instanceof TimedOut) return LATE;
      throw error;
    });
  if (answered !== LATE) return answered;
  const message = `the connector's proof did not come within ${waitMs / 1000} s; connect again`;
  await writeAll(conn, encodeFrame({ type: "refused", message, again: true }, HELLO_MAX_FRAME))
    .catch(() => {});
  return LATE;
}

/** Why the service turned a connection away during the handshake. */
export type HandshakeRefusal =
  | "no_hello"
  | "wrong_bridge"
  | "wrong_role"
  | "no_proof"
  | "wrong_proof"
  | "socket_replaced"
  | "not_admitted"
  | "late_proof";

/** What {@linkcode acceptAndProve} needs to know of the service and the socket. */
export interface AcceptOptions {
  expectedRole: Role;
  /** The service's Ed25519 signing key. */
  signer: CryptoKey;
  /** The key of `expectedRole`: the only one this socket admits. */
  roleKey: Uint8Array;
  /** How long the connector's proof is waited for; {@linkcode HELLO_TIMEOUT_MS} unless set. */
  proofTimeoutMs?: number;
  service: { version: string; instance: string | null; pid: number };
  maxFrame: number;
  /** What frames in progress on all of the service's connections may hold together. */
  budget?: FrameBudget;
  onRefused?: (why: HandshakeRefusal) => void;
  /**
   * False when the socket this connection came through no longer lies at its path: a process
   * that replaced it may be relaying a connector's hello through a connection it opened
   * before, so the connection is not admitted (decision 0250).
   */
  socketIntact?: () => Promise<boolean>;
  /**
   * Asked once the connector has proved its key: why its hello is not admitted (a remote the
   * service has not configured, decision 0400), or null to admit it.
   */
  admit?: (hello: ConnectorHello) => Promise<string | null>;
}

/**
 * Service side: reads a connector's hello, answers with its signature and a fresh challenge, and
 * admits the connector only once it has answered the challenge with the key of the socket's
 * role, `roleKey`. Refuses a wrong role or bridge version. Returns null when the peer went away,
 * sent garbage or failed the proof; `onRefused` hears why.
 */
export async function acceptAndProve(
  conn: Deno.UnixConn,
  options: AcceptOptions,
): Promise<OpenedConnection<ConnectorHello> | null> {
  const reader = new FrameReader(conn, options.maxFrame, { budget: options.budget });
  let stage: HandshakeRefusal = "no_hello";
  try {
    const raw = await withTimeout(
      reader.next(HELLO_MAX_FRAME),
      HELLO_TIMEOUT_MS,
      "the connector's hello",
    );
    const parsed = ConnectorHello.safeParse(raw);
    if (!parsed.success) {
      options.onRefused?.("no_hello");
      return null;
    }
    const hello = parsed.data;
    const refuse = async (why: HandshakeRefusal, message: string) => {
      options.onRefused?.(why);
      await writeAll(conn, encodeFrame({ type: "refused", message }, HELLO_MAX_FRAME));
      return null;
    };
    if (hello.bridge_major !== BRIDGE_MAJOR) {
      return await refuse(
        "wrong_bridge",
        `this service speaks bridge ${BRIDGE_MAJOR}, the connector ${hello.bridge_major}; ` +
          "restart the MCP client or the browser so its connector comes from the same install",
      );
    }
    if (hello.role !== options.expectedRole) {
      return await refuse("wrong_role", `this socket serves ${options.expectedRole} connectors`);
    }
    const unsigned = {
      type: "hello" as const,
      bridge_major: BRIDGE_MAJOR,
      challenge: freshNonce(),
      service: options.service,
    };
    // The hello as it came (the schema admitted it whole): a field the schema defaults or
    // transforms would otherwise differ from what the connector signed.
    const exchange: Exchange = { connector: raw as Record<string, unknown>, service: unsigned };
    const answer: ServiceHelloType = {
      ...unsigned,
      proof: await signAsService(options.signer, exchange),
    };
    await writeAll(conn, encodeFrame(answer, HELLO_MAX_FRAME));
    stage = "no_proof";
    const answered = await proofOrLate(conn, reader, options.proofTimeoutMs ?? HELLO_TIMEOUT_MS);
    if (answered === LATE) {
      options.onRefused?.("late_proof");
      return null;
    }
    const proof = ConnectorProof.safeParse(answered);
    if (!proof.success) {
      options.onRefused?.("no_proof");
      return null;
    }
    const expected = await computePeerProof(options.roleKey, exchange);
    if (!proofsEqual(expected, proof.data.proof)) {
      return await refuse(
        "wrong_proof",
        `the connector could not prove it holds this instance's ${options.expectedRole} key`,
      );
    }
    if (options.socketIntact && !await options.socketIntact()) {
      return await refuse(
        "socket_replaced",
        "the service's socket was replaced while this connection opened; connect again",
      );
    }
    const denied = await options.admit?.(hello) ?? null;
    if (denied !== null) return await refuse("not_admitted", denied);
    await writeAll(conn, encodeFrame({ type: "admitted" }, HELLO_MAX_FRAME));
    return { conn, reader, writer: boundedWriter(conn), hello };
  } catch {
    options.onRefused?.(stage);
    return null;
  }
}
