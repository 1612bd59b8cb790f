/**
 * What every tool handler receives, and the handler type.
 *
 * @module
 */

import type { ContentBlock, Outcome } from "../../../shared/bridge.ts";
import type { BrowserHub } from "../../browser/mod.ts";
import type { Workspace, WorkspaceRegistry } from "../../workspace/mod.ts";
import type { Recordings } from "../gif/recordings.ts";

/**
 * The world a handler works in. `W` is the workspace as the handler may see it: always present
 * for tools that work in the browser (the bridge refuses them without one), possibly absent for
 * stateless tools such as update_plan.
 */
export interface ToolContext<W extends Workspace | undefined = Workspace> {
  workspace: W;
  browsers: BrowserHub;
  workspaces: WorkspaceRegistry;
  /** Aborted when the caller cancels; multi-step handlers stop after their current step. */
  signal: AbortSignal;
  /** The service's tab recordings (gif_creator). */
  recordings: Recordings;
}

/** A tool's implementation. Arguments were already checked against its schema. */
export type Handler = (args: Record<string, unknown>, context: ToolContext) => Promise<Outcome>;

/** A stateless tool's implementation: it may be called with no workspace. */
export type StatelessHandler = (
  args: Record<string, unknown>,
  context: ToolContext<Workspace | undefined>,
) => Promise<Outcome>;

/** A success outcome with text and structured content. */
export function success(
  text: string,
  structured?: Record<string, unknown>,
  extra: ContentBlock[] = [],
): Outcome {
  return {
    kind: "success",
    content: [{ type: "text", text }, ...extra],
    ...(structured ? { structured } : {}),
  };
}
