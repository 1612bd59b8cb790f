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

import { type Command, mainWorldCall } from "../page/frames.ts";
import { compile, program } from "../core/program.ts";

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
 * The steps that ask the page before typing, in the same round trip as the receipt's first read:
 * the main world's document (when the focused element takes text) and window, then the
 * browser's list of their listeners (each step asks about one of those two objects, named where
 * the steps are placed in a program), and the objects released. No text target: the listener
 * questions are not sent.
 */
export function typeModeQuestion(): {
  textTarget: Command;
  window: Command;
  /** Each asks about the object its step names (`objectOf`): the text target's document, ... */
  targetListeners: Command;
  /** ... and the window. */
  windowListeners: Command;
  release: Command;
} {
  return {
    textTarget: mainWorldObject(mainWorldCall("textTarget")),
    window: mainWorldObject(mainWorldCall("pageWindow")),
    targetListeners: {
      method: "DOMDebugger.getEventListeners",
      params: { depth: -1, pierce: true },
    },
    windowListeners: { method: "DOMDebugger.getEventListeners", params: {} },
    release: { method: "Runtime.releaseObjectGroup", params: { objectGroup: GROUP } },
  };
}

/** The question as commands of their own, in {@linkcode typeModeFrom}'s order. */
export function typeModeCommands(): Command[] {
  const question = typeModeQuestion();
  return compile(
    program()
      .step("text target", () => question.textTarget)
      .step("window", () => question.window)
      .step("target listeners", () => ({ ...question.targetListeners, objectOf: "text target" }))
      .step("window listeners", () => ({ ...question.windowListeners, objectOf: "window" }))
      .step("release", () => question.release),
  ).commands;
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

/** The test of a listener list that holds when nothing in it hears keys. */
export const KEYS_UNHEARD = { field: "type", values: [...KEY_EVENTS] };
