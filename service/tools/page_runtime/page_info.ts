/**
 * Facts about the document itself, read in Ghostlight's world, where the page's scripts cannot
 * redefine `document.title`, `location` or `performance`.
 *
 * @module
 */

import { LANDED_BINDING, MAX_TITLE_CHARS } from "../page/landing.ts";
import { redactedTitle } from "./secrets.ts";

/**
 * The page's URL, its title cut to `maxTitle` characters, with the values of secret fields
 * hidden (a page may put a one-time code in its title): redacted before the cut, so a cut cannot
 * leave part of a value unrecognised; and the HTTP status of the document's own response (0 when
 * the browser does not say), so a landing page is read in one evaluation.
 */
export function pageInfo(maxTitle: number): { url: string; title: string; status: number } {
  return { url: location.href, title: redactedTitle().slice(0, maxTitle), status: status() };
}

function status(): number {
  const entry = performance.getEntriesByType("navigation")[0] as
    | PerformanceNavigationTiming
    | undefined;
  return (entry || { responseStatus: 0 }).responseStatus || 0;
}

/**
 * In the main frame of a document still loading, hands the page's facts to the service once the
 * document has loaded, through the binding only this world sees: at `pageshow`, which Chrome
 * fires right after the load event's handlers (so a title a page sets in its `onload` is in
 * it), in the same task, before the first layout of a big page. `navigate` answers from these
 * instead of asking the page after its load, when the page is busy laying itself out (decision
 * 0222). Only the browser's own event counts: a page can dispatch a `pageshow` of its own.
 */
export function reportLanding(): void {
  if (globalThis.top !== globalThis.window || document.readyState === "complete") return;
  const landed = (event: Event) => {
    if (!event.isTrusted || (event as PageTransitionEvent).persisted) return;
    removeEventListener("pageshow", landed);
    const binding = (globalThis as unknown as Record<string, unknown>)[LANDED_BINDING];
    if (typeof binding === "function") binding(JSON.stringify(pageInfo(MAX_TITLE_CHARS)));
  };
  addEventListener("pageshow", landed);
}
