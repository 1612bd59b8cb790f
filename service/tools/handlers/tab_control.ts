/**
 * `tab_control`: focus, reload or close one of the workspace's tabs, answering with the tab
 * delta. A reload waits for the load as navigate does; a leave-page prompt it raises is
 * reported at once as the blocker, for `dialog` to answer.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { ToolError } from "../core/errors.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import { cdp, noteClosedByAgent, ownedTab, rememberTabs, type TabTarget } from "../core/target.ts";
import { untilDialog } from "../input/send.ts";
import { pageAfterEffect } from "../page/after_dialog.ts";
import { LOAD_NOTES, LoadWatch, waitForLoad } from "../input/load_watch.ts";

/** The tabs an action opened or closed, and the one in front (the team's tab delta shape). */
function tabDelta(delta: { closed?: number[]; activeTabId?: number }) {
  return {
    opened: [],
    closed: delta.closed ?? [],
    ...(delta.activeTabId !== undefined ? { activeTabId: delta.activeTabId } : {}),
    more: false,
  };
}

async function focus(_context: ToolContext, target: TabTarget): Promise<Outcome> {
  await cdp(target, "Page.bringToFront");
  return success(`Tab ${target.tabId} is now the active tab of its window.`, {
    tabId: target.tabId,
    tabDelta: tabDelta({ activeTabId: target.tabId }),
  });
}

async function close(context: ToolContext, target: TabTarget): Promise<Outcome> {
  await target.link.call("tab.close", { tab_id: target.native });
  rememberTabs(context.workspace);
  noteClosedByAgent(context.workspace, target.tabId);
  context.workspaces.forgetTab(target.tabId);
  const left = [...context.workspace.tabs];
  return success(
    `Closed tab ${target.tabId}. ` +
      (left.length > 0
        ? `Your tabs now: ${left.join(", ")}.`
        : "You have no tabs left: tabs_context_mcp with createIfEmpty: true opens one."),
    { tabId: target.tabId, tabDelta: tabDelta({ closed: [target.tabId] }), tabs: left },
  );
}

async function reload(context: ToolContext, target: TabTarget): Promise<Outcome> {
  const state = target.link.tab(target.native);
  if (state.dialog) {
    throw new ToolError(
      "tool_failure",
      `A JavaScript ${state.dialog.type} dialog is open in this tab and blocks the reload.`,
      howToAnswer(state.dialog.type, target.tabId),
    );
  }
  const watch = new LoadWatch(state);
  // A reload brings a new document whose loader id the command does not tell: any load ends it.
  watch.expected = null;
  try {
    if (await untilDialog(target, cdp(target, "Page.reload", {})) === "dialog") {
      return blockedReload(context, target);
    }
    const load = await waitForLoad(target, {
      done: () => watch.loaded.size > 0,
      committed: () => watch.committed,
      blocked: () => state.dialog !== null,
    }, watch.event);
    if (load === "blocked") return blockedReload(context, target);
    const page = await pageAfterEffect(context.workspace, target);
    return success(
      `Reloaded tab ${target.tabId}: it is at ${fencedUrl(context.workspace, page.url)}.${
        LOAD_NOTES[load]
      }\n` +
        fence(context.workspace, originOf(page.url), `title: ${page.title}`),
      {
        tabId: target.tabId,
        url: displayUrl(page.url),
        title: page.title,
        loaded: load === "complete",
        tabDelta: tabDelta({}),
      },
    );
  } finally {
    watch.stop.abort();
  }
}

/** A reload held by a dialog (a leave-page prompt): said at once, with how to answer it. */
function blockedReload(context: ToolContext, target: TabTarget): Outcome {
  const dialog = target.link.tab(target.native).dialog;
  const type = dialog?.type ?? "beforeunload";
  return success(
    `The reload of tab ${target.tabId} waits on a JavaScript ${type} dialog the page opened. ` +
      howToAnswer(type, target.tabId) +
      (dialog?.message
        ? `\n${
          fence(
            context.workspace,
            originOf(dialog.url),
            `dialog says: "${redactSecrets(dialog.message)}"`,
          )
        }`
        : ""),
    {
      tabId: target.tabId,
      dialog: { type, message: redactSecrets(dialog?.message ?? "") },
      blockers: [{
        kind: "dialog",
        summary: `A JavaScript ${type} dialog holds the reload.`,
        nextStep: howToAnswer(type, target.tabId),
      }],
      tabDelta: tabDelta({}),
    },
  );
}

const ACTIONS: Record<string, (context: ToolContext, target: TabTarget) => Promise<Outcome>> = {
  focus,
  reload,
  close,
};

/** `tab_control`. */
export const tabControl: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  return await ACTIONS[args.action as string](context, target);
};
