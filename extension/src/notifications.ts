/**
 * System notifications for the person's open questions (decision 0483): one per question, made
 * and cleared as the service's list says, so a question waiting is seen outside the browser too.
 * A click on one opens the popup, where the person answers; nothing here answers anything.
 *
 * @module
 */

/// <reference types="@types/chrome" />

/** What names a question's notification: the prefix and its number. */
export const QUESTION_NOTE = "ghostlight-question-";

/** The notification's icon: a yellow ring, the colour of an asking agent's tab group. */
const ICON =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAAAyklEQVR42u2aSw6AIAxEOYom3t4TupIbGHGmv7FN2MJ7EPm0jtEhFNc57jetJHQ6GRQ8TIQN7ipiDW8m4QVuIhIFT5GIhoclvgy27cdjcxNgg6MiZvCr4IgIXQCFX5VICU+XsPxQGRKm8IzVgySQwVm7lqkAc29H+qPOPnrK0lbBe/bpqxAx+0jfLdACLdACxbbR9AdZ+avELy5z6a/T5R80Ek/K8o96ibRK+cSWRGpRIrlbPr0uUeCQKDHJFPkkyqwyhW6ZXw06wJjEzf0U/ks8swAAAABJRU5ErkJggg==";

/**
 * Shows a notification for each open question not shown yet and clears those of questions no
 * longer open; how many are shown. A browser without notifications shows none.
 */
export async function notifyQuestions(
  open: { number: number; title: string; message: string }[],
): Promise<{ shown: number }> {
  if (!chrome.notifications) return { shown: 0 };
  const wanted = new Map(open.map((question) => [`${QUESTION_NOTE}${question.number}`, question]));
  const shown = await chrome.notifications.getAll();
  for (const id of Object.keys(shown)) {
    if (id.startsWith(QUESTION_NOTE) && !wanted.has(id)) await chrome.notifications.clear(id);
  }
  for (const [id, question] of wanted) {
    if (id in shown) continue;
    await chrome.notifications.create(id, {
      type: "basic",
      iconUrl: ICON,
      title: question.title,
      message: question.message,
      priority: 2,
      requireInteraction: true,
    });
  }
  return { shown: wanted.size };
}

/** A click on a question's notification opens the popup, where the person can answer it. */
export function openPopupOnClick(): void {
  chrome.notifications?.onClicked.addListener((id) => {
    if (!id.startsWith(QUESTION_NOTE)) return;
    chrome.action.openPopup?.().catch(() => {});
  });
}
