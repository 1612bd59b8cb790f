/**
 * Pages that crash under the debugger. When a tab's renderer crashes (or is killed), Chrome keeps
 * the debugger attached, says `Inspector.targetCrashed`, and never answers the commands that were
 * running in the page, nor later ones that need a renderer; a reload or a navigation brings a new
 * renderer and says `Inspector.targetReloadedAfterCrash`. This module ends the commands a crash
 * cut off, and refuses renderer-bound ones until the page is replaced, so the service hears what
 * happened instead of waiting out its deadline and calling the outcome unknown.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import { CutOffs } from "./cut_off.ts";

/**
 * CDP commands the page's renderer answers: on a crashed page they would never return. Page
 * navigation, reload and history are answered by the browser and bring a new renderer.
 */
const NEEDS_RENDERER =
  /^(Runtime|DOM|DOMSnapshot|DOMDebugger|Input|Accessibility|CSS|Overlay|Debugger|Animation|LayerTree)\.|^Page\.(captureScreenshot|createIsolatedWorld|getFrameTree|getLayoutMetrics|printToPDF)$/;

/** A command cut off by its tab's page crashing (`running`), or refused because it had crashed. */
export class PageCrashed extends Error {
  constructor(readonly running: boolean, message: string) {
    super(message);
  }
}

/** Tabs whose page crashed and has not been replaced since. */
const crashed = new Set<number>();
/** Per tab, the commands still waiting on its page. */
const waiting = new CutOffs<number>();

chrome.debugger.onEvent.addListener((source, method) => {
  // A child session's target (an out-of-process frame) crashing is not the tab's page crashing.
  const tabId = source.tabId;
  if (tabId === undefined || (source as { sessionId?: string }).sessionId) return;
  if (method === "Inspector.targetCrashed") {
    crashed.add(tabId);
    waiting.cut(tabId);
  } else if (method === "Inspector.targetReloadedAfterCrash") {
    crashed.delete(tabId);
  }
});
// Unattached, the tab may be reloaded unseen: a stale mark would refuse a healthy page for good.
chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId !== undefined) crashed.delete(source.tabId);
});
chrome.tabs.onRemoved.addListener((tabId) => crashed.delete(tabId));

/**
 * Sends one command (`method`) to a tab through `send`, ending it with {@linkcode PageCrashed}
 * when the tab's page crashes before it answers, and refusing it at once when it needs a
 * renderer the crash took.
 */
export function untilCrash<T>(tabId: number, method: string, send: () => Promise<T>): Promise<T> {
  if (crashed.has(tabId) && NEEDS_RENDERER.test(method)) {
    return Promise.reject(
      new PageCrashed(
        false,
        `the tab's page has crashed, so ${method} was not sent: reload the tab or navigate it ` +
          "to use it again",
      ),
    );
  }
  return waiting.race(
    tabId,
    send,
    () =>
      new PageCrashed(
        true,
        "the page crashed while the call ran (reload the tab or navigate it to use it again)",
      ),
  );
}
