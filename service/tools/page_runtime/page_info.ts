/**
 * Facts about the document itself, read in Ghostlight's world, where the page's scripts cannot
 * redefine `document.title`, `location` or `performance`.
 *
 * @module
 */

import { redactedTitle } from "./secrets.ts";

/**
 * The page's URL and its title cut to `maxTitle` characters, with the values of secret fields
 * hidden (a page may put a one-time code in its title): redacted before the cut, so a cut cannot
 * leave part of a value unrecognised.
 */
export function pageInfo(maxTitle: number): { url: string; title: string } {
  return { url: location.href, title: redactedTitle().slice(0, maxTitle) };
}

/** The HTTP status of the document's own response; 0 when the browser does not say. */
export function responseStatus(): number {
  const entry = performance.getEntriesByType("navigation")[0] as
    | PerformanceNavigationTiming
    | undefined;
  return (entry || { responseStatus: 0 }).responseStatus || 0;
}
