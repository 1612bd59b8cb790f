/**
 * One row per built tool: its name, its handler and the traits the service schedules it by.
 * The contract row (schema, annotations, capabilities) and its description are the catalog's;
 * whether a tool only reads comes from its contract annotations, never from a list kept here.
 * A new tool is its handler and one row below.
 *
 * @module
 */

import { BrowserError } from "../browser/mod.ts";
import { CONTRACT, type ToolTraits } from "../catalog/mod.ts";
import type { Handler } from "./core/context.ts";
import { ToolError } from "./core/errors.ts";
import { actOn } from "./handlers/act_on.ts";
import { browserBatch } from "./handlers/browser_batch.ts";
import { computer } from "./handlers/computer.ts";
import { dialog } from "./handlers/dialog.ts";
import { explainTools } from "./handlers/explain.ts";
import { find } from "./handlers/find.ts";
import { formFill } from "./handlers/form_fill.ts";
import { formInput } from "./handlers/form_input.ts";
import { javascriptTool } from "./handlers/javascript.ts";
import { narrate } from "./handlers/narrate.ts";
import { navigate } from "./handlers/navigate.ts";
import { readConsoleMessages, readNetworkRequests } from "./handlers/page_logs.ts";
import { getPageText } from "./handlers/page_text.ts";
import { updatePlan } from "./handlers/plan.ts";
import { readPage } from "./handlers/read_page.ts";
import { script } from "./handlers/script.ts";
import { tabControl } from "./handlers/tab_control.ts";
import { tabsContext, tabsCreate } from "./handlers/tabs.ts";
import { waitFor } from "./handlers/wait_for.ts";
import { resizeWindow } from "./handlers/window.ts";
import { fileUpload } from "./handlers/file_upload.ts";
import { uploadImage } from "./handlers/upload_image.ts";
import { gifCreator } from "./handlers/gif_creator.ts";

/** A built tool: the catalog's traits plus the handler that does the work. */
export interface ToolDefinition extends Partial<ToolTraits> {
  name: string;
  handler: Handler;
}

/**
 * Every built tool. Traits left out are the defaults (needs a workspace, creates none, binds the
 * tab its `tabId` names). Tools that open, close or list tabs, or run steps on several, bind the
 * workspace's topology; a window resize binds the whole browser (decision 0160).
 */
export const TOOLS: readonly ToolDefinition[] = [
  { name: "tabs_context_mcp", handler: tabsContext, createsContext: true, binds: "topology" },
  { name: "tabs_create_mcp", handler: tabsCreate, createsContext: true, binds: "topology" },
  { name: "navigate", handler: navigate },
  { name: "computer", handler: computer },
  { name: "find", handler: find },
  { name: "form_input", handler: formInput },
  { name: "get_page_text", handler: getPageText },
  { name: "javascript_tool", handler: javascriptTool },
  { name: "read_console_messages", handler: readConsoleMessages },
  { name: "read_network_requests", handler: readNetworkRequests },
  { name: "read_page", handler: readPage },
  { name: "resize_window", handler: resizeWindow, binds: "browser" },
  // A plan is kept with the workspace when one is named; none is made for it.
  { name: "update_plan", handler: updatePlan, needsWorkspace: false },
  { name: "file_upload", handler: fileUpload },
  { name: "upload_image", handler: uploadImage },
  { name: "gif_creator", handler: gifCreator },
  { name: "narrate", handler: narrate },
  { name: "wait_for", handler: waitFor },
  { name: "script", handler: script, binds: "topology" },
  { name: "form_fill", handler: formFill },
  { name: "act_on", handler: actOn },
  { name: "dialog", handler: dialog },
  // Closing a tab changes the topology, and is the agent's way out of a quarantined tab.
  { name: "tab_control", handler: tabControl, binds: "topology" },
  { name: "browser_batch", handler: browserBatch, binds: "topology" },
  // The directory of every built tool; it touches no page and no workspace.
  {
    name: "explain",
    handler: explainTools(() => TOOLS.map((tool) => tool.name)),
    needsWorkspace: false,
    acceptsWorkspace: false,
  },
];

/**
 * A tool that only reads: a browser that does not answer in time changed nothing, so its
 * timeout is a plain failure rather than "it may have happened".
 */
export function readOnly(handler: Handler): Handler {
  return async (args, context) => {
    try {
      return await handler(args, context);
    } catch (error) {
      if (!(error instanceof BrowserError) || !error.mayHaveHappened) throw error;
      throw new ToolError(
        "tool_failure",
        `The browser did not answer: ${error.message}. This tool only reads, so nothing changed.`,
        "Check the tab with a screenshot (computer screenshot), then try again.",
      );
    }
  };
}

/** The handlers by tool name, read-only ones (by their contract annotations) wrapped. */
function handlersOf(tools: readonly ToolDefinition[]): Readonly<Record<string, Handler>> {
  return Object.fromEntries(tools.map((tool) => {
    const row = CONTRACT.find((row) => row.name === tool.name);
    if (!row) throw new Error(`the tool ${tool.name} has no row in the contract`);
    return [tool.name, row.annotations.readOnlyHint ? readOnly(tool.handler) : tool.handler];
  }));
}

/** Every built tool's handler, by name. */
export const HANDLERS: Readonly<Record<string, Handler>> = handlersOf(TOOLS);
