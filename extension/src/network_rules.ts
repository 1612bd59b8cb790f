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
