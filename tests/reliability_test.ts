/**
 * Never lie, never repeat, never leak (issue 12), end to end through the real connector, service
 * and headless Chromium: the fixture server that serves the pages is the witness of what reached
 * the browser.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { makeTestEnv } from "./support/env.ts";
import {
  serveSlowPages,
  startConnector,
  startService,
  toolCall,
  type Transcript,
  waitFor,
} from "./mcp_support.ts";

const INIT = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":' +
  '"2025-11-25","capabilities":{},"clientInfo":{"name":"reliable","version":"1"}}}';

/** Initializes a 2025 connection and opens its first tab. */
async function legacyWithTab(mcp: Transcript): Promise<number> {
  await mcp.send(INIT);
  await mcp.nextJson(30_000);
  await mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await mcp.send(toolCall(1, "tabs_context_mcp", { createIfEmpty: true }));
  const context = await mcp.nextJson();
  const structured = (context.result as { structuredContent: { tabs: { tabId: number }[] } })
    .structuredContent;
  return structured.tabs[0].tabId;
}

Deno.test("work is never done for a caller that is gone", async (t) => {
  const testEnv = await makeTestEnv("rel");
  testEnv.env.GHOSTLIGHT_WORKSPACE_GRACE_MS = "60000";
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const status = () => fetchStatus(paths.controlSocket);
  const slow = serveSlowPages();
  const service = startService(testEnv);
  await waitFor(async () => (await status()).service !== null, "service");
  const browser = await launchBrowser(testEnv);
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
      const tabId = await legacyWithTab(mcp);
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
      const nextTab = await legacyWithTab(next);
      await next.send(toolCall(2, "navigate", { url: slow.url("after", 0), tabId: nextTab }));
      const answer = await next.nextJson();
      assertEquals(answer.id, 2);
      assertMatch(JSON.stringify(answer.result), /slow after/);
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
