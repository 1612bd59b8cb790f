/**
 * The connector's link to the service: connects (starting the service on demand), checks the
 * service's proof, multiplexes calls by sequence number, and reconnects for future calls after
 * a break. Calls that may have started when the link broke end as outcome-unknown; nothing is
 * ever replayed.
 *
 * @module
 */

import {
  BRIDGE_MAX_FRAME,
  type CallRestriction,
  type ConnectorMessage,
  type Outcome,
  ServiceMessage,
  type ToolDescriptor,
} from "../shared/bridge.ts";
import { runningFromSource, siblingPath } from "../shared/executables.ts";
import { encodeFrame } from "../shared/framing.ts";
import {
  connectAndVerify,
  HandshakeLate,
  ImpostorError,
  type OpenedConnection,
} from "../shared/handshake.ts";
import { instanceCommand, type InstancePaths } from "../shared/instance.ts";
import type { AgentPermission, AgentPermissionAnswer } from "../shared/panel.ts";
import { backoffDelay } from "./backoff.ts";

/** How long the connector waits for a demand-started service to listen. */
const START_TIMEOUT_MS = 30_000;

/** The catalog as the service sent it. */
export interface CatalogSnapshot {
  generation: number;
  tools: ToolDescriptor[];
  /**
   * The tools the policy or this connector's restriction leave it no use of: not listed, and
   * a call of one is still sent, for the service to refuse with its rule.
   */
  withheld: string[];
}

/** A refusal before any work began. */
export interface Rejection {
  kind: Extract<ServiceMessage, { type: "rejected" }>["kind"];
  message: string;
  next_step: string;
}

/** The end of one call: an outcome, or a rejection before it started. */
export type CallEnd = { outcome: Outcome } | { rejected: Rejection };

/** The service cannot be reached or trusted. */
export class ServiceUnavailable extends Error {}

type Pending =
  | { kind: "catalog"; resolve: (c: CatalogSnapshot) => void; reject: (e: Error) => void }
  | { kind: "workspace"; resolve: (id: string) => void; reject: (e: Error) => void }
  | { kind: "start"; resolve: (end: CallEnd) => void; asked?: AskHandler }
  | { kind: "agent"; resolve: (end: AgentPermissionEnd) => void };

/** How the person's question about an agent host's own request ended (decision 0530). */
export type AgentPermissionEnd = { answer: AgentPermissionAnswer; said: string };

/** What a call does with the service's questions for the person (decision 0361). */
export type AskHandler = (
  message: Extract<ServiceMessage, { type: "ask" } | { type: "withdraw" }>,
) => void;

type Connection = OpenedConnection<unknown> & { pending: Map<number, Pending> };

/** The person's prompt and Stop, sent to a remote shore (decision 0470). */
export type PromptMessage = Extract<ServiceMessage, { type: "prompt" } | { type: "prompt_stop" }>;

/** How long a link that must stay up (a remote shore's) waits to connect again, at most. */
const RECONNECT_MAX_MS = 30_000;
/** The first wait before a link that must stay up connects again after a break. */
const RECONNECT_FIRST_MS = 500;

/**
 * The outcome of a call whose connection to the service broke: what the model should do when
 * the transport under it closes.
 */
export const LINK_BROKEN = {
  kind: "outcome_unknown",
  message: "The connection to the Ghostlight service broke during this call.",
  next_step: "It may or may not have happened (a call that was still waiting did not run): call " +
    "tabs_context_mcp and look at the page before retrying.",
} as const satisfies Outcome;

/** The connector's one link to its instance's service. */
export class ServiceLink {
  #paths: InstancePaths;
  #serviceEntry: string | null;
  #principal: string | null;
  #remote: string | null;
  #restrictions: CallRestriction[];
  #client: { name: string; version: string };
  #connection: Connection | null = null;
  #connecting: Promise<Connection> | null = null;
  #seq = 0;
  #catalogListeners: ((generation: number | null) => void)[] = [];
  #closed = false;
  #everConnected = false;
  #prompts: ((message: PromptMessage) => void) | null = null;
  #remoteEnd: ((why: string) => void) | null = null;
  /** Failed connections in a row while the link must stay up: the back-off's attempt. */
  #retries = 0;
  /** A remote shore's last word on its tunnel, said again on each new connection. */
  #reported: { state: "connected" | "degraded"; why?: string } | null = null;

  /**
   * `serviceEntry` is the fixed entry this connector may start the service with (its only run
   * permission); without one a compiled connector starts the `ghostlight` beside it, and one run
   * from source starts nothing. `principal` is who the connector acts for, fixed at its start
   * (none: the service takes it as unnamed); `restrictions` are its own, which its catalog
   * request carries so that a tool it could never call is not listed.
   */
  constructor(
    paths: InstancePaths,
    client: { name: string; version: string },
    options: {
      serviceEntry?: string | null;
      principal?: string | null;
      /** The remote a remote shore serves: the service binds its principal (decision 0400). */
      remote?: string | null;
      restrictions?: CallRestriction[];
    } = {},
  ) {
    this.#paths = paths;
    this.#client = client;
    this.#serviceEntry = options.serviceEntry ?? null;
    this.#principal = options.principal ?? null;
    this.#remote = options.remote ?? null;
    this.#restrictions = options.restrictions ?? [];
  }

  /** Updates the client identity sent at the next (re)connection. */
  setClient(client: { name: string; version: string }): void {
    this.#client = client;
  }

  /**
   * Calls `listener` when the service says the catalog changed, and with null after a
   * reconnection (a restarted service may be a different version with different tools).
   */
  onCatalogChanged(listener: (generation: number | null) => void): void {
    this.#catalogListeners.push(listener);
  }

  /** A remote shore's word on its tunnel, for the person's status (decision 0460). */
  async reportRemote(state: "connected" | "degraded", why?: string): Promise<void> {
    this.#reported = { state, ...(why === undefined ? {} : { why: why.slice(0, 500) }) };
    // A new connection says it as it opens (and the link then stays up: the service ends a
    // shore only through its link, decision 0520).
    const connection = this.#connection;
    if (connection !== null) {
      return await this.#send(connection, { type: "remote_state", ...this.#reported });
    }
    await this.#connect().catch((error) => {
      this.#reconnectLater();
      throw error;
    });
  }

  /** Calls `listener` when the service ends this remote shore (decision 0520). */
  onRemoteEnd(listener: (why: string) => void): void {
    this.#remoteEnd = listener;
  }

  /** Fetches the tool catalog. */
  async catalog(): Promise<CatalogSnapshot> {
    const connection = await this.#connect();
    return await new Promise((resolve, reject) => {
      const seq = ++this.#seq;
      connection.pending.set(seq, { kind: "catalog", resolve, reject });
      const restrictions = this.#restrictions.length > 0
        ? { restrictions: this.#restrictions }
        : {};
      this.#send(connection, { type: "catalog", seq, ...restrictions });
    });
  }

  /** Opens a workspace labelled for the user. */
  async openWorkspace(label: string): Promise<string> {
    const connection = await this.#connect();
    return await new Promise((resolve, reject) => {
      const seq = ++this.#seq;
      connection.pending.set(seq, { kind: "workspace", resolve, reject });
      this.#send(connection, { type: "open_workspace", seq, label: label.slice(0, 200) });
    });
  }

  /**
   * Releases a workspace (best effort: a broken link releases nothing). Resolves once the
   * message is written, so closing the link right after cannot cut it off.
   */
  async releaseWorkspace(workspace: string): Promise<void> {
    const connection = this.#connection;
    if (connection) await this.#send(connection, { type: "release_workspace", workspace });
  }

  /**
   * Starts a tool call and resolves when it ends. `onSent` receives the call's seq as its start
   * is sent: the handle {@linkcode cancel} takes.
   */
  async start(
    request: Omit<Extract<ConnectorMessage, { type: "start" }>, "type" | "seq">,
    onSent: (seq: number) => void = () => {},
    asked?: AskHandler,
  ): Promise<CallEnd> {
    const connection = await this.#connect();
    return await new Promise((resolve) => {
      const seq = ++this.#seq;
      connection.pending.set(seq, { kind: "start", resolve, asked });
      this.#send(connection, { type: "start", seq, ...request });
      onSent(seq);
    });
  }

  /**
   * Puts a remote agent host's own permission request to the person (decision 0530) and
   * resolves with how it ended; `signal` withdraws it. A broken link ends it as withdrawn.
   */
  async askAgentPermission(
    request: AgentPermission,
    signal: AbortSignal,
  ): Promise<AgentPermissionEnd> {
    const connection = await this.#connect();
    const seq = ++this.#seq;
    const ended = new Promise<AgentPermissionEnd>((resolve) => {
      connection.pending.set(seq, { kind: "agent", resolve });
    });
    const withdraw = () => {
      if (connection.pending.has(seq)) this.#send(connection, { type: "cancel", seq });
    };
    signal.addEventListener("abort", withdraw, { once: true });
    this.#send(connection, { type: "agent_permission", seq, request });
    if (signal.aborted) withdraw();
    return await ended.finally(() => signal.removeEventListener("abort", withdraw));
  }

  /** Carries the person's answer, given in the client, to question `question` of call `seq`. */
  answer(seq: number, question: number, answer: "once" | "site" | "deny"): void {
    const connection = this.#connection;
    if (connection && connection.pending.get(seq)?.kind === "start") {
      this.#send(connection, { type: "answer", seq, question, answer });
    }
  }

  /** Asks the service to cancel the call started with `seq`, while it has not ended. */
  cancel(seq: number): void {
    const connection = this.#connection;
    if (connection && connection.pending.get(seq)?.kind === "start") {
      this.#send(connection, { type: "cancel", seq });
    }
  }

  /**
   * A remote shore takes the person's prompts (decision 0470): the link connects now, says so
   * on every connection, and connects again after a break (bounded back-off), since the service
   * can only send a prompt to a connected shore.
   */
  takePrompts(listener: (message: PromptMessage) => void): void {
    const first = this.#prompts === null;
    this.#prompts = listener;
    if (!first) return;
    // A link already connected says it now; one still connecting says it once it is up.
    const connection = this.#connection;
    if (connection !== null) this.#send(connection, { type: "prompts_ready" });
    else this.#connect().catch(() => this.#reconnectLater());
  }

  /** Relays what the person's turn showed; false when there is no connection to say it on. */
  promptUpdate(message: Omit<Extract<ConnectorMessage, { type: "prompt_update" }>, "type">) {
    const connection = this.#connection;
    if (connection === null) return false;
    this.#send(connection, { type: "prompt_update", ...message });
    return true;
  }

  /**
   * Connects again after a bounded, jittered wait, while the link must stay up: it takes the
   * person's prompts, or it is a remote shore's, which the service can end only through it.
   */
  #reconnectLater(): void {
    if (this.#closed || (this.#prompts === null && this.#reported === null)) return;
    const delay = backoffDelay(
      this.#retries++,
      RECONNECT_FIRST_MS,
      RECONNECT_MAX_MS,
    );
    const timer = setTimeout(() => {
      if (this.#connection === null) this.#connect().catch(() => this.#reconnectLater());
    }, delay);
    Deno.unrefTimer(timer);
  }

  /** Closes the link; pending calls end as outcome-unknown. */
  close(): void {
    this.#closed = true;
    const connection = this.#connection;
    if (connection) {
      try {
        connection.conn.close();
      } catch {
        // Already closed.
      }
    }
  }

  #send(connection: Connection, message: ConnectorMessage): Promise<void> {
    return connection.writer.write(encodeFrame(message, BRIDGE_MAX_FRAME)).catch(() => {
      try {
        connection.conn.close();
      } catch {
        // The read loop notices and fails what is pending.
      }
    });
  }

  #connect(): Promise<Connection> {
    if (this.#closed) return Promise.reject(new ServiceUnavailable("the connector is closing"));
    if (this.#connection) return Promise.resolve(this.#connection);
    this.#connecting ??= this.#open().finally(() => this.#connecting = null);
    return this.#connecting;
  }

  async #open(): Promise<Connection> {
    let opened: OpenedConnection<unknown>;
    try {
      opened = await this.#handshake();
    } catch (error) {
      if (error instanceof ImpostorError) throw new ServiceUnavailable(error.message);
      // Told only that our proof came late (a busy machine): the service is there, try again.
      if (!(error instanceof HandshakeLate)) {
        if (!isAbsent(error)) throw new ServiceUnavailable((error as Error).message);
        this.#startService();
      }
      opened = await this.#waitForService();
    }
    const connection: Connection = { ...opened, pending: new Map() };
    this.#connection = connection;
    this.#readLoop(connection);
    if (this.#everConnected) {
      for (const listener of this.#catalogListeners) listener(null);
    }
    this.#everConnected = true;
    this.#retries = 0;
    if (this.#reported !== null) {
      this.#send(connection, { type: "remote_state", ...this.#reported });
    }
    if (this.#prompts !== null) this.#send(connection, { type: "prompts_ready" });
    return connection;
  }

  #handshake(): Promise<OpenedConnection<unknown>> {
    return connectAndVerify({
      socket: this.#paths.bridgeSocket,
      keys: this.#paths.keys,
      role: "mcp",
      ...(this.#principal === null ? {} : { principal: this.#principal }),
      ...(this.#remote === null ? {} : { remote: this.#remote }),
      client: this.#client,
      maxFrame: BRIDGE_MAX_FRAME,
    });
  }

  #startService(): void {
    const entry = this.#serviceEntry ?? (runningFromSource() ? null : siblingPath("service"));
    if (entry === null) {
      throw new ServiceUnavailable(
        "the Ghostlight service is not running, and this connector was started without the " +
          "service entry it may start (--service-entry); start it with 'deno task ghostlight " +
          "service', or start the connector with 'deno task connector'",
      );
    }
    const instance = this.#paths.instance === null ? [] : ["--instance", this.#paths.instance];
    try {
      // The entry fixes the service's permissions; these are the program's own arguments.
      const child = new Deno.Command(entry, {
        args: [...instance, "service", "--exit-when-idle"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
        detached: true,
      }).spawn();
      child.unref();
    } catch (error) {
      const cli = instanceCommand(this.#paths.instance);
      throw new ServiceUnavailable(
        `the Ghostlight service is not running and could not be started with ${entry} ` +
          `(${(error as Error).message}); '${cli} doctor' says what is missing, or start the ` +
          `service with '${cli} service'`,
      );
    }
  }

  async #waitForService(): Promise<OpenedConnection<unknown>> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        return await this.#handshake();
      } catch (error) {
        if (error instanceof ImpostorError) throw new ServiceUnavailable(error.message);
        last = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new ServiceUnavailable(
      `the Ghostlight service did not come up within ${START_TIMEOUT_MS / 1000} s ` +
        `(${(last as Error)?.message}); see ${this.#paths.logFile}`,
    );
  }

  async #readLoop(connection: Connection): Promise<void> {
    try {
      while (true) {
        const raw = await connection.reader.next();
        if (raw === null) break;
        const parsed = ServiceMessage.safeParse(raw);
        if (!parsed.success) break;
        this.#dispatch(connection, parsed.data);
      }
    } catch {
      // A broken or garbled link ends like a closed one.
    }
    this.#connection = null;
    try {
      connection.conn.close();
    } catch {
      // Already closed.
    }
    for (const pending of connection.pending.values()) {
      if (pending.kind === "start") {
        pending.resolve({ outcome: LINK_BROKEN });
      } else if (pending.kind === "agent") {
        pending.resolve({ answer: "withdrawn", said: "the connection to the service broke" });
      } else {
        pending.reject(new ServiceUnavailable("the connection to the service broke"));
      }
    }
    connection.pending.clear();
    this.#reconnectLater();
  }

  #dispatch(connection: Connection, message: ServiceMessage): void {
    if (message.type === "prompt" || message.type === "prompt_stop") {
      this.#prompts?.(message);
      return;
    }
    if (message.type === "remote_end") {
      this.#remoteEnd?.(message.why);
      return;
    }
    if (message.type === "catalog_changed") {
      for (const listener of this.#catalogListeners) listener(message.generation);
      return;
    }
    const pending = connection.pending.get(message.seq);
    if (!pending) return;
    switch (message.type) {
      case "ask":
      case "withdraw":
        if (pending.kind === "start") pending.asked?.(message);
        return;
      case "agent_permission_answer":
        connection.pending.delete(message.seq);
        if (pending.kind === "agent") pending.resolve(message);
        return;
      case "catalog":
        connection.pending.delete(message.seq);
        if (pending.kind === "catalog") pending.resolve(message);
        return;
      case "workspace_opened":
        connection.pending.delete(message.seq);
        if (pending.kind === "workspace") pending.resolve(message.workspace);
        return;
      case "completed":
        connection.pending.delete(message.seq);
        if (pending.kind === "start") pending.resolve({ outcome: message.outcome });
        return;
      case "rejected":
        connection.pending.delete(message.seq);
        if (pending.kind === "start") {
          pending.resolve({ rejected: message });
        } else if (pending.kind === "agent") {
          pending.resolve({ answer: "withdrawn", said: message.message });
        } else {
          pending.reject(new ServiceUnavailable(`${message.message} ${message.next_step}`));
        }
        return;
    }
  }
}

function isAbsent(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused;
}
