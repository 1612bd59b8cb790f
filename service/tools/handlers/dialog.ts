/**
 * `dialog`: what JavaScript dialog (alert, confirm, prompt, beforeunload) blocks a tab, and
 * answering it: accept, dismiss, or respond with a prompt's text. The service knows an open
 * dialog from the tab's events, so status never asks the frozen page; answering goes through
 * the one mechanism `computer` uses too (`input/dialogs.ts`).
 *
 * @module
 */

import type { OpenDialog } from "../../browser/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { ToolError } from "../core/errors.ts";
import { fence, originOf, redactSecrets } from "../core/safe_text.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { answerDialog } from "../input/dialogs.ts";

function status(context: ToolContext, target: TabTarget, dialog: OpenDialog | null) {
  if (!dialog) {
    return success(`No JavaScript dialog is open in tab ${target.tabId}.`, {
      tabId: target.tabId,
      open: false,
    });
  }
  const message = redactSecrets(dialog.message);
  return success(
    `A JavaScript ${dialog.type} dialog is open in tab ${target.tabId} and freezes the page. ` +
      `${howToAnswer(dialog.type, target.tabId)}\n` +
      fence(context.workspace, originOf(dialog.url), `dialog says: "${message}"`),
    { tabId: target.tabId, open: true, dialog: { type: dialog.type, message } },
  );
}

/** `dialog`. */
export const dialog: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  // A tab never touched has no events yet: a command the browser answers itself starts them.
  await target.link.call("cdp", {
    tab_id: target.native,
    method: "Page.getNavigationHistory",
    params: {},
  });
  const open = target.link.tab(target.native).dialog;
  const action = args.action as "status" | "accept" | "dismiss" | "respond";
  if (action === "status") return status(context, target, open);
  if (!open) {
    throw new ToolError(
      "tool_failure",
      `No JavaScript dialog is open in tab ${target.tabId}, so there is nothing to ${action}.`,
      "A dialog the page drew itself (an HTML modal) is part of the page: find its button " +
        "and click it (find, then act_on or computer).",
    );
  }
  if (action === "respond" && open.type !== "prompt") {
    throw new ToolError(
      "tool_failure",
      `The open dialog is a ${open.type}; only a prompt takes text.`,
      howToAnswer(open.type, target.tabId),
    );
  }
  return await answerDialog(context.workspace, target, open, {
    accept: action !== "dismiss",
    ...(action === "respond" ? { promptText: String(args.text) } : {}),
  });
};
