/**
 * How `type` delivers its text: at once with `Input.insertText` (one command, as an input method
 * commits text: the page sees `beforeinput` and `input`) when the focused element takes text and
 * the page listens for no key events, or one real key press per character otherwise, so a page
 * that reacts to keys (shortcuts, masks, autocompletes) still gets them. The page's own listeners
 * are listed by the browser (`DOMDebugger.getEventListeners` on the main world's document, its
 * whole tree through shadow roots, and its window); the page cannot hide them from that, and
 * when anything is unclear the answer is key presses.
 *
 * @module
 */

import { mainWorldCall } from "../page/in_page.ts";
import type { ReplyTest } from "../../../shared/browser_protocol.ts";
import type { Command } from "../page/main_frame_read.ts";

/** The object group the listener question holds its objects in, released after. */
const GROUP = "ghostlight-type-mode";
/** Events that mean the page reacts to keys. */
const KEY_EVENTS = new Set(["keydown", "keypress", "keyup"]);

/** How typed text is delivered. */
export type TypeMode = "insert" | "keys";

function mainWorldObject(expression: string): Command {
  return {
    method: "Runtime.evaluate",
    params: { expression, objectGroup: GROUP, returnByValue: false },
  };
}

/**
 * The commands that go to the page before typing, in the same round trip as the receipt's first
 * read: the main world's document (when the focused element takes text) and window, then the
 * browser's list of their listeners, each asking about the object found two commands before, and
 * the objects released. No text target: the listener questions are not sent.
 */
export function typeModeQuestion(): Command[] {
  return [
    mainWorldObject(mainWorldCall("textTarget")),
    mainWorldObject(mainWorldCall("pageWindow")),
    {
      method: "DOMDebugger.getEventListeners",
      params: { depth: -1, pierce: true },
      objectIdFrom: 2,
    },
    { method: "DOMDebugger.getEventListeners", params: {}, objectIdFrom: 2 },
    { method: "Runtime.releaseObjectGroup", params: { objectGroup: GROUP } },
  ];
}

/**
 * The mode from the replies to {@linkcode typeModeQuestion}: insert only when both listener
 * lists came back and neither holds a key event; key presses when anything is missing.
 */
export function typeModeFrom(replies: Record<string, unknown>[]): TypeMode {
  const lists = [replies[2]?.listeners, replies[3]?.listeners];
  if (!lists.every(Array.isArray)) return "keys";
  const listeners = (lists as { type?: unknown }[][]).flat();
  return listeners.some((listener) => KEY_EVENTS.has(String(listener.type ?? "")))
    ? "keys"
    : "insert";
}

/**
 * For `type` in one message (decision 0241), with {@linkcode typeModeQuestion} at `questionAt`:
 * the tests, for the command at a given index, that hold when the text goes in at once, by the
 * rule of {@linkcode typeModeFrom} (both listener lists came back, neither holds a key event).
 * The insertion and the receipt's read after it are sent only when they all hold.
 */
export function typeModeChoice(questionAt: number): (index: number) => ReplyTest[] {
  const lists = [questionAt + 2, questionAt + 3];
  return (index) =>
    lists.map((at) => ({
      reply: index - at,
      path: ["listeners"],
      lacks: { field: "type", values: [...KEY_EVENTS] },
    }));
}
