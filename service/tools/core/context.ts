/**
 * What every tool handler receives, and the handler type.
 *
 * @module
 */

import type { ContentBlock, Outcome } from "../../../shared/bridge.ts";
import type { BrowserHub } from "../../browser/mod.ts";
import type { Capability } from "../../catalog/mod.ts";
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
  /**
   * Aborted when the caller is gone (its connection ended): a multi-step handler stops after the
   * step in progress, which runs to its end; a single call runs to its end.
   */
  callerGone?: AbortSignal;
  /** The service's tab recordings (gif_creator). */
  recordings: Recordings;
  /** The policy in force: in words for `explain`, and its decision for one frame or tab. */
  policy: PolicyView;
  /**
   * How `script` and `browser_batch` call other tools, each step as if called alone. Absent
   * inside a step, so steps never nest.
   */
  steps?: StepRunner;
}

/** The person's policy as the tools may tell it (governance decides; tools only say). */
export interface PolicyView {
  /** The policy in words, one sentence a line; null when none is set (all open). */
  words(): string[] | null;
  /**
   * Whether this call may touch a document at `url` inside one of its tabs (a frame of the page,
   * a tab in a list) with `capabilities`: null when it may, else why not. Governance decides, with
   * the same decision and the same call facts as the check before dispatch, for that document's
   * host instead of the tab's.
   */
  refusal(url: string, capabilities: readonly Capability[]): Refusal | null;
}

/**
 * Why a document is withheld. `why` is in the service's and the person's words only (the rule
 * and its list or grant); the document's host is the page's choice and never in it, so `why` may
 * be said outside the fence.
 */
export interface Refusal {
  sacred: boolean;
  why: string;
}

/** What is known about a step before it runs. */
export interface StepCheck {
  /** Its arguments' first problem, named as for a call of its own; null when valid. */
  problem: string | null;
  /** Whether it would be allowed, and why. */
  allowed: boolean;
  why: string;
}

/**
 * Runs other tools for a multi-step tool. The bridge provides it: every step goes through the
 * same list of stages as a call from the client (decision 0325: arguments, the person's
 * controls, the policy, the handler, the landing check, the fence, the audit).
 */
export interface StepRunner {
  /** Checks a step without running it (a dry run, or before the first step runs). */
  check(tool: string, args: Record<string, unknown>): StepCheck;
  /** Runs one step in the caller's workspace; `signal` ends it early. */
  run(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Outcome>;
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
