/**
 * Watching a tab's main frame load: the events of the navigation about to start (which loaders
 * loaded, whether the main frame committed, the facts its runtime reports at its load), and the
 * wait for that load with document.readyState as the fallback. Below the handlers: navigate and
 * tab_control wait through it.
 *
 * @module
 */

import type { TabState } from "../../browser/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { inMainWorld, mainWorldCall } from "../page/frames.ts";
import { factsOf, type PageFacts } from "../page/landed_facts.ts";
import { STILL_LOADING } from "./receipt.ts";

/** How long navigate waits for a page to finish loading. */
export const LOAD_TIMEOUT_MS = 20_000;
/** How often the fallback poll looks at document.readyState. */
const POLL_MS = 150;
/** How long a ready document waits for its load event before navigate returns anyway. */
const INTERACTIVE_GRACE_MS = 4_000;
/** Without a commit event, how long before readyState is trusted (it may be the old page's). */
const COMMIT_GRACE_MS = 1_500;
/**
 * How long after the load event its document's facts may still be on their way: the runtime
 * sends them from the load's own task, so they come right behind it (0–16 ms measured); past
 * this the page is asked instead (no runtime there, or the report was dropped).
 */
export const LANDED_GRACE_MS = 100;

/** How far a load got: fully, its document only (subresources still coming), or neither. */
export type LoadState = "complete" | "interactive" | "loading" | "blocked";

/** What the answer says about a load that did not complete. */
export const LOAD_NOTES: Record<LoadState, string> = {
  complete: "",
  interactive: ` ${STILL_LOADING}`,
  loading: " It is still loading; read it again shortly.",
  blocked: "",
};

/**
 * Waits for the main frame's load: `done` says whether the load event was seen (events can
 * overtake the command's reply, so the caller collects them from before it sent the command);
 * `committed` whether the new document is in place, after which document.readyState is a
 * trustworthy fallback (a page restored from the back/forward cache fires no load event). A
 * document that is ready but whose load event lags (a slow image, a hanging request) is
 * returned after {@linkcode INTERACTIVE_GRACE_MS}: the agent can work with it already.
 */
export async function waitForLoad(
  target: TabTarget,
  progress: { done(): boolean; committed(): boolean; blocked(): boolean },
  events: Promise<unknown>,
): Promise<LoadState> {
  const started = Date.now();
  const deadline = started + LOAD_TIMEOUT_MS;
  let settled = progress.done();
  let interactiveSince: number | null = null;
  // Once the waiter has answered (the load, or null at its end), only the timer paces the loop.
  let pending: Promise<unknown> = events.then((event) => {
    if (event) settled = true;
    pending = new Promise(() => {});
  });
  while (!settled && Date.now() < deadline) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([pending, new Promise((resolve) => timer = setTimeout(resolve, POLL_MS))]);
    clearTimeout(timer);
    if (settled || progress.done()) return "complete";
    // A dialog opened by the page freezes its load until someone answers it.
    if (progress.blocked()) return "blocked";
    if (!progress.committed() && Date.now() - started < COMMIT_GRACE_MS) continue;
    // A busy page answers late: the load event is not kept waiting behind this look.
    const ready = await Promise.race([
      inMainWorld(target, mainWorldCall("readyState")).catch(() => null),
      pending.then(() => null),
    ]);
    if (settled || progress.done()) return "complete";
    if (ready === "complete") return "complete";
    if (ready === "interactive") {
      interactiveSince ??= Date.now();
      if (Date.now() - interactiveSince >= INTERACTIVE_GRACE_MS) return "interactive";
    }
  }
  return settled || progress.done() ? "complete" : interactiveSince ? "interactive" : "loading";
}

/**
 * Watches a tab's events for the load of the navigation about to start: which loaders loaded,
 * whether the main frame committed. `expected` is set once the navigation says what it loads:
 * a loader id, null for a history move (any load, a same-document move, or a page restored from
 * the back/forward cache ends it), or undefined for a same-document navigation (nothing to load).
 * After the expected document's load it keeps watching, briefly, for the facts that document's
 * runtime reports at its load ({@linkcode LoadWatch.landedFacts}).
 * For a history move, `mainFrame` names the tab's main frame: its stop before any commit ends
 * the move too (`stoppedEarly`), as the browser tells of no other end for a move it dropped.
 */
export class LoadWatch {
  readonly loaded = new Set<string>();
  committed = false;
  /** The main frame's id, set before a history move is sent. */
  mainFrame: string | undefined;
  /** Whether the main frame stopped loading before it committed a document or moved within one. */
  stoppedEarly = false;
  /** Whether a document was requested (in any frame) since the navigation was last sent. */
  requested = false;
  expected: string | null | undefined;
  readonly stop = new AbortController();
  /** Resolves with the event that ended the load, or null if the watch ended without it. */
  readonly event: Promise<unknown>;
  /** Resolves true when the main frame commits a document, false if the watch ends first. */
  readonly commit: Promise<boolean>;
  #onCommit!: (committed: boolean) => void;
  #onLoad!: (event: unknown) => void;
  #loadSeen = false;
  /** The loader of the document the main frame committed last. */
  #shown: string | undefined;
  #landed: PageFacts | null = null;
  #onLanded: () => void = () => {};
  #movedWithin = false;

  constructor(state: TabState) {
    this.commit = new Promise((resolve) => this.#onCommit = resolve);
    this.event = new Promise((resolve) => this.#onLoad = resolve);
    this.stop.signal.addEventListener("abort", () => this.#onCommit(false), { once: true });
    state.waitFor(
      (event) => {
        if (event.method === "Page.lifecycleEvent" && event.params.name === "load") {
          this.loaded.add(String(event.params.loaderId));
        }
        if (event.method === "Network.requestWillBeSent" && event.params.type === "Document") {
          this.requested = true;
        }
        const frame = event.params.frame as { parentId?: string } | undefined;
        let restored = false;
        if (event.method === "Page.frameNavigated" && frame && !frame.parentId) {
          this.committed = true;
          this.#shown = (frame as { loaderId?: string }).loaderId;
          this.#landed = null;
          this.#onCommit(true);
          // A page back from the back/forward cache was loaded when it left: no load event comes.
          restored = event.params.type === "BackForwardCacheRestore";
        }
        // Only the expected document's own report at its load: the main frame shows it until it
        // commits another, and only the main frame's runtime reports.
        const facts = factsOf(event);
        if (
          facts?.ready === "complete" && this.#shown !== undefined && this.#shown === this.expected
        ) {
          this.#landed = facts;
          this.#onLanded();
        }
        const within = event.method === "Page.navigatedWithinDocument";
        if (within) this.#movedWithin = true;
        if (
          event.method === "Page.frameStoppedLoading" && !this.committed && !this.#movedWithin &&
          this.mainFrame !== undefined && event.params.frameId === this.mainFrame
        ) {
          this.stoppedEarly = true;
        }
        const loadEnded = this.expected === null
          ? within || this.loaded.size > 0 || restored || this.stoppedEarly
          : this.expected !== undefined && this.loaded.has(this.expected);
        if (loadEnded && !this.#loadSeen) {
          this.#loadSeen = true;
          this.#onLoad(event);
        }
        return this.#loadSeen && (this.expected === null || this.#landed !== null);
      },
      LOAD_TIMEOUT_MS,
      this.stop.signal,
    ).then(() => this.#onLoad(null));
  }

  /**
   * What the expected document's runtime reported of it at its load (decision 0222), waiting
   * at most `graceMs` after that load for the report; null when none came, or the load has not
   * been seen. Call before stopping the watch.
   */
  async landedFacts(graceMs: number): Promise<PageFacts | null> {
    if (this.#landed !== null || !this.done() || this.stop.signal.aborted) return this.#landed;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#onLanded = resolve;
      timer = setTimeout(resolve, graceMs);
    });
    clearTimeout(timer);
    return this.#landed;
  }

  /** Whether the expected document has loaded. */
  done(): boolean {
    return this.expected !== undefined && this.expected !== null &&
      this.loaded.has(this.expected);
  }
}
