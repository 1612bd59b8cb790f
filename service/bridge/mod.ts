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
import type { BrowserHub } from "../browser/mod.ts";
import { type Catalog, INSTRUCTIONS } from "../catalog/mod.ts";
import { log } from "../log/mod.ts";
import { failureOutcome, HANDLERS } from "../tools/mod.ts";
import { WorkspaceLimit, type WorkspaceRegistry } from "../workspace/mod.ts";

/** How many works one connector may have running at once. */
export const MAX_ACTIVE_WORKS = 16;

/** What a session needs from the service. */
export interface SessionDeps {
  catalog: Catalog;
  workspaces: WorkspaceRegistry;
  browsers: BrowserHub;
  /** Counts works across all sessions, so the service never idles out under work. */
  activity: { works: number };
}

/** A connected MCP connector, for status. */
export interface SessionInfo {
  client: string;
  connectedAt: Date;
  activeWorks: number;
}

let workCounter = 0;

/** Serves one MCP connector until its connection ends. */
export async function serveSession(
  reader: FrameReader,
  writer: BoundedWriter,
  info: SessionInfo,
  deps: SessionDeps,
): Promise<void> {
  const works = new Map<string, AbortController>();
  let open = true;
  const send = (message: ServiceMessage) => {
    if (!open) return;
    writer.write(encodeFrame(message, BRIDGE_MAX_FRAME)).catch((error) => {
      log("warn", `could not send ${message.type} to a connector: ${error.message}`);
    });
  };

  const runWork = async (message: Extract<ConnectorMessage, { type: "start" }>) => {
    const tool = deps.catalog.row(message.tool);
    if (!tool) {
      send({
        type: "rejected",
        seq: message.seq,
        kind: "unknown_tool",
        message: `There is no tool named ${JSON.stringify(message.tool)}.`,
        next_step: "List the tools again and use one of those names.",
      });
      return;
    }
    if (works.size >= MAX_ACTIVE_WORKS) {
      send({
        type: "rejected",
        seq: message.seq,
        kind: "busy",
        message: `This client already has ${MAX_ACTIVE_WORKS} browser calls running.`,
        next_step: "Wait for one to finish, then try again.",
      });
      return;
    }
    const traits = deps.catalog.traits(message.tool);
    let workspace = message.workspace === undefined
      ? undefined
      : deps.workspaces.get(message.workspace);
    if (message.workspace !== undefined && !workspace) {
      send({
        type: "rejected",
        seq: message.seq,
        kind: "no_workspace",
        message: "That workspaceId is unknown or was released.",
        next_step: "Call tabs_context_mcp without a workspaceId to start a new workspace.",
      });
      return;
    }
    if (!workspace && traits.needsWorkspace) {
      if (!traits.createsContext) {
        send({
          type: "rejected",
          seq: message.seq,
          kind: "no_workspace",
          message: `${message.tool} needs a workspaceId.`,
          next_step:
            "Call tabs_context_mcp (or tabs_create_mcp) first and pass the workspaceId it returns.",
        });
        return;
      }
      try {
        workspace = deps.workspaces.open(message.context.client_name);
      } catch (error) {
        if (!(error instanceof WorkspaceLimit)) throw error;
        send({
          type: "rejected",
          seq: message.seq,
          kind: "busy",
          message: error.message,
          next_step: "Close another agent's session, then try again.",
        });
        return;
      }
    }
    const work = `w${++workCounter}`;
    const controller = new AbortController();
    works.set(work, controller);
    deps.activity.works++;
    info.activeWorks = works.size;
    send({ type: "started", seq: message.seq, work });
    let outcome: Outcome;
    try {
      const problem = deps.catalog.argumentProblem(message.tool, message.arguments);
      if (problem !== null) {
        outcome = {
          kind: "tool_failure",
          message: problem,
          next_step: "Fix the arguments and call again.",
        };
      } else {
        outcome = await HANDLERS[message.tool](message.arguments, {
          workspace: workspace!,
          browsers: deps.browsers,
          workspaces: deps.workspaces,
          signal: controller.signal,
        });
      }
    } catch (error) {
      outcome = failureOutcome(error);
    } finally {
      works.delete(work);
      deps.activity.works--;
      info.activeWorks = works.size;
    }
    if (outcome.kind === "success" && traits.createsContext && workspace) {
      outcome = { ...outcome, workspace: workspace.id };
    }
    if (controller.signal.aborted) {
      outcome = {
        kind: "cancelled",
        message: "The call was cancelled.",
        next_step: "Inspect the page before repeating it.",
      };
    }
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
            const workspace = deps.workspaces.open(message.label);
            send({ type: "workspace_opened", seq: message.seq, workspace: workspace.id });
          } catch (error) {
            send({
              type: "rejected",
              seq: message.seq,
              kind: "busy",
              message: (error as Error).message,
              next_step: "Close another agent's session, then try again.",
            });
          }
          break;
        case "release_workspace":
          deps.workspaces.release(message.workspace);
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
  }
}
