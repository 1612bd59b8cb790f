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
import type { Command } from "../page/main_frame_read.ts";
import type { TabTarget } from "../core/target.ts";

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

/** The commands that go to the page before typing, beside the receipt's first read. */
export function typeModeQuestion(): Command[] {
  return [
    mainWorldObject(mainWorldCall("textTarget")),
    mainWorldObject(mainWorldCall("pageWindow")),
  ];
}

function objectId(reply: Record<string, unknown> | undefined): string | undefined {
  return (reply?.result as { objectId?: string } | undefined)?.objectId;
}

/** The mode from the replies to {@linkcode typeModeQuestion}; one more round trip at most. */
export async function typeModeFrom(
  target: TabTarget,
  replies: Record<string, unknown>[],
): Promise<TypeMode> {
  const [documentId, windowId] = [objectId(replies[0]), objectId(replies[1])];
  const release = { method: "Runtime.releaseObjectGroup", params: { objectGroup: GROUP } };
  if (!documentId || !windowId) {
    target.link.call("cdp", { tab_id: target.native, ...release }).catch(() => {});
    return "keys";
  }
  try {
    const { results } = await target.link.call("cdp.sequence", {
      tab_id: target.native,
      commands: [
        {
          method: "DOMDebugger.getEventListeners",
          params: { objectId: documentId, depth: -1, pierce: true },
        },
        { method: "DOMDebugger.getEventListeners", params: { objectId: windowId } },
        release,
      ],
    });
    const listeners = [results[0], results[1]].flatMap((reply) =>
      (reply.listeners as { type?: string }[] | undefined) ?? []
    );
    return listeners.some((listener) => KEY_EVENTS.has(listener.type ?? "")) ? "keys" : "insert";
  } catch {
    return "keys";
  }
}
