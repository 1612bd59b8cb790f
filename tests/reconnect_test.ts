/**
 * The browser connector keeps Chrome's port open across a service restart: it reconnects, the
 * extension says hello again, and a new client's calls reach the same browser.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { resolveInstancePaths } from "../shared/instance.ts";
import { fetchStatus } from "../service/control/mod.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { executable, makeTestEnv } from "./support/env.ts";
import { startService } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";
import { serveFixtures } from "./support/fixtures.ts";

Deno.test("the browser reattaches after the service restarts, without Chrome noticing", async () => {
  const testEnv = await makeTestEnv();
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const fixtures = serveFixtures();
  let service = startService(testEnv);
  await waitFor(async () => (await fetchStatus(paths.controlSocket)).service !== null, "service");
  const browser = await launchBrowser(testEnv);
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  try {
    const before = await fetchStatus(paths.controlSocket);
    assertEquals(before.browsers.length, 1);

    service.kill("SIGKILL");
    await service.status;
    service = startService(testEnv);
    await waitFor(
      async () => (await fetchStatus(paths.controlSocket)).browsers.length === 1,
      "the browser to reattach",
    );

    const client = new Client({ name: "after-restart", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command, args, env: testEnv.env, stderr: "pipe" }),
    );
    try {
      const context = await client.callTool({
        name: "tabs_context_mcp",
        arguments: { createIfEmpty: true },
      });
      assert(!context.isError, JSON.stringify(context.content));
      const listed = context.structuredContent as { tabs: { tabId: number }[]; groupId?: number };
      assert(typeof listed.groupId === "number" && listed.groupId >= 0, "the tab is in a group");
      const tabId = listed.tabs[0].tabId;
      const navigated = await client.callTool({
        name: "navigate",
        arguments: { url: fixtures.url("/index.html"), tabId },
      });
      assert(!navigated.isError, JSON.stringify(navigated.content));
      assertMatch((navigated.content as { text: string }[])[0].text, /Ghostlight fixture home/);
    } finally {
      await client.close();
    }
    const alive = await new Deno.Command("kill", { args: ["-0", String(browser.ready.pid)] })
      .output();
    assert(alive.success, "Chromium kept running through the restart");
  } finally {
    await browser.stop();
    service.kill("SIGTERM");
    await service.status;
    await fixtures.close();
    await testEnv.dispose();
  }
});
