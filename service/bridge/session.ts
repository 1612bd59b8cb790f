/**
 * What one connector's session holds and shares: the service-wide objects it was given, its own
 * works and workspace holds, and the one way it answers the connector.
 *
 * @module
 */

import type { Questions } from "../asks/mod.ts";
import { BRIDGE_MAX_FRAME, type ServiceMessage } from "../../shared/bridge.ts";
import { type BoundedWriter, encodeFrame } from "../../shared/framing.ts";
import type { AuditKey, AuditLog } from "../audit/mod.ts";
import type { BrowserHub } from "../browser/mod.ts";
import type { Catalog } from "../catalog/mod.ts";
import type { PersonControls, PolicyStore } from "../governance/mod.ts";
import { log } from "../log/mod.ts";
import type { Scheduler } from "../scheduler/mod.ts";
import type { Recordings } from "../tools/mod.ts";
import type { PromptRelay } from "./prompt_relay.ts";
import type { RemoteShores } from "./remote_shores.ts";
import type { Holder, WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";

/** Mints work ids, unique within one service. */
export class WorkIds {
  #last = 0;

  /** The next work id. */
  next(): string {
    return `w${++this.#last}`;
  }
}

/** What governs every call: the policy in force, the person's controls, and the audit. */
export interface GovernanceDeps {
  policy: PolicyStore;
  person: PersonControls;
  audit: AuditLog;
  /** Keys the audit's hashes of arguments and workspaces. */
  auditKey: AuditKey;
  /** The questions a policy's ask puts to the person (decision 0360). */
  questions: Questions;
}

/** The service-wide objects every session of one service shares; the daemon builds them once. */
export interface SessionDeps {
  catalog: Catalog;
  workspaces: WorkspaceRegistry;
  /** Which connections hold which workspaces, and the grace releases of the orphaned. */
  holds: WorkspaceHolds;
  browsers: BrowserHub;
  /** Orders works per workspace: one for the whole service, lanes being workspaces. */
  scheduler: Scheduler;
  workIds: WorkIds;
  /** Counts works across all sessions, so the service never idles out under work. */
  activity: { works: number };
  /** How long a dispatched work may keep settling after its caller stopped waiting. */
  settlementMs: number;
  governance: GovernanceDeps;
  /** The service's tab recordings (gif_creator), kept in memory only. */
  recordings: Recordings;
  /** The side panel's prompts to remote agents (decision 0470); none in a bare harness. */
  prompts?: PromptRelay;
  /** Each remote's current shore, told to end on the person's Stop (decision 0520). */
  remotes?: RemoteShores;
}

/** The abort reason of a call the person stopped while it ran. */
export const STOPPED_BY_PERSON = "stopped by the person";

/** The abort reason of a queued call whose connector went away before it was dispatched. */
export const CONNECTOR_GONE = "the connector went away";

/** A connected MCP connector, for status. */
export interface SessionInfo {
  /** Who it acts for, from its proven hello: what the policy's grants name (decision 0255). */
  principal: string;
  /** What its MCP client says it is (`clientInfo`): for people and the audit, never authority. */
  client: string;
  /** The name alone of {@linkcode client}, as the client gave it ("" when it gave none). */
  clientName: string;
  connectedAt: Date;
  activeWorks: number;
  /**
   * A remote shore's remote, bound from the service's own remotes file at its hello (decision
   * 0400): its name, the host it dials and its tool pin. None for a local connector.
   */
  remote?: RemoteBinding;
  /** What a remote shore last said of its tunnel (decision 0460); none from other connections. */
  remoteState?: { state: "connected" | "degraded"; why?: string; since: Date };
}

/** What the service bound to a remote shore's connection from its own configuration. */
export interface RemoteBinding {
  readonly name: string;
  /** The agent host's host and port, for the person's status. */
  readonly host: string;
  /** The only tools the remote may see or call (decision 0400). */
  readonly pin: ReadonlySet<string>;
  /**
   * The remote as the file says now, read again at each call (decision 0470): the shore's
   * connection lives long, since it takes the person's prompts, so a pin or a removal made since
   * it connected applies at its next call. None: the bound pin holds (a bare harness).
   */
  readonly current?: () => Promise<RemoteBinding | { refused: string }>;
  /** Ends the shore's connection (its remote was removed). */
  readonly drop?: () => void;
}

/** What one connector was last told of the catalog, to know when a reload changes its view. */
export interface CatalogView {
  /** The connector's own restrictions, as its last catalog request carried them. */
  restrictions: { capabilities?: readonly string[] }[];
  /** The names of the tools it was last told are withheld, joined; null before it asked. */
  listed: string | null;
}

/** Why a request was refused before any work began: a typed kind, a message, a next step. */
export type Refusal = Omit<Extract<ServiceMessage, { type: "rejected" }>, "type" | "seq">;

/** One connector's session, as every message handler sees it. */
export interface Session {
  readonly deps: SessionDeps;
  readonly info: SessionInfo;
  /** This connection's place among the workspace holders. */
  readonly holder: Holder;
  /** This connection's works that started and have not completed, by their `start`'s seq. */
  readonly works: Map<number, AbortController>;
  /** Which of {@linkcode works} still wait in their lane: nothing of them reached the browser. */
  readonly queued: Set<number>;
  /** What the connector was last told of the catalog. */
  readonly view: CatalogView;
  /**
   * The questions put to the person through this connector's client, each with the seq of the
   * call that asked: only these may be answered from here (decision 0361).
   */
  readonly elicited: Map<number, number>;
  /**
   * Aborted when the session ends: its multi-step works stop after the step in progress, since
   * no one is left to want the rest.
   */
  readonly gone: AbortSignal;
  /** Sends a message to the connector, unless the session has ended. */
  send(message: ServiceMessage): void;
  /** Refuses request `seq` before any work began. */
  refuse(seq: number, refusal: Refusal): void;
  /**
   * Ends the session, its connection lost or closed: nothing more is sent, its queued works
   * retire before dispatch (no one is left to want them), works already dispatched drain and are
   * recorded unseen (a multi-step one after the step in progress), and each workspace it was the
   * last to hold starts its grace period.
   */
  end(): void;
}

/** Opens a session that answers through `writer`. */
export function openSession(
  writer: BoundedWriter,
  info: SessionInfo,
  deps: SessionDeps,
): Session {
  let open = true;
  const holder = deps.holds.connect(info.principal);
  const works = new Map<number, AbortController>();
  const queued = new Set<number>();
  const gone = new AbortController();
  // The person may stop this agent: its running calls end at once, and a remote agent's shore
  // ends its tunnel (decision 0520).
  deps.governance.person.connected(holder, () => {
    for (const controller of works.values()) controller.abort(STOPPED_BY_PERSON);
    if (info.remote !== undefined) deps.remotes?.stop(info.remote.name);
  });
  const send = (message: ServiceMessage) => {
    if (!open) return;
    writer.write(frameFor(message)).catch((error) => {
      log("warn", `could not send ${message.type} to a connector: ${error.message}`);
    });
  };
  return {
    deps,
    info,
    holder,
    works,
    queued,
    view: { restrictions: [], listed: null },
    elicited: new Map(),
    gone: gone.signal,
    send,
    refuse: (seq, refusal) => send({ type: "rejected", seq, ...refusal }),
    end: () => {
      open = false;
      for (const seq of queued) works.get(seq)?.abort(CONNECTOR_GONE);
      gone.abort(CONNECTOR_GONE);
      deps.governance.person.disconnected(holder);
      deps.holds.disconnect(holder);
    },
  };
}

/** Encodes a message for the connector; a result too large for a frame becomes a failure. */
function frameFor(message: ServiceMessage): Uint8Array {
  try {
    return encodeFrame(message, BRIDGE_MAX_FRAME);
  } catch (error) {
    // Only a result can outgrow a frame; the caller still gets an answer, not a silent wait.
    if (message.type !== "completed") throw error;
    log("warn", `a result did not fit a bridge frame: ${(error as Error).message}`);
    return encodeFrame(
      {
        type: "completed",
        seq: message.seq,
        outcome: {
          kind: "tool_failure",
          message: "The result was too large to return.",
          next_step: "Ask for less: pass a smaller max_chars or limit, or narrow the request.",
        },
      } satisfies ServiceMessage,
      BRIDGE_MAX_FRAME,
    );
  }
}
