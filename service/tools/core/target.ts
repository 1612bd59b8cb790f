/**
 * Resolving a model-facing tab id to an owned tab in an attached browser, and the CDP helpers
 * every handler uses on it.
 *
 * @module
 */

import { type BrowserHub, type BrowserLink, decomposeTabId } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { ToolError } from "./errors.ts";

/** An owned tab in a connected browser. */
export interface TabTarget {
  link: BrowserLink;
  /** The browser's own id for the tab. */
  native: number;
  /** The id the model uses. */
  tabId: number;
  /**
   * Aborted once the work this target was handed to is over (a read that lost a race to its
   * call's answer): the commands sent for it through {@linkcode sentFor} go out no more
   * (decision 0760).
   */
  signal?: AbortSignal;
}

/** `options` for a command sent for `target`: with its signal, when its work can end. */
export function sentFor<T extends object>(
  target: TabTarget,
  options: T = {} as T,
): T & { signal?: AbortSignal } {
  return target.signal ? { ...options, signal: target.signal } : options;
}

/** The denial for a tab the workspace does not own: identical for unknown and foreign tabs. */
export function notYourTab(tabId: unknown): ToolError {
  return new ToolError(
    "denied",
    `Tab ${tabId} is not one of your tabs.`,
    "Call tabs_context_mcp to list your tabs, or tabs_create_mcp to open one.",
  );
}

/** Most tab ids remembered per workspace as once its own. */
const MAX_FORMER_TABS = 256;
/** Tab ids each workspace has owned, so a tab it lost gets a truer word than a denial. */
const formerTabs = new WeakMap<Workspace, Set<number>>();

/** Notes the workspace's current tabs as once its own (bounded, oldest forgotten first). */
export function rememberTabs(workspace: Workspace): Set<number> {
  let former = formerTabs.get(workspace);
  if (!former) formerTabs.set(workspace, former = new Set());
  for (const tabId of workspace.tabs) {
    former.delete(tabId);
    former.add(tabId);
  }
  for (const oldest of former) {
    if (former.size <= MAX_FORMER_TABS) break;
    former.delete(oldest);
  }
  return former;
}

/** Tab ids each workspace's agent closed itself (tab_control), bounded as the former ones. */
const closedTabs = new WeakMap<Workspace, Set<number>>();

/** Notes that the workspace's agent closed this tab itself. */
export function noteClosedByAgent(workspace: Workspace, tabId: number): void {
  let closed = closedTabs.get(workspace);
  if (!closed) closedTabs.set(workspace, closed = new Set());
  closed.delete(tabId);
  closed.add(tabId);
  for (const oldest of closed) {
    if (closed.size <= MAX_FORMER_TABS) break;
    closed.delete(oldest);
  }
}

/** The tabs the workspace's agent closed itself, most recent last. */
export function closedByAgent(workspace: Workspace): ReadonlySet<number> {
  return closedTabs.get(workspace) ?? new Set();
}

/**
 * Why a tab id is not usable by this workspace. Only the workspace's own history shapes the
 * answer: an id it once owned is said to be gone; any other id gets the one denial, so the
 * answer never tells which ids exist elsewhere.
 */
function lostOrDenied(workspace: Workspace, tabId: number): ToolError {
  const former = rememberTabs(workspace);
  if (former.has(tabId)) {
    return new ToolError(
      "tool_failure",
      `Tab ${tabId} is gone: it was closed, or the browser holding your tabs disconnected or ` +
        "restarted.",
      "Call tabs_context_mcp to see your tabs (createIfEmpty: true opens a new one if none " +
        "is left).",
    );
  }
  if (former.size === 0) {
    return new ToolError(
      "denied",
      `Tab ${tabId} is not one of your tabs: you have none yet in this session (tabs from ` +
        "before Ghostlight or the browser restarted are not kept).",
      "Call tabs_context_mcp with createIfEmpty: true to start again.",
    );
  }
  return notYourTab(tabId);
}

/** Resolves `tabId` to an owned tab, or throws the one denial for anything else. */
export function ownedTab(workspace: Workspace, hub: BrowserHub, tabId: number): TabTarget {
  if (!workspace.tabs.has(tabId)) throw lostOrDenied(workspace, tabId);
  rememberTabs(workspace);
  const parts = decomposeTabId(tabId);
  const link = parts === null ? undefined : hub.bySlot(parts.slot);
  if (!parts || !link) {
    throw new ToolError(
      "not_dispatched",
      `The browser holding your tabs disconnected (tab ${tabId}).`,
      "Call tabs_context_mcp to start again (with createIfEmpty: true for a new tab), or " +
        "ask the user to reopen that browser.",
    );
  }
  return { link, native: parts.native, tabId };
}

/** The browser a workspace works in: the one holding its tabs, else the newest attached. */
export function workspaceBrowser(workspace: Workspace, hub: BrowserHub): BrowserLink {
  for (const tabId of workspace.tabs) {
    const parts = decomposeTabId(tabId);
    const link = parts && hub.bySlot(parts.slot);
    if (link) return link;
  }
  const link = hub.pick();
  if (!link) {
    throw new ToolError(
      "not_dispatched",
      "No browser is connected to Ghostlight.",
      "Ask the user to open Chromium with the Ghostlight extension (or run " +
        "'ghostlight browser launch'), then call this tool again.",
    );
  }
  return link;
}

/** Sends one CDP command to the tab. */
export function cdp(
  target: TabTarget,
  method: string,
  params: Record<string, unknown> = {},
  options: { timeoutMs?: number } = {},
): Promise<Record<string, unknown>> {
  return target.link.call(
    "cdp",
    { tab_id: target.native, method, params },
    sentFor(target, options),
  );
}
