/**
 * Tool handlers, by tool name. A tool is advertised only when it has a handler here.
 *
 * @module
 */

import { computer } from "./computer.ts";
import type { Handler } from "./context.ts";
import { ToolError } from "./errors.ts";
import { BrowserError } from "../browser/mod.ts";
import { find } from "./find.ts";
import { formInput } from "./form_input.ts";
import { javascriptTool } from "./javascript.ts";
import { navigate } from "./navigate.ts";
import { readConsoleMessages, readNetworkRequests } from "./page_logs.ts";
import { updatePlan } from "./plan.ts";
import { getPageText } from "./page_text.ts";
import { readPage } from "./read_page.ts";
import { tabsContext, tabsCreate } from "./tabs.ts";
import { resizeWindow } from "./window.ts";

export type { Handler, ToolContext } from "./context.ts";
export { failureOutcome, ToolError } from "./errors.ts";
export { releaseTabs } from "./tabs.ts";
// For the governance check before dispatch: the tab a call names, and where navigate would go,
// resolved exactly as the handlers resolve them.
export { normalizeUrl } from "./navigate.ts";
export { ownedTab } from "./target.ts";

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

/** Every implemented tool. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  tabs_context_mcp: tabsContext,
  tabs_create_mcp: tabsCreate,
  navigate,
  computer,
  read_console_messages: readOnly(readConsoleMessages),
  read_network_requests: readOnly(readNetworkRequests),
  resize_window: resizeWindow,
  update_plan: updatePlan,
  get_page_text: readOnly(getPageText),
  read_page: readOnly(readPage),
  find: readOnly(find),
  form_input: formInput,
  javascript_tool: javascriptTool,
};
