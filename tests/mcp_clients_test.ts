/**
 * Real MCP clients end to end, through the connector, the service and headless Chromium: the
 * 1.x SDK (`2025-11-25`) and the 2.x client with version negotiation `auto` and pinned to
 * `2026-07-28`. Each lists tools, creates a tab, navigates and reads text. Then two connectors
 * use the same JSON-RPC ids at once, and concurrent `2026-07-28` requests with different
 * metadata are checked for cross-stamping.
 */

import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { executable, makeTestEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { envelope, serveSlowPages, startConnector, stopService, toolCall } from "./mcp_support.ts";

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

type Caller = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

function firstText(result: ToolResult): string {
  return result.content.find((block) => block.type === "text")?.text ?? "";
}

async function ok(call: Caller, name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  assert(!result.isError, `${name} failed: ${JSON.stringify(result.content).slice(0, 1500)}`);
  return result;
}

/** List tools, create a tab, navigate, read text — the acceptance path for one client. */
async function drive(
  call: Caller,
  listed: { name: string; inputSchema: { properties?: Record<string, unknown> } }[],
  url: string,
  modern: boolean,
): Promise<void> {
  const names = listed.map((tool) => tool.name);
  for (const name of ["tabs_context_mcp", "tabs_create_mcp", "navigate", "get_page_text"]) {
    assert(names.includes(name), `${name} is listed`);
  }
  const navigateSchema = listed.find((tool) => tool.name === "navigate")!.inputSchema;
  assertEquals("workspaceId" in (navigateSchema.properties ?? {}), modern);
  const created = await ok(call, "tabs_create_mcp", {});
  const structured = created.structuredContent as {
    tabs: { tabId: number }[];
    workspaceId?: string;
  };
  const tabId = structured.tabs.at(-1)!.tabId;
  const workspace = modern ? { workspaceId: structured.workspaceId } : {};
  if (modern) assertMatch(String(structured.workspaceId), /^ws_/);
  else assertEquals(structured.workspaceId, undefined);
  const navigated = await ok(call, "navigate", { url, tabId, ...workspace });
  assertMatch(firstText(navigated), /Ghostlight fixture home/);
  const text = await ok(call, "get_page_text", { tabId, ...workspace });
  assertMatch(firstText(text), /fog bell was tested on Tuesday/);
  // update_plan is kept with the workspace in both revisions: implicit in one, named in the other.
  const plan = await ok(call, "update_plan", {
    domains: ["127.0.0.1"],
    approach: ["Read the keeper's note"],
    ...workspace,
  });
  assertEquals((plan.structuredContent as { kept?: boolean }).kept, true, "the plan is kept");
}

Deno.test("real clients of both revisions drive headless Chromium", async (t) => {
  const testEnv = await makeTestEnv("mcl");
  const fixtures = serveFixtures();
  const browser = await launchBrowser(testEnv);
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const url = fixtures.url("/index.html");
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  try {
    await t.step("R01 @modelcontextprotocol/sdk 1.x speaks 2025-11-25", async () => {
      const client = new Client1({ name: "sdk-1x", version: "1.0.0" });
      await client.connect(new Stdio1({ command, args, env: testEnv.env, stderr: "pipe" }));
      try {
        const { tools } = await client.listTools();
        await drive(
          async (name, args) => await client.callTool({ name, arguments: args }) as ToolResult,
          tools as never,
          url,
          false,
        );
      } finally {
        await client.close();
      }
    });

    for (
      const [id, mode] of [
        ["R02", "auto"],
        ["R03", { pin: "2026-07-28" }],
      ] as const
    ) {
      await t.step(
        `${id} @modelcontextprotocol/client 2.x, negotiation ${JSON.stringify(mode)}`,
        async () => {
          const client = new Client2({ name: "client-2x", version: "2.0.0" }, {
            versionNegotiation: { mode },
          });
          const logBefore = await Deno.readTextFile(paths.logFile);
          const workspacesBefore = (await fetchStatus(paths.controlSocket)).workspaces;
          // connect() probes with server/discover on a sibling process it then kills.
          await client.connect(new Stdio2({ command, args, env: testEnv.env, stderr: "pipe" }));
          try {
            assertEquals(client.getNegotiatedProtocolVersion(), "2026-07-28");
            assertEquals((await fetchStatus(paths.controlSocket)).workspaces, workspacesBefore);
            const logged = (await Deno.readTextFile(paths.logFile)).slice(logBefore.length);
            assertEquals(logged.split("\n").filter((line) => / (warn|error) /.test(line)), []);
            const { tools } = await client.listTools();
            await drive(
              async (name, args) => await client.callTool({ name, arguments: args }) as ToolResult,
              tools as never,
              url,
              true,
            );
            // A listen stream: acknowledged with the honoured subset, closed by the client.
            const stream = await client.listen({
              toolsListChanged: true,
              promptsListChanged: true,
            });
            assertEquals(stream.honoredFilter, { toolsListChanged: true });
            await stream.close();
            assertEquals(await stream.closed, "local");
          } finally {
            await client.close();
          }
        },
      );
    }

    await t.step(
      "R04 two connectors using the same ids never see each other's results",
      async () => {
        const one = startConnector(testEnv);
        const two = startConnector(testEnv);
        try {
          const init = (name: string) =>
            `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":` +
            `"2025-11-25","capabilities":{},"clientInfo":{"name":"${name}","version":"1"}}}`;
          await Promise.all([one.send(init("one")), two.send(init("two"))]);
          await Promise.all([one.nextJson(30_000), two.nextJson(30_000)]);
          for (const mcp of [one, two]) {
            await mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
          }
          const call = (id: number, name: string, args: Record<string, unknown>) =>
            toolCall(id, name, args);
          await Promise.all([
            one.send(call(2, "tabs_create_mcp", {})),
            two.send(call(2, "tabs_create_mcp", {})),
          ]);
          const [created1, created2] = await Promise.all([one.nextJson(), two.nextJson()]);
          const tab = (message: Record<string, unknown>) =>
            ((message.result as ToolResult).structuredContent as { tabs: { tabId: number }[] })
              .tabs.at(-1)!.tabId;
          const tab1 = tab(created1);
          const tab2 = tab(created2);
          assert(tab1 !== tab2, "each connector has its own tab");
          // Same id 3 on both, different pages: each must get its own page back.
          await Promise.all([
            one.send(call(3, "navigate", { url: `${url}?who=one`, tabId: tab1 })),
            two.send(call(3, "navigate", { url: `${url}?who=two`, tabId: tab2 })),
          ]);
          const [nav1, nav2] = await Promise.all([one.nextJson(), two.nextJson()]);
          assertMatch(firstText(nav1.result as ToolResult), /who=one/);
          assertMatch(firstText(nav2.result as ToolResult), /who=two/);
          // And one connector cannot reach the other's tab.
          await one.send(call(4, "get_page_text", { tabId: tab2 }));
          const denied = await one.nextJson();
          assert((denied.result as ToolResult).isError, JSON.stringify(denied));
        } finally {
          await one.close();
          await two.close();
        }
      },
    );

    await t.step(
      "R05 concurrent 2026-07-28 requests with different metadata never cross-stamp",
      async () => {
        const mcp = startConnector(testEnv, { GHOSTLIGHT_PROGRESS_INTERVAL_MS: "200" });
        const slow = serveSlowPages();
        try {
          const request = (id: string, name: string, args: Record<string, unknown>, who: string) =>
            toolCall(
              id,
              name,
              args,
              envelope({
                "io.modelcontextprotocol/clientInfo": { name: who, version: "1" },
                progressToken: `token-${who}`,
              }),
            );
          await Promise.all([
            mcp.send(request("a1", "tabs_create_mcp", {}, "alpha")),
            mcp.send(request("b1", "tabs_create_mcp", {}, "beta")),
          ]);
          const made: Record<string, { tabId: number; workspaceId: string }> = {};
          while (Object.keys(made).length < 2) {
            const message = await mcp.nextJson(30_000);
            if (message.method === "notifications/progress") continue;
            const structured = (message.result as ToolResult).structuredContent as {
              tabs: { tabId: number }[];
              workspaceId: string;
            };
            made[message.id as string] = {
              tabId: structured.tabs.at(-1)!.tabId,
              workspaceId: structured.workspaceId,
            };
          }
          assert(made.a1.workspaceId !== made.b1.workspaceId, "two requests, two workspaces");
          // Two slow calls at once, each with its own token and client: alpha's page takes
          // 1.2 s, beta's 2.4 s, so both report progress and alpha finishes first.
          await Promise.all([
            mcp.send(
              request("a2", "navigate", { url: slow.url("alpha", 1200), ...made.a1 }, "alpha"),
            ),
            mcp.send(
              request("b2", "navigate", { url: slow.url("beta", 2400), ...made.b1 }, "beta"),
            ),
          ]);
          const answered: string[] = [];
          const ticks: Record<string, number[]> = { "token-alpha": [], "token-beta": [] };
          while (answered.length < 2) {
            const message = await mcp.nextJson(30_000);
            if (message.method === "notifications/progress") {
              const params = message.params as { progressToken: string; progress: number };
              assert(params.progressToken in ticks, params.progressToken);
              const owner = params.progressToken === "token-alpha" ? "a2" : "b2";
              assert(!answered.includes(owner), "no progress after the answer");
              ticks[params.progressToken].push(params.progress);
              continue;
            }
            const id = message.id as string;
            answered.push(id);
            const result = message.result as ToolResult & { _meta: unknown; resultType: string };
            assertEquals(result.resultType, "complete");
            assertMatch(firstText(result), id === "a2" ? /slow alpha/ : /slow beta/);
            assertEquals(
              (result._meta as Record<string, { name: string }>)[
                "io.modelcontextprotocol/serverInfo"
              ]
                .name,
              `ghostlight-${testEnv.instance}`,
            );
          }
          assertEquals(answered, ["a2", "b2"]);
          for (const [token, seen] of Object.entries(ticks)) {
            assert(seen.length >= 1, `progress for ${token}`);
            assertEquals(seen, seen.map((_, index) => index + 1));
          }
          // Another workspace's tab is denied even with a valid workspaceId of one's own.
          await mcp.send(request(
            "c1",
            "get_page_text",
            { tabId: made.b1.tabId, workspaceId: made.a1.workspaceId },
            "alpha",
          ));
          let denied = await mcp.nextJson();
          while (denied.method === "notifications/progress") denied = await mcp.nextJson();
          assert((denied.result as ToolResult).isError, JSON.stringify(denied));
        } finally {
          await mcp.close();
          await slow.close();
        }
      },
    );
  } finally {
    await browser.stop();
    await stopService(testEnv);
    await fixtures.close();
    await testEnv.dispose();
  }
});
