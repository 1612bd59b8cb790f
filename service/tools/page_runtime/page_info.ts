/**
 * Facts about the document itself, read in Ghostlight's world, where the page's scripts cannot
 * redefine `document.title`, `location` or `performance`.
 *
 * @module
 */

import { current } from "./registry.ts";
import { redactedTitle } from "./secrets.ts";

/**
 * The page's URL, its title cut to `maxTitle` characters, with the values of secret fields
 * hidden (a page may put a one-time code in its title): redacted before the cut, so a cut cannot
 * leave part of a value unrecognised; the HTTP status of the document's own response (0 when
 * the browser does not say), so a landing page is read in one evaluation; and whether the frame
 * still shows this world's document (not another, not hidden in the back/forward cache), so a
 * title read needs no look at the frame tree after it (decision 0218).
 */
export function pageInfo(
  maxTitle: number,
): { url: string; title: string; status: number; current: boolean } {
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
