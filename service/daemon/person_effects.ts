/**
 * What the person's controls do in the browser: show a workspace's state on its tab group, bring
 * its tab to the front. Best effort: a browser that is gone has nothing to show.
 *
 * @module
 */

import { type BrowserHub, type BrowserLink, decomposeTabId } from "../browser/mod.ts";
import type { PersonEffects } from "../governance/mod.ts";
import { type PersonQuestion, targetWords } from "../../shared/person.ts";
import { log } from "../log/mod.ts";
import { groupTitle, type Workspace } from "../workspace/mod.ts";

/** The effects of the person's controls on the browsers of `browsers`. */
export function personEffects(browsers: BrowserHub): PersonEffects {
  return {
    show(workspace, state) {
      const found = firstTab(workspace, browsers);
      if (!found) return;
      found.link.call("group.update", {
        key: workspace.groupKey,
        title: groupTitle(workspace, state),
        // Grey and yellow are no agent's colour: a paused, waiting or asking group stands out.
        color: state === "held"
          ? "grey"
          : state === "attention" || state === "asking"
          ? "yellow"
          : workspace.color,
      }).catch((error) => log("warn", `could not show a workspace's state: ${error.message}`));
    },
    async focus(workspace, tabId) {
      const found = tabId !== undefined && workspace.tabs.has(tabId)
        ? located(tabId, browsers)
        : firstTab(workspace, browsers);
      if (!found) return false;
      try {
        await found.link.call("tab.focus", { tab_id: found.native });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Shows on every attached browser's toolbar icon how many questions wait (decision 0360), and a
 * system notification for each where the extension can (decision 0483), cleared once answered.
 */
export function showQuestions(browsers: BrowserHub, questions: PersonQuestion[]): void {
  const count = questions.length;
  const open = questions.slice(0, 64).map((question) => ({
    number: question.number,
    title: `Ghostlight: ${question.principal} asks you`.slice(0, 100),
    message: `${question.principal} asks to ${question.capability} on ${question.host}: ` +
      `${question.call}${question.target ? `, aiming at ${targetWords(question.target)}` : ""}. ` +
      "Answer in the Ghostlight popup or with 'ghostlight asks'.",
  })).map((note) => ({ ...note, message: note.message.slice(0, 500) }));
  for (const link of browsers.list()) {
    link.call("action.badge", { text: count === 0 ? "" : String(Math.min(count, 999)) })
      .catch((error) => log("warn", `could not show the questions' count: ${error.message}`));
    if (!link.details.features.includes("notifications")) continue;
    link.call("action.notify", { open })
      .catch((error) =>
        log("warn", `could not show the questions' notifications: ${error.message}`)
      );
  }
}

/** One of the workspace's tabs in an attached browser. */
function firstTab(
  workspace: Workspace,
  browsers: BrowserHub,
): { link: BrowserLink; native: number } | null {
  for (const tabId of workspace.tabs) {
    const found = located(tabId, browsers);
    if (found) return found;
  }
  return null;
}

function located(
  tabId: number,
  browsers: BrowserHub,
): { link: BrowserLink; native: number } | null {
  const parts = decomposeTabId(tabId);
  const link = parts && browsers.bySlot(parts.slot);
  return parts && link ? { link, native: parts.native } : null;
}
