/**
 * `navigate`: load a URL or move through history in an owned tab, then wait for the load.
 *
 * @module
 */

import { type Handler, success } from "./context.ts";
import { ToolError } from "./errors.ts";
import { cdp, evaluate, ownedTab, pageInfo, type TabTarget } from "./target.ts";

/** How long navigate waits for a page to finish loading. */
const LOAD_TIMEOUT_MS = 20_000;
const POLL_MS = 100;

/** Adds https:// to a bare host and refuses schemes an agent must not open. */
export function normalizeUrl(raw: string): string {
  const text = raw.trim();
  if (text === "") {
    throw new ToolError("tool_failure", '"url" is empty.', 'Pass a URL such as "example.com".');
  }
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^/]+:\d+(\/|$)/.test(text)
    ? text
    : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ToolError(
      "tool_failure",
      `"${raw}" is not a URL.`,
      'Pass a full URL such as "https://example.com/path".',
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

async function waitForLoad(target: TabTarget, expectedUrl?: string): Promise<boolean> {
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const state = await evaluate<{ ready: string; url: string }>(
      target,
      "({ ready: document.readyState, url: location.href })",
    ).catch(() => null);
    if (state && state.ready === "complete" && (!expectedUrl || state.url === expectedUrl)) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}

async function goThroughHistory(target: TabTarget, direction: "back" | "forward") {
  const history = await cdp(target, "Page.getNavigationHistory") as {
    currentIndex: number;
    entries: { id: number; url: string }[];
  };
  const index = history.currentIndex + (direction === "back" ? -1 : 1);
  const entry = history.entries[index];
  if (!entry) {
    throw new ToolError(
      "tool_failure",
      `There is no page to go ${direction} to in this tab's history.`,
      "Navigate to a URL instead.",
    );
  }
  await cdp(target, "Page.navigateToHistoryEntry", { entryId: entry.id });
  return await waitForLoad(target, entry.url);
}

/** `navigate`. */
export const navigate: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const raw = (args.url as string).trim();
  let loaded: boolean;
  if (raw === "back" || raw === "forward") {
    loaded = await goThroughHistory(target, raw);
  } else {
    const url = normalizeUrl(raw);
    if (args.force === true) {
      await evaluate(target, "window.onbeforeunload = null; true").catch(() => {});
    }
    const reply = await cdp(target, "Page.navigate", { url }, { timeoutMs: LOAD_TIMEOUT_MS });
    if (typeof reply.errorText === "string" && reply.errorText !== "") {
      throw new ToolError(
        "tool_failure",
        `Could not load ${url}: ${reply.errorText}.`,
        "Check the address; the site may be down or unreachable from this machine.",
      );
    }
    loaded = await waitForLoad(target);
  }
  const page = await pageInfo(target);
  const note = loaded ? "" : " The page is still loading; read it again shortly.";
  return success(
    `Tab ${target.tabId} is at ${page.url} — "${page.title}".${note}`,
    { tabId: target.tabId, url: page.url, title: page.title, loaded },
  );
};
