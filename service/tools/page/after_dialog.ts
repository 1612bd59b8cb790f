/**
 * An effect that happened is never reported as a failure because a JavaScript dialog opened
 * next. A dialog freezes the page, so reads after an effect (the URL, the title, a redaction in
 * the page) can be cut short by one; these helpers read what can still be read and say what
 * blocks the page now, with how to answer it.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { fence, originOf, redactSecrets } from "../core/safe_text.ts";
import { pageInfo } from "./frames.ts";
import type { TabTarget } from "../core/target.ts";

/**
 * The page's URL and title after an effect, and its document's HTTP status when the page could
 * be asked: read in the page, or from the browser's view of the tab when a dialog froze the page
 * meanwhile.
 */
export async function pageAfterEffect(
  workspace: Workspace,
  target: TabTarget,
): Promise<{ url: string; title: string; status?: number }> {
  const state = target.link.tab(target.native);
  if (!state.dialog) {
    try {
      return await pageInfo(workspace, target);
    } catch (error) {
      if (!state.dialog) throw error;
    }
  }
  const tab = await target.link.call("tab.get", { tab_id: target.native });
  return { url: tab.url, title: tab.title };
}

/** The dialog open in the tab now, as structured content (its message redacted). */
export function openDialog(target: TabTarget): { type: string; message: string } | undefined {
  const dialog = target.link.tab(target.native).dialog;
  return dialog ? { type: dialog.type, message: redactSecrets(dialog.message) } : undefined;
}

/**
 * A line for an answer whose effect happened, naming the dialog that opened `after` it and how
 * to answer it; empty when none is open.
 */
export function dialogAfterEffect(workspace: Workspace, target: TabTarget, after: string): string {
  const dialog = target.link.tab(target.native).dialog;
  if (!dialog) return "";
  return `\nA JavaScript ${dialog.type} dialog opened after ${after} and now blocks the page; ` +
    "it says:\n" + fence(workspace, originOf(dialog.url), redactSecrets(dialog.message)) +
    `\n${howToAnswer(dialog.type, target.tabId)}`;
}
