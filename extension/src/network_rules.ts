/**
 * Tabs' request filters (feature `network_rules`, decision 0275), as the browser's own request
 * blocking: `declarativeNetRequest` session rules limited to the tabs they were set on. The
 * browser applies them in its network stack, to every frame and request of those tabs, with no
 * round trip to this worker or the service. The service decides which hosts; this file only
 * installs what it was given.
 *
 * Each tab's list is kept in session storage (it outlives this worker, not the browser, like the
 * session rules themselves), so a restarted worker replacing one tab's rules keeps the others'.
 *
 * A tab an agent's page opens (a `target=_blank` link, `window.open`) starts its first request
 * before this worker hears of the tab, so no rule keyed by its id can be in place in time. While
 * any tab is filtered, one more rule blocks every request of a tab this worker has not yet placed
 * (decision 0336): placing a tab opened by a filtered tab gives it its opener's rules; any other
 * new tab is the person's and is let through. A first navigation the guard stopped is made again
 * once the tab is placed, when its own rules allow it.
 *
 * A service worker's requests belong to no tab (`TAB_ID_NONE`), so no tab's rules reach them.
 * Each filtered tab's rules are therefore given, a second time, to requests from no tab whose
 * initiator is a host that tab has shown (decision 0337); a host two different filters share has
 * every such request blocked.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import type { NetworkRule } from "../../shared/browser_protocol.ts";

const STORAGE_KEY = "networkRules";

/** Every tab's rules, once read from session storage. */
let byTab: Promise<Map<number, NetworkRule[]>> | null = null;
/** Changes one at a time: each replaces the whole rule set from the map. */
let queue: Promise<unknown> = Promise.resolve();

function loaded(): Promise<Map<number, NetworkRule[]>> {
  byTab ??= chrome.storage.session.get(STORAGE_KEY).then((stored) => {
    const entries = Object.entries(
      (stored[STORAGE_KEY] ?? {}) as Record<string, NetworkRule[]>,
    );
    return new Map(entries.map(([tab, rules]) => [Number(tab), rules]));
  });
  return byTab;
}

/**
 * Tabs placed: there when this worker started, or seen created since. The guard spares them (and
 * requests from no tab, `TAB_ID_NONE`).
 */
let placed: Promise<Set<number>> | null = null;

function placedTabs(): Promise<Set<number>> {
  placed ??= chrome.tabs.query({}).then((tabs) =>
    new Set(tabs.flatMap((tab) => tab.id === undefined ? [] : [tab.id]))
  );
  return placed;
}

/**
 * Places a new tab before anything else is done with it: one opened by a filtered tab takes its
 * opener's rules, any other is spared by the guard. Settles once the browser applies it.
 */
export function placeTab(tabId: number, openerTabId: number | undefined): Promise<void> {
  const change = queue.then(async () => {
    const tabs = await placedTabs();
    const current = await loaded();
    const inherited = openerTabId === undefined ? undefined : current.get(openerTabId);
    const known = tabs.has(tabId);
    tabs.add(tabId);
    markFresh(tabId);
    if (known && !inherited) return;
    // Nothing filtered: no guard to spare it from.
    if (current.size === 0) return;
    const next = new Map(current);
    if (inherited && !current.has(tabId)) next.set(tabId, [...inherited]);
    await apply(next);
    byTab = Promise.resolve(next);
  });
  queue = change.catch(() => {});
  return change;
}

/** Forgets a closed tab's place (its id is not used again in this browser session). */
export function forgetPlace(tabId: number): void {
  placed?.then((tabs) => tabs.delete(tabId));
  fresh.delete(tabId);
}

/** How long after it is placed a tab's stopped first navigation is made again. */
const FRESH_MS = 30_000;
/** Tabs placed within {@linkcode FRESH_MS} whose first navigation may be made again, by when. */
const fresh = new Map<number, number>();
/** The most such tabs remembered at once (the oldest is forgotten first). */
const MAX_FRESH = 64;

/** Remembers a just-placed tab as one whose first stopped navigation may be made again. */
export function markFresh(tabId: number): void {
  fresh.delete(tabId);
  fresh.set(tabId, Date.now() + FRESH_MS);
  if (fresh.size > MAX_FRESH) fresh.delete(fresh.keys().next().value!);
}

/**
 * A main-frame navigation the browser stopped (`net::ERR_BLOCKED_BY_CLIENT`) in a fresh tab: the
 * guard may have stopped it before the tab was placed. Made again once, when the tab's own
 * rules (or its being the person's) allow its address now.
 */
export async function retryStopped(
  details: { tabId: number; frameId: number; url: string; error: string },
): Promise<void> {
  if (details.frameId !== 0 || details.error !== "net::ERR_BLOCKED_BY_CLIENT") return;
  // The tab's placing may still be queued: its answer decides.
  await queue;
  const until = fresh.get(details.tabId);
  fresh.delete(details.tabId);
  if (until === undefined || until < Date.now()) return;
  if (!(await allowedNow(details.tabId, details.url))) return;
  await chrome.tabs.update(details.tabId, { url: details.url });
}

/**
 * Whether `url` may be loaded in `tabId` by the rules it has now (none: the person's tab), read
 * as the browser reads them: the highest priority that matches decides, an allow before a block
 * of the same priority.
 */
export async function allowedNow(tabId: number, url: string): Promise<boolean> {
  await queue;
  const rules = (await loaded()).get(tabId) ?? [];
  let decided: { priority: number; allow: boolean } | null = null;
  for (const rule of rules) {
    if (rule.host !== null && !new RegExp(hostFilter(rule.host, rule.subdomains), "i").test(url)) {
      continue;
    }
    const allow = rule.action !== "block";
    if (
      decided === null || rule.priority > decided.priority ||
      (rule.priority === decided.priority && allow)
    ) {
      decided = { priority: rule.priority, allow };
    }
  }
  return decided?.allow ?? true;
}

/** The most hosts remembered per filtered tab for its workers' rules (the oldest goes first). */
const MAX_HOSTS_PER_TAB = 64;
/** Hosts each filtered tab's frames have shown or begun to load, newest last. */
const shownHosts = new Map<number, string[]>();
/** A priority above any the service gives (at most 1,000): a shared host's block wins. */
const SHARED_HOST_PRIORITY = 1001;

function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return /^(https?|wss?):$/.test(parsed.protocol) ? parsed.hostname : null;
  } catch {
    return null;
  }
}

/**
 * Notes that a filtered tab's frame loads `url`: a worker of that host may then act for the page,
 * and its requests get the tab's rules (decision 0337). Settles once the browser applies them.
 */
export function noteTabUrl(tabId: number, url: string): Promise<void> {
  const host = hostOf(url);
  if (host === null) return Promise.resolve();
  const change = queue.then(async () => {
    const current = await loaded();
    if (!current.has(tabId) || !remember(tabId, host)) return;
    await apply(current);
  });
  queue = change.catch(() => {});
  return change;
}

/** Adds `host` to the tab's shown hosts; false when it was there already. */
function remember(tabId: number, host: string): boolean {
  const hosts = shownHosts.get(tabId) ?? [];
  if (hosts.includes(host)) return false;
  hosts.push(host);
  if (hosts.length > MAX_HOSTS_PER_TAB) hosts.shift();
  shownHosts.set(tabId, hosts);
  return true;
}

/** Each filtered tab's shown hosts, its current page's host included. */
async function hostsOf(map: Map<number, NetworkRule[]>): Promise<Map<number, string[]>> {
  for (const tabId of [...shownHosts.keys()]) if (!map.has(tabId)) shownHosts.delete(tabId);
  for (const tabId of map.keys()) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const host = hostOf(tab?.pendingUrl ?? tab?.url ?? "");
    if (host !== null) remember(tabId, host);
  }
  return new Map([...map.keys()].map((tabId) => [tabId, shownHosts.get(tabId) ?? []]));
}

/**
 * The rules for requests from no tab (a service worker's), by the host that started them: a host
 * one filter covers gets that filter's rules; a host two different filters cover has every such
 * request blocked, since neither filter may be loosened by the other's allows.
 */
function workerRules(
  map: Map<number, NetworkRule[]>,
  hosts: Map<number, string[]>,
): { rule: NetworkRule; initiators: string[] }[] {
  const filtersOf = new Map<string, Map<string, NetworkRule[]>>();
  for (const [tabId, rules] of map) {
    for (const host of hosts.get(tabId) ?? []) {
      const filters = filtersOf.get(host) ?? new Map<string, NetworkRule[]>();
      filters.set(JSON.stringify(rules), rules);
      filtersOf.set(host, filters);
    }
  }
  const byRule = new Map<string, { rule: NetworkRule; initiators: string[] }>();
  for (const [host, filters] of filtersOf) {
    const rules: NetworkRule[] = filters.size === 1
      ? [...filters.values()][0]
      : [{ priority: SHARED_HOST_PRIORITY, action: "block", host: null, subdomains: true }];
    for (const rule of rules) {
      const key = JSON.stringify([rule.priority, rule.action, rule.host, rule.subdomains]);
      const entry = byRule.get(key) ?? { rule, initiators: [] };
      entry.initiators.push(host);
      byRule.set(key, entry);
    }
  }
  return [...byRule.values()];
}

/** Sets a tab's rules (an empty list removes them); settles once the browser applies them. */
export function setTabRules(tabId: number, rules: readonly NetworkRule[]): Promise<void> {
  const change = queue.then(async () => {
    const current = await loaded();
    if (rules.length === 0 && !current.has(tabId)) return;
    // Kept only once the browser took it: a set it refused (over its bounds) changes nothing.
    const next = new Map(current);
    if (rules.length === 0) next.delete(tabId);
    else next.set(tabId, [...rules]);
    await apply(next);
    byTab = Promise.resolve(next);
  });
  queue = change.catch(() => {});
  return change;
}

/** Lifts every tab's filter (the service is gone, and every tab is the person's again). */
export function clearTabRules(): Promise<void> {
  const change = queue.then(async () => {
    await apply(new Map());
    byTab = Promise.resolve(new Map());
  });
  queue = change.catch(() => {});
  return change;
}

/** Installs the map as the session rules, one browser rule per distinct rule, shared by tabs. */
async function apply(map: Map<number, NetworkRule[]>): Promise<void> {
  const shared = new Map<string, { rule: NetworkRule; tabIds: number[] }>();
  for (const [tabId, rules] of map) {
    for (const rule of rules) {
      const key = JSON.stringify([rule.priority, rule.action, rule.host, rule.subdomains]);
      const entry = shared.get(key);
      if (entry) entry.tabIds.push(tabId);
      else shared.set(key, { rule, tabIds: [tabId] });
    }
  }
  const addRules = [...shared.values()].map(({ rule, tabIds }, index) =>
    browserRule(index + 1, rule, tabIds)
  );
  if (map.size > 0) addRules.push(guardRule(addRules.length + 1, await placedTabs()));
  for (const { rule, initiators } of workerRules(map, await hostsOf(map))) {
    const browser = browserRule(addRules.length + 1, rule, [chrome.tabs.TAB_ID_NONE]);
    browser.condition.initiatorDomains = initiators;
    addRules.push(browser);
  }
  const removeRuleIds = (await chrome.declarativeNetRequest.getSessionRules()).map((r) => r.id);
  await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds, addRules });
  await chrome.storage.session.set({ [STORAGE_KEY]: Object.fromEntries(map) });
}

/** Every kind of request: a rule left without kinds would spare the tab's top-level page. */
function allTypes(): chrome.declarativeNetRequest.ResourceType[] {
  return Object.values(chrome.declarativeNetRequest.ResourceType);
}

/**
 * The regular expression that matches a URL whose host is `host` (or, with `subdomains`, one of
 * its subdomains), by the URL's host part, so that a trailing dot, a port or a user name in the
 * URL changes nothing.
 */
export function hostFilter(host: string, subdomains: boolean): string {
  const escaped = host.replace(/[.[\]]/g, (c) => `\\${c}`);
  const under = subdomains ? "([^/?#@]*\\.)?" : "";
  return `^[a-z][a-z0-9+.-]*://([^/?#]*@)?${under}${escaped}\\.?(:[0-9]*)?([/?#]|$)`;
}

/** The browser's form of one rule. */
function browserRule(
  id: number,
  rule: NetworkRule,
  tabIds: number[],
): chrome.declarativeNetRequest.Rule {
  const condition: chrome.declarativeNetRequest.RuleCondition = {
    tabIds,
    resourceTypes: allTypes(),
  };
  if (rule.host !== null) condition.regexFilter = hostFilter(rule.host, rule.subdomains);
  const type = rule.action === "block"
    ? chrome.declarativeNetRequest.RuleActionType.BLOCK
    : chrome.declarativeNetRequest.RuleActionType.ALLOW;
  return { id, priority: rule.priority, action: { type }, condition };
}

/**
 * The rule that blocks every request of a tab not placed yet (decision 0336). Its priority is the
 * lowest: it matches no placed tab, so no tab's own rule ever meets it.
 */
function guardRule(id: number, placedTabs: Set<number>): chrome.declarativeNetRequest.Rule {
  return {
    id,
    priority: 1,
    action: { type: chrome.declarativeNetRequest.RuleActionType.BLOCK },
    condition: {
      excludedTabIds: [chrome.tabs.TAB_ID_NONE, ...placedTabs],
      resourceTypes: allTypes(),
    },
  };
}
