/**
 * Never lie, never repeat, never leak (issue 12), end to end through the real connector, service
 * and headless Chromium: the fixture server that serves the pages is the witness of what reached
 * the browser.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { unfence } from "./support/fence.ts";
import { makeTestEnv } from "./support/env.ts";
import { descendantsMatching } from "./support/processes.ts";
import {
  legacyWithTab,
  serveSlowPages,
  startConnector,
  startService,
  toolCall,
  type Transcript,
  waitFor,
} from "./mcp_support.ts";

Deno.test("work is never done for a caller that is gone", async (t) => {
  const testEnv = await makeTestEnv("rel");
  testEnv.env.GHOSTLIGHT_WORKSPACE_GRACE_MS = "60000";
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const status = () => fetchStatus(paths.controlSocket);
  const slow = serveSlowPages();
  const service = startService(testEnv);
  await waitFor(async () => (await status()).service !== null, "service");
  let browser = await launchBrowser(testEnv);
  const opened: Transcript[] = [];
  const connector = () => {
    const mcp = startConnector(testEnv);
    opened.push(mcp);
    return mcp;
  };
  const seen = (tag: string) =>
    waitFor(() => Promise.resolve(slow.seen.includes(tag)), `the browser to ask for ${tag}`);
  try {
    await t.step("R01 a connector killed with a call queued: that call never happens", async () => {
      const mcp = connector();
      const tabId = await legacyWithTab("reliable", mcp);
      await mcp.send(toolCall(2, "navigate", { url: slow.url("running", 2500), tabId }));
      await seen("running");
      await mcp.send(toolCall(3, "navigate", { url: slow.url("orphan", 0), tabId }));
      await waitFor(async () => (await status()).works?.queued === 1, "the second call queued");
      mcp.child.kill("SIGKILL");
      await mcp.close();
      // The dispatched call drains; the queued one retires at once, so once nothing runs any
      // more, the queued call would have been sent already, had it not been retired.
      await waitFor(async () => (await status()).works?.queued === 0, "the queue to empty");
      await waitFor(async () => (await status()).works?.running === 0, "the running call");
      assert(!slow.seen.includes("orphan"), `the browser asked for ${slow.seen}`);

      // The workspace's next caller is not held up by anything the gone connector left.
      const next = connector();
      const nextTab = await legacyWithTab("reliable", next);
      await next.send(toolCall(2, "navigate", { url: slow.url("after", 0), tabId: nextTab }));
      const answer = await next.nextJson();
      assertEquals(answer.id, 2);
      assertMatch(JSON.stringify(answer.result), /slow after/);
    });

    await t.step(
      "R03 the browser connector killed mid-script: unknown, never run twice",
      async () => {
        const mcp = connector();
        const tabId = await legacyWithTab("reliable", mcp);
        await mcp.send(toolCall(2, "navigate", { url: slow.url("script-page", 0), tabId }));
        assertEquals((await mcp.nextJson()).id, 2);
        const hosts = await descendantsMatching(browser.ready.pid, /browser.connector/);
        assertEquals(hosts.length, 1, "one native host runs for the browser");
        const slot = (await status()).browsers[0].connectedAt;
        await mcp.send(toolCall(3, "javascript_tool", {
          action: "javascript_exec",
          text: "window.__runs = (window.__runs ?? 0) + 1; " +
            "fetch('/slow?tag=script-ran&ms=0'); await new Promise((r) => setTimeout(r, 4000)); 1",
          tabId,
        }));
        await seen("script-ran");
        Deno.kill(hosts[0], "SIGKILL");
        const cut = await mcp.nextJson();
        assertEquals(cut.id, 3);
        assertMatch(JSON.stringify(cut.result), /Outcome unknown/);
        // The tab took nothing until the extension proved the script's command ended. The
        // service's log is the witness: the reconnect may be quick enough that status never
        // shows the quarantine to a poll.
        await waitFor(
          async () => (await Deno.readTextFile(paths.logFile)).includes(`tab:${tabId} quarantined`),
          "the quarantine in the service log",
        );
        // Chromium starts the native host again; the browser comes back as a new link, and the
        // extension acknowledges the cut-off command, which ends the quarantine.
        await waitFor(
          async () => (await status()).browsers.some((b) => b.connectedAt !== slot),
          "the browser to reattach",
        );
        await waitFor(async () => (await status()).quarantined?.length === 0, "the ack");
        assertMatch(
          await Deno.readTextFile(paths.logFile),
          new RegExp(`tab:${tabId} left quarantine: its command ended`),
        );
        await mcp.send(toolCall(4, "javascript_tool", {
          action: "javascript_exec",
          text: "window.__runs",
          tabId,
        }));
        const runs = await mcp.nextJson();
        assertEquals(runs.id, 4);
        const read = runs.result as { structuredContent: { result: string } };
        assertEquals(
          unfence(read.structuredContent.result),
          "1",
          "the script ran once in the page",
        );
        assertEquals(slow.seen.filter((tag) => tag === "script-ran").length, 1, "fetched once");
      },
    );

    await t.step("R04 a restarted browser: old tab ids are refused, new ones work", async () => {
      const mcp = connector();
      const oldTab = await legacyWithTab("reliable", mcp);
      await browser.stop();
      await waitFor(async () => (await status()).browsers.length === 0, "the browser to go");
      browser = await launchBrowser(testEnv);
      await waitFor(async () => (await status()).browsers.length === 1, "the new browser");
      await mcp.send(toolCall(2, "navigate", { url: slow.url("old-tab", 0), tabId: oldTab }));
      const refused = await mcp.nextJson();
      assertEquals(refused.id, 2);
      assert((refused.result as { isError?: boolean }).isError, JSON.stringify(refused));
      await mcp.send(toolCall(3, "tabs_context_mcp", { createIfEmpty: true }));
      const listed = (await mcp.nextJson()).result as {
        structuredContent: { tabs: { tabId: number }[] };
      };
      const newTab = listed.structuredContent.tabs[0].tabId;
      assert(newTab !== oldTab, "a new tab id");
      await mcp.send(toolCall(4, "navigate", { url: slow.url("new-tab", 0), tabId: newTab }));
      const worked = await mcp.nextJson();
      assertMatch(JSON.stringify(worked.result), /slow new-tab/);
      assert(!slow.seen.includes("old-tab"), "the old id reached no page");
    });
  } finally {
    for (const mcp of opened) await mcp.close().catch(() => {});
    await browser.stop();
    service.kill("SIGTERM");
    await service.status;
    await slow.close();
    await testEnv.dispose();
  }
});
