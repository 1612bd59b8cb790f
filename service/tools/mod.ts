/**
 * Tool handlers, by tool name. A tool is advertised only when it has a handler here.
 *
 * @module
 */

import { computer } from "./computer.ts";
import type { Handler } from "./context.ts";
import { navigate } from "./navigate.ts";
import { getPageText } from "./page_text.ts";
import { tabsContext, tabsCreate } from "./tabs.ts";

export type { Handler, ToolContext } from "./context.ts";
export { failureOutcome, ToolError } from "./errors.ts";

/** Every implemented tool. */
export const HANDLERS: Readonly<Record<string, Handler>> = {
  tabs_context_mcp: tabsContext,
  tabs_create_mcp: tabsCreate,
  navigate,
  computer,
  get_page_text: getPageText,
};
