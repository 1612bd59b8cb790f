/**
 * The navigation an action may start, followed on the browser's own events from before the input
 * is sent (so none is missed): whether the main frame began loading another document, when that
 * document committed, and when it reached DOMContentLoaded, came back from the back/forward
 * cache, or the load ended without one (a download, a 204, a failure). A receipt waits on this
 * instead of polling the page, and only when the action really started a navigation.
 *
 * @module
 */

import type { TabEvent, TabState } from "../../browser/mod.ts";
import { factsOf, landingReport, type PageFacts, reportedWorld } from "../page/landed_facts.ts";

/** A navigation of the main frame, watched from before an action. */
export class NavigationWatch {
  /** True once the main frame asked for another document. */
  started = false;
  /**
   * Resolves when the main frame asks for another document or commits one: the old page is
   * being left, and what it would still answer no longer matters. Never resolves otherwise.
   */
  readonly leaving: Promise<void>;
  /**
   * Resolves with what the document the main frame committed reported of itself first, at its
   * first frame or at its load (decisions 0240, 0245), or null when the watch ends first.
   */
  readonly landed: Promise<PageFacts | null>;
  #tab: TabState;
  #frame: { frameId: string; loaderId: string };
  #arrived: Promise<TabEvent | null>;
  #stop = new AbortController();
  #onLeaving!: () => void;

  /**
   * Watches `frameId`, which shows the document `loaderId` now, for at most `boundMs`; a dialog
   * that opens (a leave-page prompt) ends the watch too, as it holds the navigation.
   */
  constructor(tab: TabState, frame: { frameId: string; loaderId: string }, boundMs: number) {
    this.#tab = tab;
    this.#frame = frame;
    this.leaving = new Promise((resolve) => this.#onLeaving = resolve);
    let request: string | undefined;
    const mainFrame = (id: unknown) => id === frame.frameId;
    const matches = (event: TabEvent): boolean => {
      const p = event.params;
      switch (event.method) {
        case "Network.requestWillBeSent":
          if (p.type === "Document" && mainFrame(p.frameId)) {
            this.started = true;
            request = String(p.requestId);
            this.#onLeaving();
          }
          return false;
        case "Page.lifecycleEvent":
          return mainFrame(p.frameId) && p.name === "DOMContentLoaded" &&
            p.loaderId !== frame.loaderId;
        case "Page.frameNavigated": {
          const navigated = p.frame as { id?: string } | undefined;
          if (!mainFrame(navigated?.id)) return false;
          this.#onLeaving();
          return p.type === "BackForwardCacheRestore";
        }
        case "Page.frameStoppedLoading":
          return this.started && mainFrame(p.frameId);
        case "Network.loadingFailed":
          return request !== undefined && p.requestId === request;
        case "Page.javascriptDialogOpening":
          return true;
      }
      return false;
    };
    this.#arrived = tab.waitFor(matches, boundMs, this.#stop.signal);
    // Only a report after a commit is the new document's: only the main frame's runtime reports.
    // The first report after it ends the wait, and so do events lost since it (the report may
    // be among them): a report that is not well formed (cut on the way) or lost gives null, and
    // the receipt reads the page instead of waiting for its bound.
    let committed = false;
    this.landed = tab.waitFor(
      (event) => {
        const navigated = event.params.frame as { id?: string } | undefined;
        if (event.method === "Page.frameNavigated" && mainFrame(navigated?.id)) committed = true;
        return committed && (landingReport(event) || tab.mainDocument?.lossy === true);
      },
      boundMs,
      this.#stop.signal,
    ).then((event) => event && factsOf(event));
  }

  /** Resolves true when the navigation arrived or ended, false at the bound. */
  async arrived(): Promise<boolean> {
    return (await this.#arrived) !== null;
  }

  /**
   * Whether the main frame's new document will report its facts itself: its runtime named its
   * world as the document was created (decision 0244), and such a runtime reports at the
   * document's first frame or its load, whichever comes first (decision 0245).
   */
  willReport(): boolean {
    const world = reportedWorld(this.#tab.mainDocument);
    return world !== null && world.frameId === this.#frame.frameId &&
      world.loaderId !== this.#frame.loaderId;
  }

  /** Stops watching (the action started no navigation). */
  stop(): void {
    this.#stop.abort();
  }
}
