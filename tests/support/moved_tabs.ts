/**
 * Governance of a tab that moves (decision 0190), through a real MCP client and headless
 * Chromium: a page that starts leaving, or has left, by itself for a host the policy refuses is
 * refused before the next call reaches it, and a click that leads there has its result withheld. The same steps run
 * against this tree's extension (which reports where its tabs stand) and an older one (whose
 * tabs the gate asks the browser about).
 *
 * @module
 */

import { assert, assertMatch } from "./assert.ts";
import { connectCdp, sendPageTo } from "./cdp.ts";
import { allText } from "./results.ts";
import type { E2ESession } from "./session.ts";
import { pollUntil } from "./wait.ts";

/** Everything allowed, except any capability on localhost. */
export const MOVED_TABS_POLICY =
  `{ "default": "allow", "grants": [{ "hosts": ["localhost"], "deny": ["read", "action", "write", "execute"] }] }`;

/**
 * Runs the steps on `tabId` of a session started with {@linkcode MOVED_TABS_POLICY} and
 * `--remote-debugging`.
 */
export async function movedTabsStayGoverned(
  s: E2ESession,
  tabId: number,
  { filters = true }: { filters?: boolean } = {},
): Promise<void> {
  const denied = (path: string) => s.fixtures.url(path).replace("127.0.0.1", "localhost");
  const endpoint = s.browser.ready.devtools;
  assert(endpoint, "the browser was launched with --remote-debugging");
  /** Loads `marker`'s page in the tab, then has it leave by itself (no call) for `to`. */
  const leaveBySelf = async (marker: string, to: string) => {
    await s.ok("navigate", { url: s.fixtures.url(`/article.html?moved=${marker}`), tabId });
    const cdp = await connectCdp(endpoint);
    try {
      await sendPageTo(cdp, `moved=${marker}`, to);
    } finally {
      cdp.close();
    }
  };

  // A click on a link to the denied host: the browser stops the request (decision 0275), or with
  // an extension that does not filter it is carried out; nothing of the page it led to is
  // returned.
  await s.ok("navigate", { url: s.fixtures.url("/article.html?moved=click"), tabId });
  await s.ok("javascript_tool", {
    action: "javascript_exec",
    tabId,
    text:
      `const a = document.createElement("a"); a.href = ${
        JSON.stringify(denied("/index.html"))
      }; a.textContent = "away"; a.style.cssText = "position:fixed;inset:0;display:block;` +
      `font-size:64px;background:#fff"; document.body.replaceChildren(a); "armed"`,
  });
  const clicked = await s.call("computer", { action: "left_click", coordinate: [200, 200], tabId });
  assert(clicked.isError, JSON.stringify(clicked));
  assertMatch(
    allText(clicked),
    filters
      ? /^Denied: computer left_click led the tab toward a host that is refused to you \(named below\), so the request was stopped[\s\S]*\nlocalhost\n<\/page-content-/
      : /^Denied: computer left_click was carried out, but the tab ended on a site where reading is refused[\s\S]*The tab is on:\n<page-content-[^\n]*\nlocalhost\n/,
  );
  assert(!allText(clicked).includes("Lighthouse"), "nothing of the denied page comes back");

  // The page starts leaving by itself for a page that is slow to answer. The browser stops the
  // request (decision 0275) and shows its page for it, on the denied host; with an extension
  // that does not filter, the navigation is pending (the tab still shows the old page). Either
  // way the next call is refused, since it could land on either. Calls before the service hears
  // of it read the old page, which is allowed.
  await leaveBySelf("pending", denied("/slow?ms=15000"));
  // Reading the console waits for no page: until the service hears of the navigation it reads
  // the old page's, which is allowed; from then on it is refused, and so is everything else.
  const refused = await pollUntil(
    () => s.call("read_console_messages", { tabId }),
    (result) => result.isError === true,
    "the service to hear that the page is leaving",
  );
  assertMatch(
    allText(refused),
    /^Denied: read_console_messages (needs the read capability on the page in its tab, which is refused|was carried out, but the tab ended on a site where reading is refused)/,
  );
  assertMatch(
    await s.fail("get_page_text", { tabId }),
    /^Denied: get_page_text needs the read capability on the page in its tab, which is refused [^\n]*The tab is on:\n<page-content-[^\n]*>\nlocalhost\n/,
  );

  // The page leaves by itself, no call involved; once the service has heard from the browser
  // that it did, the next calls on it are refused before anything is sent to the page.
  await leaveBySelf("self", denied("/index.html?moved=away"));
  await pollUntil(
    () => s.ok("tabs_context_mcp", {}),
    // A tab on a host where reading is refused is listed as withheld (decision 0272).
    (listed) =>
      (listed.structuredContent as { tabs: { tabId: number; withheld?: string }[] }).tabs
        .some((tab) => tab.tabId === tabId && /read is refused/.test(tab.withheld ?? "")),
    "the service to hear that the page left by itself",
  );
  assertMatch(
    await s.fail("get_page_text", { tabId }),
    /^Denied: get_page_text needs the read capability on the page in its tab, which is refused [^\n]*The tab is on:\n<page-content-[^\n]*>\nlocalhost\n/,
  );
  assertMatch(
    await s.fail("computer", { action: "left_click", coordinate: [5, 5], tabId }),
    /^Denied: computer left_click needs the action capability on the page in its tab, which is refused/,
  );
}
