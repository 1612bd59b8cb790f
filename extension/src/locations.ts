/**
 * Where the service's tabs stand (feature `tab_locations`, decision 0190): for each tab the
 * service asked to report it, the answer to every command naming the tab carries the tab as it
 * stands after the command, and every change of its URL or pending URL is sent on its own. The
 * service's gate reads these instead of asking the browser before and after each call.
 *
 * A change to another site goes out at once (within a per-tab bound); changes within one site
 * (a page calling pushState in a loop) are coalesced, so a page cannot flood the native port.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import type { FromExtension, TabInfo } from "../../shared/browser_protocol.ts";
import { type Bucket, takeToken } from "./event_filter.ts";

/** Changes within one site: at most one report per tab this often. */
const SAME_SITE_EVERY_MS = 100;
/** Reports of a change of site a tab may send at once per second; beyond, they are coalesced. */
const SITE_CHANGES_PER_SECOND = 20;

interface Tracked extends Bucket {
  /** URL and pending URL as last seen from the browser, and how many times they changed. */
  seen: string;
  changes: number;
  /** The site of what was last reported (by an answer or on its own), and when. */
  site: string;
  sentAt: number;
  /** The latest change not yet reported, waiting for its turn. */
  waiting?: { tab: TabInfo; timer: ReturnType<typeof setTimeout> };
  /** A reading on a navigation event is under way; `again`: another event came meanwhile. */
  reading?: { again: boolean };
}

const tracked = new Map<number, Tracked>();
let sink: (message: FromExtension) => void = () => {};

/** Where reports go (the native port). */
export function setLocationSink(send: (message: FromExtension) => void): void {
  sink = send;
}

/**
 * Starts reporting where `tabId` stands (again: its memory is kept). Only while the debugger is
 * attached to it: its navigation events are what tell a page leaving by itself.
 */
export function track(tabId: number): void {
  if (tracked.has(tabId)) return;
  tracked.set(tabId, {
    seen: "",
    changes: 0,
    site: "",
    sentAt: 0,
    tokens: SITE_CHANGES_PER_SECOND,
    refilledAt: Date.now(),
  });
}

/** Stops reporting `tabId` (released or closed); a report still waiting is dropped with it. */
export function untrack(tabId: number): void {
  clearTimeout(tracked.get(tabId)?.waiting?.timer);
  tracked.delete(tabId);
}

/**
 * The debugger left a tab that reports where it stands: without its events a page leaving by
 * itself goes unseen, so the service is told to ask the browser until a command attaches again.
 */
export function attachmentLost(tabId: number): void {
  if (!tracked.has(tabId)) return;
  untrack(tabId);
  sink({ type: "tab_location", tab_id: tabId });
}

/** A tab as the protocol describes it. */
export function describeTab(tab: chrome.tabs.Tab): TabInfo {
  return {
    tab_id: tab.id ?? -1,
    window_id: tab.windowId,
    group_id: tab.groupId,
    url: tab.url ?? tab.pendingUrl ?? "",
    ...(tab.pendingUrl ? { pending_url: tab.pendingUrl } : {}),
    title: tab.title ?? "",
    status: tab.status ?? "unknown",
    active: tab.active,
  };
}

/**
 * The tab as it stands now, for the answer of a command that named it and has finished; none
 * when the tab does not report its location, is gone, or changed while it was read (then which
 * of the two is newer is not certain: the service asks the browser instead).
 */
export async function tailOf(tabId: number): Promise<TabInfo | undefined> {
  const entry = tracked.get(tabId);
  if (!entry) return undefined;
  const changes = entry.changes;
  let tab: chrome.tabs.Tab;
  try {
    tab = await chrome.tabs.get(tabId);
  } catch {
    return undefined;
  }
  if (tracked.get(tabId) !== entry || entry.changes !== changes) return undefined;
  const info = describeTab(tab);
  entry.seen = `${info.url}\n${info.pending_url ?? ""}`;
  // The answer is at least as new as any change seen before it: a waiting report is spent.
  clearTimeout(entry.waiting?.timer);
  entry.waiting = undefined;
  entry.site = siteOf(info);
  entry.sentAt = Date.now();
  return info;
}

chrome.tabs.onUpdated.addListener((tabId, _change, tab) => {
  const entry = tracked.get(tabId);
  if (entry) consider(tabId, entry, describeTab(tab));
});

/**
 * The debugger's word that a navigation starts or ends in the tab's page. Chrome sends no
 * `tabs.onUpdated` when a page starts leaving by itself (a script setting `location.href`), yet
 * the tab then has a pending URL: these events say when to read it.
 */
const NAVIGATING = new Set([
  "Page.frameRequestedNavigation",
  "Page.frameStartedNavigating",
  "Page.frameNavigated",
  "Page.navigatedWithinDocument",
]);
/** How many times a reading crossed by a change is taken again before the change's own stands. */
const RECHECKS = 3;

chrome.debugger.onEvent.addListener((source, method) => {
  const tabId = source.tabId;
  if (tabId === undefined || (source as { sessionId?: string }).sessionId) return;
  const entry = tracked.get(tabId);
  if (!entry || !NAVIGATING.has(method)) return;
  // One reading at a time per tab, and one more after it for whatever came meanwhile: a page
  // navigating its frames in a loop cannot pile readings up.
  if (entry.reading) {
    entry.reading.again = true;
    return;
  }
  const reading = { again: false };
  entry.reading = reading;
  (async () => {
    do {
      reading.again = false;
      await recheck(tabId);
    } while (reading.again && tracked.get(tabId) === entry);
    entry.reading = undefined;
  })();
});

/**
 * Reads the tab and reports what changed. A reading crossed by a change (which of the two is
 * newer is not certain) is taken again.
 */
async function recheck(tabId: number): Promise<void> {
  for (let attempt = 0; attempt < RECHECKS; attempt++) {
    const entry = tracked.get(tabId);
    if (!entry) return;
    const changes = entry.changes;
    let tab: chrome.tabs.Tab;
    try {
      tab = await chrome.tabs.get(tabId);
    } catch {
      return;
    }
    if (tracked.get(tabId) !== entry) return;
    if (entry.changes === changes) return consider(tabId, entry, describeTab(tab));
  }
}

/** Reports a tab's new URL or pending URL, at once or coalesced (see the module's words). */
function consider(tabId: number, entry: Tracked, info: TabInfo): void {
  const seen = `${info.url}\n${info.pending_url ?? ""}`;
  // A new title, a status or a favicon moves nothing.
  if (seen === entry.seen) return;
  entry.seen = seen;
  entry.changes++;
  const now = Date.now();
  if (siteOf(info) !== entry.site && takeToken(entry, now, SITE_CHANGES_PER_SECOND)) {
    return report(entry, info, now);
  }
  if (now - entry.sentAt >= SAME_SITE_EVERY_MS) return report(entry, info, now);
  if (entry.waiting) {
    entry.waiting.tab = info;
    return;
  }
  const timer = setTimeout(() => {
    const waiting = entry.waiting;
    if (tracked.get(tabId) !== entry || !waiting) return;
    report(entry, waiting.tab, Date.now());
  }, SAME_SITE_EVERY_MS - (now - entry.sentAt));
  entry.waiting = { tab: info, timer };
}

function report(entry: Tracked, tab: TabInfo, now: number): void {
  clearTimeout(entry.waiting?.timer);
  entry.waiting = undefined;
  entry.site = siteOf(tab);
  entry.sentAt = now;
  sink({ type: "tab_location", tab_id: tab.tab_id, tab });
}

/**
 * What a page's site can be told apart by, for both the URL and the pending URL: never coarser
 * than the policy's host (the service's `hostOfUrl`), so a change of host always counts as a
 * change of site. Scheme and hostname; a blob by its origin; blank pages as nothing.
 */
function siteOf(tab: Pick<TabInfo, "url" | "pending_url">): string {
  return `${siteOfUrl(tab.url)} ${siteOfUrl(tab.pending_url ?? tab.url)}`;
}

function siteOfUrl(url: string): string {
  if (url === "" || url === "about:blank" || url === "about:srcdoc") return "";
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "blob:") return siteOfUrl(parsed.pathname);
    return `${parsed.protocol}//${parsed.hostname}`;
  } catch {
    return `?${url}`;
  }
}
