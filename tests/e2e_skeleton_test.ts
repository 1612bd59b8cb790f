/**
 * The walking skeleton end to end: the 1.x SDK client spawns the MCP connector under its own
 * permission set; the service and the browser connector run under theirs; headless Chromium
 * with the extension does the work on a page served by this test.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { decodeBase64 } from "../shared/base64.ts";
import { jpegSize } from "../service/tools/page/jpeg.ts";
import { launchBrowser } from "./support/browser.ts";
import { executable, makeTestEnv, withEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";

type TextBlock = { type: "text"; text: string };
type ImageBlock = { type: "image"; data: string; mimeType: string };

Deno.test("an MCP client drives headless Chromium through all three processes", async () => {
  const testEnv = await makeTestEnv();
  const fixtures = serveFixtures();
  // As the README says: `deno task ghostlight --instance X browser launch --headless`, and a
  // client spawning the connector from some other directory.
  const browser = await launchBrowser(testEnv, { viaTask: true });
  const elsewhere = await Deno.makeTempDir({ dir: testEnv.home });
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: testEnv.env,
    cwd: elsewhere,
    stderr: "pipe",
  });
  const client = new Client({ name: "skeleton-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const names = tools.map((tool: { name: string }) => tool.name);
    for (
      const name of ["tabs_context_mcp", "tabs_create_mcp", "navigate", "computer", "get_page_text"]
    ) {
      assert(names.includes(name), `${name} is advertised`);
    }

    const context = await client.callTool({
      name: "tabs_context_mcp",
      arguments: { createIfEmpty: true },
    });
    assert(!context.isError, JSON.stringify(context));
    const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    assertEquals(typeof tabId, "number");

    const navigated = await client.callTool({
      name: "navigate",
      arguments: { url: fixtures.url("/index.html"), tabId },
    });
    assert(!navigated.isError, JSON.stringify(navigated));
    assertMatch((navigated.content as TextBlock[])[0].text, /Ghostlight fixture home/);

    const text = await client.callTool({ name: "get_page_text", arguments: { tabId } });
    assert(!text.isError, JSON.stringify(text));
    const body = (text.content as TextBlock[])[0].text;
    assertMatch(body, /fog bell was tested on Tuesday/);
    assertMatch(body, /origin="http:\/\/127\.0\.0\.1:\d+" trust="untrusted"/);

    const shot = await client.callTool({
      name: "computer",
      arguments: { action: "screenshot", tabId },
    });
    assert(!shot.isError, JSON.stringify(shot));
    const image = (shot.content as (TextBlock | ImageBlock)[]).find((b) =>
      b.type === "image"
    ) as ImageBlock;
    assertEquals(image.mimeType, "image/jpeg");
    const size = jpegSize(decodeBase64(image.data));
    assert(size !== null, "the screenshot decodes as JPEG");
    assert(
      size.width > 0 && size.width <= 1568 && size.height > 0 && size.height <= 1568,
      JSON.stringify(size),
    );

    const created = await client.callTool({ name: "tabs_create_mcp", arguments: {} });
    assert(!created.isError, JSON.stringify(created));
    const tabs = (created.structuredContent as { tabs: { tabId: number }[] }).tabs;
    assertEquals(tabs.length, 2);
  } finally {
    await client.close().catch(() => {});
    assertEquals(await browser.stop(), 0);
    // Launch removes what it created and leaves no browser behind.
    const profileGone = await Deno.stat(browser.ready.user_data_dir).then(() => false, () => true);
    assert(profileGone, "the temporary profile is removed");
    const strays = [`${testEnv.home}/config/chromium`, `${testEnv.home}/cache/chromium`];
    for (const stray of strays) {
      assert(await Deno.stat(stray).then(() => false, () => true), `nothing left in ${stray}`);
    }
    const alive = await new Deno.Command("kill", { args: ["-0", String(browser.ready.pid)] })
      .output();
    assert(!alive.success, "Chromium has exited");
    await fixtures.close();
    await testEnv.dispose();
  }
});

Deno.test("with only HOME set (no XDG variables) launch and a client still meet", async () => {
  const testEnv = await makeTestEnv();
  // A desktop session often sets none of them; the MCP client filters them out anyway.
  const env = Object.fromEntries(
    Object.entries(testEnv.env).filter(([key]) => !key.startsWith("XDG_")),
  );
  const bare = await withEnv(testEnv, env);
  const fixtures = serveFixtures();
  const browser = await launchBrowser(bare);
  const { command, args } = executable(bare, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "bare-env-test", version: "1.0.0" });
  try {
    await client.connect(new StdioClientTransport({ command, args, env, stderr: "pipe" }));
    const context = await client.callTool({
      name: "tabs_context_mcp",
      arguments: { createIfEmpty: true },
    });
    assert(!context.isError, JSON.stringify(context.content));
    const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    const text = await client.callTool({
      name: "navigate",
      arguments: { url: fixtures.url("/"), tabId },
    });
    assertMatch((text.content as TextBlock[])[0].text, /Ghostlight fixture home/);
  } finally {
    await client.close().catch(() => {});
    assertEquals(await browser.stop(), 0);
    await fixtures.close();
    await testEnv.dispose();
  }
});
