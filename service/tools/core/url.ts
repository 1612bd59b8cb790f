/**
 * What navigate and the governance check before it take for an address: one normalisation, so
 * the host the person's rules are checked against is the host the tab goes to.
 *
 * @module
 */

import { ToolError } from "./errors.ts";

/** Adds https:// to a bare host and refuses schemes an agent must not open. */
export function normalizeUrl(raw: string): string {
  const text = raw.trim();
  if (text === "") {
    throw new ToolError(
      "tool_failure",
      "url is empty.",
      'Call {"url": "https://example.com", "tabId": 123}.',
    );
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^/]+:\d+(\/|$)/.test(text)
    ? text
    : /^(localhost|127\.|\[::1\])/i.test(text)
    ? `http://${text}`
    : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ToolError(
      "tool_failure",
      `url "${raw}" is not a URL.`,
      'Pass a full URL such as {"url": "https://example.com/path", "tabId": 123}.',
    );
  }
  if (!["http:", "https:"].includes(url.protocol) && url.href !== "about:blank") {
    throw new ToolError(
      "denied",
      `navigate only opens http and https pages, not ${url.protocol} URLs.`,
      "Use an http:// or https:// address.",
    );
  }
  return url.href;
}
