/**
 * Admission of a work's workspace: which workspace a `start` will run in, held by its connection,
 * or the refusal that ends it before it is queued.
 *
 * @module
 */

import type { ConnectorMessage } from "../../shared/bridge.ts";
import { MAX_WORKSPACES_PER_CONNECTION, type Workspace, WorkspaceLimit } from "../workspace/mod.ts";
import type { Refusal, Session } from "./session.ts";

/** The workspace a work will run in (none for a stateless tool called without one), or why not. */
export type WorkspaceAdmission = { workspace: Workspace | undefined } | { refusal: Refusal };

/** The message of the refusal for one workspace too many on one connection. */
export const CONNECTION_FULL =
  `This connection already holds ${MAX_WORKSPACES_PER_CONNECTION} browser workspaces.`;

/**
 * Whether the queue a work would wait in has room: null when it has, else the busy refusal.
 * `lane` is the workspace the work will run in, or undefined for a lane of its own (a stateless
 * call, or a workspace not minted yet: a new lane, empty).
 */
export type QueueCheck = (lane: string | undefined) => Refusal | null;

/**
 * Admits a `start` to its workspace. A named workspace must exist, and naming it holds it (within
 * the connection's cap). A tool that needs a workspace and was given none gets one minted only
 * when it creates context; the connection holds the new one. Anything else is refused. The queue
 * is checked before anything is held or minted: a call refused as busy leaves nothing behind.
 */
export function admitWorkspace(
  session: Pick<Session, "deps" | "holder">,
  message: Extract<ConnectorMessage, { type: "start" }>,
  queueCheck: QueueCheck,
): WorkspaceAdmission {
  const { deps: { workspaces, holds, catalog }, holder } = session;
  if (message.workspace !== undefined) {
    const workspace = workspaces.get(message.workspace);
    if (!workspace) {
      return refusal(
        "no_workspace",
        "That workspaceId is unknown or was released.",
        "Call tabs_context_mcp without a workspaceId to start a new workspace.",
      );
    }
    const full = queueCheck(workspace.id);
    if (full !== null) return { refusal: full };
    if (!holds.holds(holder, workspace.id)) {
      if (holds.isFull(holder)) {
        return refusal(
          "busy",
          CONNECTION_FULL,
          "Keep using a workspaceId you already have, or use a new connection.",
        );
      }
      // Naming a workspace holds it: it lives while any connection that uses it does.
      holds.hold(holder, workspace.id);
    }
    return { workspace };
  }
  const traits = catalog.traits(message.tool);
  if (!traits.needsWorkspace) {
    const full = queueCheck(undefined);
    return full === null ? { workspace: undefined } : { refusal: full };
  }
  if (!traits.createsContext) {
    return refusal(
      "no_workspace",
      `${message.tool} needs a workspaceId.`,
      "Call tabs_context_mcp (or tabs_create_mcp) first and pass the workspaceId it returns.",
    );
  }
  if (holds.isFull(holder)) {
    return refusal(
      "busy",
      CONNECTION_FULL,
      "Pass the workspaceId an earlier tabs_context_mcp or tabs_create_mcp call returned " +
        "instead of starting another workspace.",
    );
  }
  const full = queueCheck(undefined);
  if (full !== null) return { refusal: full };
  try {
    // Minted for a caller that holds it only as a handle: it lives while this connection does,
    // and for the grace period after, unless some connection names it again.
    return { workspace: holds.open(holder, message.context.client_name) };
  } catch (error) {
    if (!(error instanceof WorkspaceLimit)) throw error;
    return refusal("busy", error.message, "Close another agent's session, then try again.");
  }
}

/** An admission refused. */
function refusal(
  kind: Refusal["kind"],
  message: string,
  next_step: string,
): { refusal: Refusal } {
  return { refusal: { kind, message, next_step } };
}
