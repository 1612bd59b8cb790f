/**
 * `deno task demo`: an isolated Ghostlight instance under a temporary HOME, headless Chromium
 * with the extension, a bundled page on 127.0.0.1, and a real MCP client doing the calls. Prints
 * the transcript and saves the screenshot to a file it names.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { decodeBase64 } from "../shared/base64.ts";
import { launchBrowser } from "../tests/support/browser.ts";
import { executable, makeTestEnv } from "../tests/support/env.ts";

type Block = { type: string; text?: string; data?: string; mimeType?: string };

const page = await Deno.readFile(new URL("./page.html", import.meta.url));
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
);
const pageUrl = `http://127.0.0.1:${server.addr.port}/tides`;
const testEnv = await makeTestEnv("demo");
const shotPath = `${Deno.cwd()}/ghostlight-demo-screenshot.jpg`;

function show(label: string, value: unknown): void {
  console.log(Deno.stdout.isTerminal() ? `\n\x1b[1m${label}\x1b[0m` : `\n${label}`);
  console.log(typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

let exitCode = 0;
console.log(`Ghostlight demo: instance '${testEnv.instance}' under ${testEnv.home}`);
const browser = await launchBrowser(testEnv);
show("browser launch --headless is ready", browser.ready);
const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
const client = new Client({ name: "ghostlight-demo", version: "1.0.0" });
try {
  await client.connect(
    new StdioClientTransport({ command, args, env: testEnv.env, stderr: "inherit" }),
  );
  show("initialize →", client.getServerVersion());
  const { tools } = await client.listTools();
  show("tools/list →", tools.map((tool: { name: string }) => tool.name).join(", "));

  const call = async (name: string, input: Record<string, unknown>) => {
    show(`tools/call ${name}`, input);
    const result = await client.callTool({ name, arguments: input });
    const blocks = result.content as Block[];
    for (const block of blocks) {
      if (block.type === "text") show("  →", block.text);
      else show("  →", `[${block.mimeType} image, ${block.data?.length} base64 characters]`);
    }
    if (result.isError) throw new Error(`${name} failed`);
    return { blocks, structured: result.structuredContent as Record<string, unknown> };
  };

  const context = await call("tabs_context_mcp", { createIfEmpty: true });
  const tabId = (context.structured.tabs as { tabId: number }[])[0].tabId;
  await call("navigate", { url: pageUrl, tabId });
  await call("get_page_text", { tabId });
  const shot = await call("computer", { action: "screenshot", tabId });
  const image = shot.blocks.find((block) => block.type === "image");
  await Deno.writeFile(shotPath, decodeBase64(image!.data!));
  show("screenshot saved to", shotPath);
} catch (error) {
  console.error(`demo failed: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await client.close().catch(() => {});
  await browser.stop();
  await server.shutdown();
  await testEnv.dispose();
}
Deno.exit(exitCode);
