/**
 * Facts about the document itself, read in Ghostlight's world, where the page's scripts cannot
 * redefine `document.title`, `location` or `performance`.
 *
 * @module
 */

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
