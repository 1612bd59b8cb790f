/**
 * Tool handlers, by tool name. A tool is advertised only when it has a handler here.
 *
 * @module
 */

import { computer } from "./computer.ts";
import type { Handler } from "./context.ts";
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

/** Every implemented tool. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  tabs_context_mcp: tabsContext,
  tabs_create_mcp: tabsCreate,
  navigate,
  computer,
  read_console_messages: readConsoleMessages,
  read_network_requests: readNetworkRequests,
  resize_window: resizeWindow,
  update_plan: updatePlan,
  get_page_text: getPageText,
  read_page: readPage,
  find,
  form_input: formInput,
  javascript_tool: javascriptTool,
};
