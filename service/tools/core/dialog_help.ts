/**
 * The one wording of how to answer an open JavaScript dialog, used by every answer that names
 * one (a refusal, a receipt's blocker, an effect a dialog followed).
 *
 * @module
 */

/**
 * How to answer an open dialog of `type`, in one sentence. A leave-page prompt is answered too:
 * accepting it leaves the page.
 */
export function howToAnswer(type: string, tabId?: number): string {
  const tab = tabId === undefined ? "" : `, "tabId": ${tabId}`;
  const call = `dialog {"action": "accept"${tab}}`;
  if (type === "beforeunload") {
    return `Answer it with ${call} to leave the page, or "dismiss" to stay (computer key ` +
      '"Return"/"Escape" work too).';
  }
  const respond = type === "prompt" ? ', "respond" with text to answer the prompt' : "";
  return `Answer it with ${call}, "dismiss"${respond} (computer key "Return" accepts, ` +
    '"Escape" dismisses).';
}
