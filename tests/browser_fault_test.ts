/**
 * The browser side failing during a call (issue 12), end to end through the real connector,
 * service and headless Chromium: the extension's service worker stopped, the tab closed by the
 * person, Chromium killed, the page's renderer crashed. The page's own count and the fixture
 * server are the witnesses of what ran; the test reaches the browser over DevTools to cause the
 * fault, and to read the tab groups only the extension's chrome.* APIs tell.
 */

import { decomposeTabId } from "../service/browser/mod.ts";
import { WORLD_NAME } from "../service/tools/page/frames.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import {
  type Cdp,
  closePage,
  connectCdp,
  crashPage,
  evaluateInExtension,
  inTabWorld,
  sendPageTo,
  stopServiceWorkers,
} from "./support/cdp.ts";
import { startFaultRig } from "./support/fault_rig.ts";
import { unfence } from "./support/fence.ts";
import { legacyWithTab, toolCall, type Transcript, waitFor } from "./mcp_support.ts";

/** The text of a tool result. */
function textOf(answer: Record<string, unknown>): string {
  return (answer.result as { content: { text: string }[] }).content[0].text;
}

/** The tabs a tabs_context_mcp answer lists. */
function tabsOf(answer: Record<string, unknown>): number[] {
  const structured = (answer.result as { structuredContent: { tabs: { tabId: number }[] } })
    .structuredContent;
  return structured.tabs.map((tab) => tab.tabId);
}

/** The browser's own id of a tab the model sees. */
function nativeOf(tabId: number): number {
  return decomposeTabId(tabId)!.native;
}

/** An expression for the extension's worker: whether tab `native` shows a loaded `urlPart`. */
function loadedAt(native: number, urlPart: string): string {
  return `chrome.tabs.get(${native}).then((tab) => tab.status === "complete" && ` +
    `(tab.url ?? "").includes(${JSON.stringify(urlPart)}))`;
}

const CUT = /^Outcome unknown: .*the connection to the browser closed while cdp ran/;

Deno.test("the browser side failing mid-call: truthful answers, no effect twice", async (t) => {
  const rig = await startFaultRig("bft", {
    env: { GHOSTLIGHT_WORKSPACE_GRACE_MS: "120000" },
    launchArgs: ["--remote-debugging"],
  });
  const { slow, status } = rig;
  let cdp: Cdp = await connectCdp(rig.browser.ready.devtools!);
  const times = (tag: string) => slow.seen.filter((seen) => seen === tag).length;
  /** Loads a page in `tabId` and answers request `id`. */
  const load = async (mcp: Transcript, id: number, tabId: number, tag: string) => {
    await mcp.send(toolCall(id, "navigate", { url: slow.url(tag, 0), tabId }));
    const loaded = await mcp.nextJson();
    assertEquals(loaded.id, id);
    assertMatch(JSON.stringify(loaded.result), new RegExp(`slow ${tag}`));
  };
  /**
   * A new client's tab on page `<name>-page`, running as request 3 a script that counts its runs
   * in the page, fetches `<name>-ran` and then waits a minute; returns once the fetch arrived.
   */
  const midScript = async (name: string) => {
    const mcp = rig.connector();
    const tabId = await legacyWithTab(name, mcp);
    await load(mcp, 2, tabId, `${name}-page`);
    await mcp.send(toolCall(3, "javascript_tool", {
      action: "javascript_exec",
      text: "window.__runs = (window.__runs ?? 0) + 1; " +
        `fetch('/slow?tag=${name}-ran&ms=0'); await new Promise((r) => setTimeout(r, 60000)); 1`,
      tabId,
    }));
    await waitFor(() => Promise.resolve(times(`${name}-ran`) > 0), `the script of ${name}`);
    return { mcp, tabId };
  };
  /** Runs `String(window.__runs)` in `tabId` as request `id` and answers the page's count. */
  const runsIn = async (mcp: Transcript, id: number, tabId: number) => {
    await mcp.send(toolCall(id, "javascript_tool", {
      action: "javascript_exec",
      text: "String(window.__runs)",
      tabId,
    }));
    const read = await mcp.nextJson(60_000);
    assertEquals(read.id, id);
    return unfence(
      (read.result as { structuredContent: { result: string } }).structuredContent.result,
    );
  };
  /** The answer to request 3, the script's. */
  const cutAnswer = async (mcp: Transcript) => {
    const cut = await mcp.nextJson();
    assertEquals(cut.id, 3);
    return textOf(cut);
  };
  /** Waits for the browser to attach again in `before`'s slot, on a new connection. */
  const reattached = (before: { slot: number; connectedAt: string }, what: string) =>
    waitFor(
      async () =>
        (await status()).browsers.some((b) =>
          b.slot === before.slot && b.connectedAt !== before.connectedAt
        ),
      what,
      90_000,
    );
  try {
    await t.step("B00 an idle service worker stopped comes back by itself", async () => {
      // Chrome stops a worker it judges idle; with no tab attached and no one at the browser,
      // no event would start it again but the extension's alarm, which Chrome fires within 30 s.
      const before = (await status()).browsers[0];
      await stopServiceWorkers(cdp);
      await waitFor(async () => (await status()).browsers.length === 0, "the browser to go");
      await reattached(before, "the alarm to start the worker again");
    });

    await t.step(
      "B01 the extension's service worker stopped mid-script: one outcome_unknown, same workspace goes on",
      async () => {
        const before = (await status()).browsers[0];
        const { mcp, tabId } = await midScript("worker");
        await stopServiceWorkers(cdp);
        assertMatch(await cutAnswer(mcp), CUT);
        // The page's debugger events, or the alarm, start the worker again; the browser comes
        // back in the same slot, as the same run, so the workspace's tab ids still hold.
        await reattached(before, "the worker to start again and the browser to reattach");
        assertEquals(await runsIn(mcp, 4, tabId), "1", "the script ran once");
        assertEquals(times("worker-ran"), 1, "fetched once");
        await load(mcp, 5, tabId, "worker-after");
        // The restarted worker registered the page runtime again on the tab's new attachment: a
        // document the page opens by itself, which no Ghostlight call has read, has it already.
        await sendPageTo(cdp, "tag=worker-after", slow.url("worker-self", 0));
        await waitFor(
          () => evaluateInExtension<boolean>(cdp, loadedAt(nativeOf(tabId), "tag=worker-self")),
          "the page to open its own next document",
        );
        assertEquals(
          await evaluateInExtension<string>(
            cdp,
            inTabWorld(nativeOf(tabId), WORLD_NAME, "typeof globalThis.__ghostlight?.token"),
          ),
          "string",
          "the runtime's token is there before any read",
        );
        // The restarted worker still knows the workspace's tab group: a new tab joins it.
        await mcp.send(toolCall(6, "tabs_create_mcp", {}));
        const tabs = tabsOf(await mcp.nextJson());
        assertEquals(tabs.length, 2, JSON.stringify(tabs));
        const created = tabs.find((tab) => tab !== tabId)!;
        const groups = await evaluateInExtension<number[]>(
          cdp,
          `Promise.all([${nativeOf(tabId)}, ${nativeOf(created)}]` +
            ".map(async (id) => (await chrome.tabs.get(id)).groupId))",
        );
        assert(groups[0] !== -1, `the first tab is in a group: ${groups}`);
        assertEquals(groups[1], groups[0], "the new tab joined the workspace's group");
      },
    );

    await t.step(
      "B02 the tab closed by the person mid-script: tool_failure, not outcome_unknown",
      async () => {
        const { mcp, tabId } = await midScript("closed");
        await closePage(cdp, "tag=closed-page");
        assertMatch(
          await cutAnswer(mcp),
          /^The tab was closed while the call ran: the call is over/,
        );
        assertEquals(times("closed-ran"), 1, "fetched once");
        // The workspace goes on in a new tab.
        await mcp.send(toolCall(4, "tabs_context_mcp", { createIfEmpty: true }));
        const tabs = tabsOf(await mcp.nextJson());
        assertEquals(tabs.length, 1, JSON.stringify(tabs));
        assert(tabs[0] !== tabId, "a new tab");
        await load(mcp, 5, tabs[0], "closed-after");
      },
    );

    await t.step(
      "B03 Chromium killed mid-script: outcome_unknown, the script ran once, relaunched works",
      async () => {
        const { mcp, tabId } = await midScript("killed");
        cdp.close();
        Deno.kill(rig.browser.ready.pid, "SIGKILL");
        assertMatch(await cutAnswer(mcp), CUT);
        await waitFor(async () => (await status()).browsers.length === 0, "the browser to go");
        cdp = await connectCdp((await rig.relaunch()).ready.devtools!);
        await waitFor(async () => (await status()).browsers.length === 1, "the new browser");
        // The old tab is gone with its browser; the same connection works in a new one.
        await mcp.send(toolCall(4, "tabs_context_mcp", { createIfEmpty: true }));
        const [newTab] = tabsOf(await mcp.nextJson());
        assert(newTab !== tabId, "a new tab id");
        await load(mcp, 5, newTab, "killed-after");
        assertEquals(times("killed-ran"), 1, "the script's fetch happened once");
      },
    );

    await t.step(
      "B04 the page crashed mid-script: tool_failure naming the crash; a navigation revives the tab",
      async () => {
        const { mcp, tabId } = await midScript("crashed");
        await crashPage(cdp, "tag=crashed-page");
        assertMatch(
          await cutAnswer(mcp),
          /^The page crashed while the call ran \(reload the tab or navigate it to use it again\): the call is over/,
        );
        // What needs the dead renderer is refused at once, never sent (it would never answer).
        await mcp.send(toolCall(4, "computer", { action: "screenshot", tabId }));
        const refused = await mcp.nextJson();
        assertEquals(refused.id, 4);
        assertMatch(textOf(refused), /the tab's page has crashed, so \S+ was not sent/);
        await load(mcp, 5, tabId, "crashed-after");
        assertEquals(await runsIn(mcp, 6, tabId), "undefined", "a new page, nothing re-run");
        assertEquals(times("crashed-ran"), 1, "the script's fetch happened once");
        assertEquals(times("crashed-page"), 1, "the crashed page was not loaded again");
      },
    );
  } finally {
    cdp.close();
    await rig.close();
  }
});
