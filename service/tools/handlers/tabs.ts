/**
 * The context-creating tools: list the workspace's tabs, open a new one.
 *
 * @module
 */

import type { TabInfo } from "../../../shared/browser_protocol.ts";
import { BrowserError, decomposeTabId } from "../../browser/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { displayUrl, fence, originOf, redactSecrets } from "../core/safe_text.ts";
import { closedByAgent, rememberTabs, type TabTarget, workspaceBrowser } from "../core/target.ts";
import { pageInfo } from "../page/frames.ts";
import { ToolError } from "../core/errors.ts";
import { groupTitle, MAX_TABS_PER_WORKSPACE, type Workspace } from "../../workspace/mod.ts";

/** Longest tab title shown. */
const MAX_TITLE_CHARS = 300;
/** Longest wait for a page to tell its title; a busy page's tab is listed with the browser's. */
const TITLE_WAIT_MS = 1_000;

interface ListedTab {
  tabId: number;
  title: string;
  url: string;
}

/**
 * A tab whose page the policy refuses to read (a sacred site, a host reading is denied on): listed
 * by its id with why, never with its title or address, which are that site's (decision 0272).
 */
interface WithheldTab {
  tabId: number;
  withheld: string;
}

/** What the policy says of listing a tab showing `url`: null when its title may be shown. */
function withheldWhy(context: ToolContext, url: string): string | null {
  return context.policy.refusal(url, ["read"])?.why ?? null;
}

/** Lists the workspace's tabs that still exist, forgetting closed ones. */
async function listTabs(
  context: ToolContext,
): Promise<{ tabs: (ListedTab | WithheldTab)[]; groupId?: number }> {
  const tabs: (ListedTab | WithheldTab)[] = [];
  let groupId: number | undefined;
  rememberTabs(context.workspace);
  for (const tabId of [...context.workspace.tabs]) {
    const parts = decomposeTabId(tabId);
    const link = parts && context.browsers.bySlot(parts.slot);
    if (!parts || !link) continue;
    try {
      // The page's own title first: its answer carries where the tab stands when the tab
      // reports it (decision 0190), as fresh as asking the browser after it. The browser is
      // asked only when it did not (an older extension, a tab not reporting, no answer: a
      // dialog, a busy page, a tab gone), which is also what tells a gone tab (decision 0215).
      // An extension without location reports is asked beside the title read instead.
      // A tab known to show a refused page is not asked for its title at all.
      const known = link.knownLocation(parts.native)?.tab;
      const before = known && withheldWhy(context, known.url);
      if (before) {
        tabs.push({ tabId, withheld: before });
        if (known.group_id >= 0) groupId = known.group_id;
        continue;
      }
      const since = link.locationSerial;
      const beside = link.details.features.includes("tab_locations")
        ? undefined
        : link.call("tab.get", { tab_id: parts.native });
      beside?.catch(() => {}); // awaited below; a failing title read must not leave it unheard
      const title = await redactedTitle(context.workspace, { link, native: parts.native, tabId });
      const info = await (beside ?? link.tabSince(parts.native, since));
      if (info.group_id >= 0) groupId = info.group_id;
      const withheld = withheldWhy(context, info.url);
      if (withheld) {
        tabs.push({ tabId, withheld });
        continue;
      }
      // Titles and URLs are the pages' own: redacted and bounded here, fenced when shown.
      tabs.push({
        tabId,
        title: redactSecrets((title ?? browserTitle(info)).slice(0, MAX_TITLE_CHARS)),
        url: displayUrl(info.url),
      });
    } catch (error) {
      if (!(error instanceof BrowserError && error.kind === "no_such_tab")) throw error;
      context.workspaces.forgetTab(tabId);
    }
  }
  return { tabs, groupId };
}

/**
 * The title to show when the page cannot be asked for its own: a web page's title may hold a
 * secret it copied from a field, which only the page can hide, so it is withheld (fail closed);
 * the browser's own pages and blank tabs keep the browser's title.
 */
function browserTitle(info: TabInfo): string {
  return /^https?:/i.test(info.url) ? "(title withheld: the page did not answer)" : info.title;
}

/**
 * The tab's title as its page tells it with secret field values hidden (the page runtime's one
 * rule: a page may copy a one-time code into its title); null when the page cannot be asked (a
 * dialog or a busy script holds it, or it is not a page Ghostlight can read).
 */
async function redactedTitle(workspace: Workspace, target: TabTarget): Promise<string | null> {
  if (target.link.tab(target.native).dialog) return null;
  const asked = pageInfo(workspace, target).then((info) => info.title, () => null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) =>
    timer = setTimeout(() => resolve(null), TITLE_WAIT_MS)
  );
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens a blank tab in the workspace's group and takes ownership of it. */
async function createTab(context: ToolContext): Promise<TabInfo & { tabId: number }> {
  if (context.workspace.tabs.size >= MAX_TABS_PER_WORKSPACE) {
    throw new ToolError(
      "tool_failure",
      `You already have ${MAX_TABS_PER_WORKSPACE} tabs, the most one workspace may own.`,
      "Navigate one of your tabs (tabs_context_mcp lists them) instead of opening another.",
    );
  }
  const link = workspaceBrowser(context.workspace, context.browsers);
  const info = await link.call("tab.create", {
    group: {
      key: context.workspace.groupKey,
      title: groupTitle(context.workspace),
      color: context.workspace.color,
    },
    url: "about:blank",
  });
  const tabId = link.compose(info.tab_id);
  context.workspace.tabs.add(tabId);
  return { ...info, tabId };
}

function render(
  context: ToolContext,
  listed: { tabs: (ListedTab | WithheldTab)[]; groupId?: number },
  lead: string,
) {
  const lines = listed.tabs.map((tab) =>
    "withheld" in tab
      ? `- tabId ${tab.tabId}: withheld: it shows ${tab.withheld}; its title and address are ` +
        "not shown, and nothing can be done in it."
      : `- tabId ${tab.tabId}:\n` +
        fence(context.workspace, originOf(tab.url), `${tab.title || "(untitled)"} — ${tab.url}`)
  );
  const former = rememberTabs(context.workspace);
  const hadTabs = former.size > 0;
  const closed = closedByAgent(context.workspace);
  // Every tab it had, the agent closed itself: nothing went wrong, it has none open.
  const closedAll = hadTabs && [...former].every((tabId) => closed.has(tabId));
  const text = listed.tabs.length > 0
    ? `${lead}Your tabs:\n${lines.join("\n")}`
    : closedAll
    ? `${lead}You have no tabs open: you closed ${
      former.size === 1 ? `your tab (${[...former][0]})` : `your last tab (${[...closed].at(-1)})`
    } with tab_control. Call tabs_context_mcp with createIfEmpty: true, or tabs_create_mcp, ` +
      "to open one."
    : hadTabs
    ? `${lead}Your earlier tabs are gone: closed, or the browser holding them disconnected or ` +
      "restarted. Call tabs_context_mcp with createIfEmpty: true to start again."
    : `${lead}You have no tabs yet (tabs from before Ghostlight or the browser restarted are ` +
      "not kept). Call tabs_context_mcp with createIfEmpty: true, or tabs_create_mcp.";
  return success(text, {
    tabs: listed.tabs,
    ...(listed.groupId !== undefined ? { groupId: listed.groupId } : {}),
  });
}

/** `tabs_context_mcp`. */
export const tabsContext: Handler = async (args, context) => {
  let listed = await listTabs(context);
  let lead = "";
  if (listed.tabs.length === 0 && args.createIfEmpty === true) {
    const created = await createTab(context);
    listed = await listTabs(context);
    lead = `Opened tab ${created.tabId} for you.\n`;
  }
  return render(context, listed, lead);
};

/** `tabs_create_mcp`. */
export const tabsCreate: Handler = async (_args, context) => {
  const created = await createTab(context);
  return render(context, await listTabs(context), `Opened tab ${created.tabId}.\n`);
};
