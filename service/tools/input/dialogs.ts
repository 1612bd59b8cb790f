/**
 * Answering JavaScript dialogs (alert, confirm, prompt, beforeunload): one mechanism (the `dialog`
 * tool and computer's Return/Escape/type both use it), and every answer that names an open dialog
 * says how to answer it in the same words. Input that opens one returns at once instead of
 * waiting on the frozen page: that race is the executor's (`send.ts`'s `untilDialog`).
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import type { OpenDialog } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { success } from "../core/context.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { fence, originOf, redactSecrets } from "../core/safe_text.ts";
import { cdp, type TabTarget } from "../core/target.ts";

/** How long answering a dialog waits for the page to open another one. */
const NEXT_DIALOG_WAIT_MS = 500;

/** An answer to a dialog: accept or dismiss, with the text for a prompt. */
export interface DialogAnswer {
  accept: boolean;
  promptText?: string;
}

/**
 * Answers the open dialog and says whether the page opened another right away (pages chain a
 * prompt and a confirm); that one is named, fenced, with how to answer it.
 */
export async function answerDialog(
  workspace: Workspace,
  target: TabTarget,
  dialog: OpenDialog,
  answer: DialogAnswer,
): Promise<Outcome> {
  const state = target.link.tab(target.native);
  const next = state.waitFor(
    (event) => event.method === "Page.javascriptDialogOpening",
    NEXT_DIALOG_WAIT_MS,
  );
  await cdp(target, "Page.handleJavaScriptDialog", {
    accept: answer.accept,
    ...(answer.promptText !== undefined ? { promptText: answer.promptText } : {}),
  });
  const verb = answer.accept ? "Accepted" : "Dismissed";
  const effect = dialog.type === "beforeunload"
    ? answer.accept ? "; the page is leaving (read it again once it has loaded)" : "; it stays"
    : "; the page runs again";
  const answered = `${verb} the ${dialog.type} dialog`;
  const structured = {
    tabId: target.tabId,
    dialog: { type: dialog.type, accepted: answer.accept },
  };
  const followUp = await next ? state.dialog : null;
  if (!followUp) return success(`${answered}${effect}.`, structured);
  return success(
    `${answered}. Another ${followUp.type} dialog opened at once. ` +
      `${howToAnswer(followUp.type, target.tabId)}\n${
        fence(
          workspace,
          originOf(followUp.url),
          `dialog says: "${redactSecrets(followUp.message)}"`,
        )
      }`,
    { ...structured, next: { type: followUp.type } },
  );
}
