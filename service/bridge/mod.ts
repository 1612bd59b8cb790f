/**
 * One MCP connector's session on the bridge: catalog requests, workspaces, and works. The
 * connector's sequence numbers map to work ids here; the work id goes back only to be echoed.
 *
 * @module
 */

import {
  ConnectorMessage,
  type Outcome,
  type ServiceMessage,
  type ToolDescriptor,
} from "../../shared/bridge.ts";
import { BRIDGE_MAX_FRAME } from "../../shared/bridge.ts";
import { type BoundedWriter, encodeFrame, type FrameReader } from "../../shared/framing.ts";
import { BrowserError, type BrowserHub } from "../browser/mod.ts";
import { type Catalog, INSTRUCTIONS } from "../catalog/mod.ts";
import { log } from "../log/mod.ts";
import { failureOutcome, HANDLERS, type ToolContext } from "../tools/mod.ts";
import type { Scheduler } from "../scheduler/mod.ts";
import {
  MAX_WORKSPACES_PER_CONNECTION,
  type WorkspaceHolds,
  WorkspaceLimit,
  type WorkspaceRegistry,
} from "../workspace/mod.ts";

/** How many works one connector may have running at once. */
export const MAX_ACTIVE_WORKS = 16;

/** How long a dispatched work may keep settling after its caller stopped waiting. */
export const DEFAULT_SETTLEMENT_MS = 180_000;

/** Reads `GHOSTLIGHT_SETTLEMENT_MS` (tests shorten it). */
export function settlementMsFromEnv(): number {
  const raw = Number(Deno.env.get("GHOSTLIGHT_SETTLEMENT_MS"));
  return Number.isInteger(raw) && raw > 0 ? raw : DEFAULT_SETTLEMENT_MS;
}

/** Mints work ids, unique within one service. */
export class WorkIds {
  #last = 0;

  /** The next work id. */
  next(): string {
    return `w${++this.#last}`;
  }
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
}

/** A connected MCP connector, for status. */
export interface SessionInfo {
  client: string;
  connectedAt: Date;
  activeWorks: number;
}

/** Serves one MCP connector until its connection ends. */
export async function serveSession(
  reader: FrameReader,
  writer: BoundedWriter,
  info: SessionInfo,
  deps: SessionDeps,
): Promise<void> {
  const works = new Map<string, AbortController>();
  const { holds, scheduler, settlementMs } = deps;
  /** This connection's place among the workspace holders. */
  const holder = holds.connect();
  /** The refusal for one workspace too many on this connection, or null when there is room. */
  const overWorkspaceCap = (): string | null =>
    holds.isFull(holder)
      ? `This connection already holds ${MAX_WORKSPACES_PER_CONNECTION} browser workspaces.`
      : null;
  let open = true;
  const send = (message: ServiceMessage) => {
    if (!open) return;
    let frame: Uint8Array;
    try {
      frame = encodeFrame(message, BRIDGE_MAX_FRAME);
    } catch (error) {
      // Only a result can outgrow a frame; the caller still gets an answer, not a silent wait.
      if (message.type !== "completed") throw error;
      log("warn", `a result did not fit a bridge frame: ${(error as Error).message}`);
      frame = encodeFrame(
        {
          type: "completed",
          work: message.work,
          outcome: {
            kind: "tool_failure",
            message: "The result was too large to return.",
            next_step: "Ask for less: pass a smaller max_chars or limit, or narrow the request.",
          },
        } satisfies ServiceMessage,
        BRIDGE_MAX_FRAME,
      );
    }
    writer.write(frame).catch((error) => {
      log("warn", `could not send ${message.type} to a connector: ${error.message}`);
    });
  };

  /** Refuses a request before any work began. */
  const refuse = (
    seq: number,
    kind: Extract<ServiceMessage, { type: "rejected" }>["kind"],
    message: string,
    next_step: string,
  ) => send({ type: "rejected", seq, kind, message, next_step });

  const handle = async (
    message: Extract<ConnectorMessage, { type: "start" }>,
    context: ToolContext,
  ): Promise<Outcome> => {
    const problem = deps.catalog.argumentProblem(message.tool, message.arguments);
    if (problem !== null) {
      return {
        kind: "tool_failure",
        message: problem,
        next_step: "Fix the arguments and call again.",
      };
    }
    try {
      return await HANDLERS[message.tool](message.arguments, context);
    } catch (error) {
      if (error instanceof BrowserError && error.kind === "not_sent") return notSentOutcome(error);
      return failureOutcome(error, context.workspace);
    }
  };

  const runWork = async (message: Extract<ConnectorMessage, { type: "start" }>) => {
    const tool = deps.catalog.row(message.tool);
    if (!tool) {
      refuse(
        message.seq,
        "unknown_tool",
        `There is no tool named ${JSON.stringify(message.tool)}.`,
        "List the tools again and use one of those names.",
      );
      return;
    }
    if (works.size >= MAX_ACTIVE_WORKS) {
      refuse(
        message.seq,
        "busy",
        `This client already has ${MAX_ACTIVE_WORKS} browser calls running.`,
        "Wait for one to finish, then try again.",
      );
      return;
    }
    const traits = deps.catalog.traits(message.tool);
    let workspace = message.workspace === undefined
      ? undefined
      : deps.workspaces.get(message.workspace);
    if (workspace && !holds.holds(holder, workspace.id)) {
      const full = overWorkspaceCap();
      if (full !== null) {
        refuse(
          message.seq,
          "busy",
          full,
          "Keep using a workspaceId you already have, or use a new connection.",
        );
        return;
      }
      // Naming a workspace holds it: it lives while any connection that uses it does.
      holds.hold(holder, workspace.id);
    }
    if (message.workspace !== undefined && !workspace) {
      refuse(
        message.seq,
        "no_workspace",
        "That workspaceId is unknown or was released.",
        "Call tabs_context_mcp without a workspaceId to start a new workspace.",
      );
      return;
    }
    if (!workspace && traits.needsWorkspace) {
      if (!traits.createsContext) {
        refuse(
          message.seq,
          "no_workspace",
          `${message.tool} needs a workspaceId.`,
          "Call tabs_context_mcp (or tabs_create_mcp) first and pass the workspaceId it returns.",
        );
        return;
      }
      const full = overWorkspaceCap();
      if (full !== null) {
        refuse(
          message.seq,
          "busy",
          full,
          "Pass the workspaceId an earlier tabs_context_mcp or tabs_create_mcp call " +
            "returned instead of starting another workspace.",
        );
        return;
      }
      try {
        // Minted for a caller that holds it only as a handle: it lives while this connection
        // does, and for the grace period after, unless some connection names it again.
        workspace = holds.open(holder, message.context.client_name);
      } catch (error) {
        if (!(error instanceof WorkspaceLimit)) throw error;
        refuse(
          message.seq,
          "busy",
          error.message,
          "Close another agent's session, then try again.",
        );
        return;
      }
    }
    const work = deps.workIds.next();
    const controller = new AbortController();
    const queued = scheduler.enqueue(workspace?.id ?? work, controller.signal);
    if (queued === null) {
      refuse(
        message.seq,
        "busy",
        `This workspace already has ${scheduler.options.maxQueuedPerLane} browser ` +
          "calls waiting.",
        "Wait for some to finish, then try again.",
      );
      return;
    }
    works.set(work, controller);
    deps.activity.works++;
    info.activeWorks = works.size;
    send({ type: "started", seq: message.seq, work });
    let outcome: Outcome;
    const admission = await queued;
    if (admission.kind === "retired") {
      outcome = retiredOutcome(admission.reason, admission.waitedMs);
    } else {
      // A clearable timer rather than AbortSignal.timeout, so nothing outlives the work.
      const settling = new AbortController();
      const settlementTimer = setTimeout(() => settling.abort(), settlementMs);
      const settlement = settling.signal;
      const handling = handle(message, {
        workspace: workspace!,
        browsers: deps.browsers,
        workspaces: deps.workspaces,
        signal: AbortSignal.any([controller.signal, settlement]),
      });
      // The lane stays held until the handler really returns, even past the settlement window:
      // the next call on this workspace must not interleave with a step still in the browser.
      handling.finally(() => admission.release());
      outcome = await Promise.race([handling, unsettled(settlement, settlementMs)]);
      clearTimeout(settlementTimer);
      if (outcome.kind === "success" && traits.createsContext && workspace) {
        outcome = { ...outcome, workspace: workspace.id };
      }
      if (controller.signal.aborted) {
        outcome = {
          kind: "cancelled",
          message: "The call was cancelled while it ran.",
          next_step: "Inspect the page before repeating it: part of it may have happened.",
        };
      }
    }
    works.delete(work);
    deps.activity.works--;
    info.activeWorks = works.size;
    send({ type: "completed", work, outcome });
  };

  try {
    while (true) {
      const raw = await reader.next();
      if (raw === null) break;
      const parsed = ConnectorMessage.safeParse(raw);
      if (!parsed.success) {
        log("warn", "a connector sent a malformed bridge message; closing its session");
        break;
      }
      const message = parsed.data;
      switch (message.type) {
        case "catalog":
          send({
            type: "catalog",
            seq: message.seq,
            generation: deps.catalog.generation,
            instructions: INSTRUCTIONS,
            tools: deps.catalog.descriptors() satisfies ToolDescriptor[],
          });
          break;
        case "open_workspace":
          try {
            const full = overWorkspaceCap();
            if (full !== null) throw new WorkspaceLimit(full);
            const workspace = holds.open(holder, message.label);
            send({ type: "workspace_opened", seq: message.seq, workspace: workspace.id });
          } catch (error) {
            refuse(
              message.seq,
              "busy",
              (error as Error).message,
              "Close another agent's session, then try again.",
            );
          }
          break;
        case "release_workspace":
          holds.release(holder, message.workspace);
          break;
        case "start":
          runWork(message).catch((error) => log("error", `work failed: ${error.message}`));
          break;
        case "cancel":
          works.get(message.work)?.abort();
          break;
      }
    }
  } catch (error) {
    log("warn", `connector session ended: ${(error as Error).message}`);
  } finally {
    open = false;
    // A connection lost without a clean release: its workspaces wait out a grace period so a
    // reconnecting connector can carry on in them.
    holds.disconnect(holder);
  }
}

/**
 * A browser command refused before it left the service (the browser link was already closed or
 * would not take the frame): that command did not happen. Commands cut off in flight are
 * `disconnected` instead and stay outcome_unknown.
 */
function notSentOutcome(error: BrowserError): Outcome {
  return {
    kind: "not_dispatched",
    message: `The browser was not reachable, so this call's browser command was never sent ` +
      `(${error.message}).`,
    next_step: "Check that the browser is running and attached ('ghostlight status'), then " +
      "retry.",
  };
}

/** What a work that never left its queue amounted to: nothing happened in the browser. */
function retiredOutcome(reason: "cancelled" | "queue_deadline", waitedMs: number): Outcome {
  if (reason === "cancelled") {
    return {
      kind: "cancelled",
      message: "The call was cancelled before it reached the browser; nothing was done.",
      next_step: "Call it again if it is still wanted.",
    };
  }
  return {
    kind: "not_dispatched",
    message: `The call waited ${Math.round(waitedMs / 100) / 10} s behind this workspace's ` +
      "other calls and was not started.",
    next_step: "Nothing was done in the browser; it is safe to retry.",
  };
}

/** Resolves when the settlement window closes on a work that has not ended. */
function unsettled(settlement: AbortSignal, settlementMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    settlement.addEventListener("abort", () =>
      resolve({
        kind: "outcome_unknown",
        message: `The call did not settle within ${settlementMs / 1000} s and was abandoned.`,
        next_step: "It may have partly happened: inspect the page before retrying.",
      }), { once: true });
  });
}
