/**
 * Facts about the document itself, read in Ghostlight's world, where the page's scripts cannot
 * redefine `document.title`, `location` or `performance`.
 *
 * @module
 */

import { current, token } from "./registry.ts";
import {
  LANDED_BINDING_PREFIX,
  type LandedFacts,
  MAX_TITLE_CHARS,
  type WorldNote,
} from "../page/landing.ts";
import type { PageInfo } from "./contract.ts";
import { redactedTitle } from "./secrets.ts";
import { receiptElement } from "./describe.ts";
import { focused } from "./observe.ts";

/**
 * The page's URL, its title cut to `maxTitle` characters, with the values of secret fields
 * hidden (a page may put a one-time code in its title): redacted before the cut, so a cut cannot
 * leave part of a value unrecognised; the HTTP status of the document's own response (0 when
 * the browser does not say), so a landing page is read in one evaluation; and whether the frame
 * still shows this world's document (not another, not hidden in the back/forward cache), so a
 * title read needs no look at the frame tree after it (decision 0218).
 */
export function pageInfo(maxTitle: number): PageInfo {
  return {
    url: location.href,
    title: redactedTitle().slice(0, maxTitle),
    status: status(),
    current: current(),
  };
}

function status(): number {
  const entry = performance.getEntriesByType("navigation")[0] as
    | PerformanceNavigationTiming
    | undefined;
  return (entry || { responseStatus: 0 }).responseStatus || 0;
}

/**
 * In the main frame of a document still loading, hands the page's facts to the service through
 * the binding only this world sees: once the document has loaded, at `pageshow`, which Chrome
 * fires right after the load event's handlers (so a title a page sets in its `onload` is in
 * it), in the same task, before the first layout of a big page. `navigate` answers from these
 * instead of asking the page after its load, when the page is busy laying itself out (decision
 * 0222). And, when the load has not come by the first frame after the document was parsed, at
 * that frame (a page whose images still load is shown by then, and a field it focused as it
 * loaded has focus), or at once when the page is hidden and renders no frames: a navigating
 * action's receipt answers from whichever report comes first, so the service never asks a page
 * that is still loading (decision 0245). Only the browser's own events count: a page can
 * dispatch a `pageshow` or a `DOMContentLoaded` of its own.
 */
function reportLanding(binding: (payload: string) => void): void {
  if (document.readyState === "complete") return;
  let loaded = false;
  const report = (ready: LandedFacts["ready"]) => {
    // The facts alone: the service reads a report strictly, and a loading document is current.
    const { url, title, status } = pageInfo(MAX_TITLE_CHARS);
    const focus = receiptElement(focused());
    const view = { width: innerWidth, height: innerHeight, ratio: devicePixelRatio };
    const facts: LandedFacts = { url, title, status, ready, ...(focus ? { focus } : {}), view };
    binding(JSON.stringify(facts));
  };
  const landed = (event: Event) => {
    if (!event.isTrusted || (event as PageTransitionEvent).persisted) return;
    removeEventListener("pageshow", landed);
    loaded = true;
    report("complete");
  };
  addEventListener("pageshow", landed);
  if (document.readyState !== "loading") return;
  const parsed = (event: Event) => {
    if (!event.isTrusted) return;
    removeEventListener("DOMContentLoaded", parsed, true);
    if (document.hidden) return report("interactive");
    requestAnimationFrame(() => {
      if (!loaded) report("interactive");
    });
  };
  // On the window, capturing, added before the page's scripts run: first in the event's path, so
  // no listener of the page can stop it from being heard.
  addEventListener("DOMContentLoaded", parsed, true);
}

/**
 * In the main frame, as the runtime is installed in a document being created: says which world
 * this is (its registry's token, from its execution context) through the binding only this world
 * sees, then reports the document's facts at its first frame and its load (`reportLanding`). The
 * service pairs the world with the main frame's last commit, which comes before it on the tab's
 * events (decision 0244). The binding is there from the world's start: it is looked for once.
 */
export function reportWorld(): void {
  if (globalThis.top !== globalThis.window) return;
  const binding = landedBinding();
  if (!binding) return;
  // Only a runtime installed as its document is created: one installed later (the document shown
  // when the tab was attached, or a world the service filled itself) might be an older
  // document's, paired with a newer commit whose document said nothing.
  if (document.readyState === "loading") {
    const note: WorldNote = { world: token };
    binding(JSON.stringify(note));
  }
  reportLanding(binding);
}

/** The one binding of this world, found by its prefix: the service names it for this build. */
function landedBinding(): ((payload: string) => void) | null {
  const name = Object.getOwnPropertyNames(globalThis).find((key) =>
    key.startsWith(LANDED_BINDING_PREFIX)
  );
  const binding = name && (globalThis as unknown as Record<string, unknown>)[name];
  return typeof binding === "function" ? binding as (payload: string) => void : null;
}
