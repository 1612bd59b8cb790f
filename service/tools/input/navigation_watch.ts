/**
 * The navigation an action may start, followed on the browser's own events from before the input
 * is sent (so none is missed): whether the main frame began loading another document, and when
 * that document reached DOMContentLoaded, came back from the back/forward cache, or the load
 * ended without one (a download, a 204, a failure). A receipt waits on this instead of polling
 * the page, and only when the action really started a navigation.
 *
 * @module
 */

import type { TabEvent, TabState } from "../../browser/mod.ts";

/** A navigation of the main frame, watched from before an action. */
export class NavigationWatch {
  /** True once the main frame asked for another document. */
  started = false;
  #arrived: Promise<TabEvent | null>;
  #stop = new AbortController();

  /**
   * Watches `frameId`, which shows the document `loaderId` now, for at most `boundMs`; a dialog
   * that opens (a leave-page prompt) ends the watch too, as it holds the navigation.
   */
  constructor(tab: TabState, frame: { frameId: string; loaderId: string }, boundMs: number) {
    let request: string | undefined;
    const mainFrame = (id: unknown) => id === frame.frameId;
    this.#arrived = tab.waitFor(
      (event) => {
        const p = event.params;
        switch (event.method) {
          case "Network.requestWillBeSent":
            if (p.type === "Document" && mainFrame(p.frameId)) {
              this.started = true;
              request = String(p.requestId);
            }
            return false;
          case "Page.lifecycleEvent":
            return mainFrame(p.frameId) && p.name === "DOMContentLoaded" &&
              p.loaderId !== frame.loaderId;
          case "Page.frameNavigated": {
            const navigated = p.frame as { id?: string } | undefined;
            return mainFrame(navigated?.id) && p.type === "BackForwardCacheRestore";
          }
          case "Page.frameStoppedLoading":
            return this.started && mainFrame(p.frameId);
          case "Network.loadingFailed":
            return request !== undefined && p.requestId === request;
          case "Page.javascriptDialogOpening":
            return true;
        }
        return false;
      },
      boundMs,
      this.#stop.signal,
    );
  }

  /** Resolves true when the navigation arrived or ended, false at the bound. */
  async arrived(): Promise<boolean> {
    return (await this.#arrived) !== null;
  }

  /** Stops watching (the action started no navigation). */
  stop(): void {
    this.#stop.abort();
  }
}
