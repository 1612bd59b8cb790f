/**
 * Resolving a model-facing tab id to an owned tab in an attached browser, and the CDP helpers
 * every handler uses on it.
 *
 * @module
 */

import { type BrowserHub, type BrowserLink, decomposeTabId } from "../browser/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import { ToolError } from "./errors.ts";

/** An owned tab in a connected browser. */
export interface TabTarget {
  link: BrowserLink;
  /** The browser's own id for the tab. */
  native: number;
  /** The id the model uses. */
  tabId: number;
}

/** The denial for a tab the workspace does not own: identical for unknown and foreign tabs. */
export function notYourTab(tabId: unknown): ToolError {
  return new ToolError(
    "denied",
    `Tab ${tabId} is not one of your tabs.`,
    "Call tabs_context_mcp to list your tabs, or tabs_create_mcp to open one.",
  );
}

/** Resolves `tabId` to an owned tab, or throws the one denial for anything else. */
export function ownedTab(workspace: Workspace, hub: BrowserHub, tabId: number): TabTarget {
  if (!workspace.tabs.has(tabId)) throw notYourTab(tabId);
  const parts = decomposeTabId(tabId);
  const link = parts === null ? undefined : hub.bySlot(parts.slot);
  if (!parts || !link) {
    throw new ToolError(
      "not_dispatched",
      `The browser that holds tab ${tabId} is not connected.`,
      "Reopen that browser, or call tabs_create_mcp to work in another one.",
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
  return target.link.call("cdp", { tab_id: target.native, method, params }, options);
}

/**
 * Evaluates an expression in the page's main world and returns its JSON value. Evaluation goes
 * through CDP, so a page's Content-Security-Policy does not block it.
 */
export async function evaluate<T>(target: TabTarget, expression: string): Promise<T> {
  const reply = await cdp(target, "Runtime.evaluate", {
    expression,
    returnByValue: true,
    awaitPromise: true,
  });
  if (reply.exceptionDetails) {
    // The exception's text is the page's to choose: it is not passed on unfenced.
    throw new ToolError(
      "tool_failure",
      "The page threw an exception while Ghostlight read it.",
      "Check the page's state (read_page) and try again.",
    );
  }
  return (reply.result as { value?: T } | undefined)?.value as T;
}
