/**
 * Transcripts of revision `2025-11-25`: exact lines into the real connector, exact lines out.
 * The connector starts the service on demand; no browser is needed for these lines (tool calls
 * that reach the browser are in mcp_calls_test.ts). Step names are the checklist ids of
 * docs/mcp.md.
 */

import { INSTRUCTIONS } from "../mcp_connector/instructions.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { expectedServer, startConnector, stopService } from "./mcp_support.ts";

const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",' +
  '"capabilities":{},"clientInfo":{"name":"transcript","version":"1.0.0"}}}';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

Deno.test("2025-11-25 transcripts", async (t) => {
  const testEnv = await makeTestEnv("m25");
  testEnv.env.GHOSTLIGHT_IDLE_EXIT_MS = "3000";
  const { info, descriptors } = expectedServer(testEnv);
  const initResult = (id: number | string) => ({
    jsonrpc: "2.0",
    id,
    result: {
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: info.name, title: "Ghostlight", version: info.version },
      instructions: INSTRUCTIONS,
    },
  });
  const toolList = descriptors.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  }));
  const error = (id: number | string | null, code: number, message: string) => ({
    jsonrpc: "2.0",
    id,
    error: { code, message },
  });
  const mcp = startConnector(testEnv);
  try {
    await t.step("L01 initialize binds 2025-11-25 and answers with server info", async () => {
      await mcp.send(INIT);
      await mcp.expect(initResult(1), 30_000);
    });

    await t.step("L02 tools are refused before notifications/initialized", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
      await mcp.expect(error(2, -32600, "Send notifications/initialized before using tools"));
      await mcp.send(
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tabs_context_mcp"}}',
      );
      await mcp.expect(error(3, -32600, "Send notifications/initialized before using tools"));
    });

    await t.step("L03 ping answers an empty result, before and after initialized", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":"p1","method":"ping"}');
      await mcp.expect({ jsonrpc: "2.0", id: "p1", result: {} });
      await mcp.send(INITIALIZED);
      await mcp.send('{"jsonrpc":"2.0","id":"p2","method":"ping","params":{}}');
      await mcp.expect({ jsonrpc: "2.0", id: "p2", result: {} });
    });

    await t.step("L04 tools/list: the contract's tools in contract order, stable", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":4,"method":"tools/list"}');
      const first = await mcp.next();
      assertEquals(first, JSON.stringify({ jsonrpc: "2.0", id: 4, result: { tools: toolList } }));
      await mcp.send('{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}');
      assertEquals(await mcp.next(), first.replace('"id":4', '"id":5'));
    });

    await t.step("L05 a cursor the server never issued is invalid params", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"x"}}');
      await mcp.expect(error(6, -32602, "Invalid cursor: the tool list has one page"));
    });

    await t.step("L06 a second initialize is an invalid request", async () => {
      await mcp.send(INIT.replace('"id":1', '"id":7'));
      await mcp.expect(error(7, -32600, "initialize was already received"));
    });

    await t.step("L07 unknown methods, and logging/setLevel (not advertised): -32601", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":8,"method":"resources/list"}');
      await mcp.expect(error(8, -32601, "Method not found: resources/list"));
      await mcp.send(
        '{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}',
      );
      await mcp.expect(error(9, -32601, "Method not found: logging/setLevel"));
    });

    await t.step("L08 tools/call with an unknown tool or malformed params: -32602", async () => {
      await mcp.send(
        '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"no_such_tool"}}',
      );
      await mcp.expect(error(10, -32602, "Unknown tool: no_such_tool"));
      await mcp.send('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{}}');
      await mcp.expect(
        error(
          11,
          -32602,
          'tools/call needs a tool name, e.g. {"name":"tabs_context_mcp","arguments":{}}',
        ),
      );
      await mcp.send(
        '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"navigate",' +
          '"arguments":[1]}}',
      );
      await mcp.expect(error(12, -32602, "tools/call arguments must be an object"));
    });

    await t.step("L09 a 2026-07-28 request mixed into a 2025 connection is refused", async () => {
      await mcp.send(
        '{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{' +
          '"io.modelcontextprotocol/protocolVersion":"2026-07-28",' +
          '"io.modelcontextprotocol/clientCapabilities":{}}}}',
      );
      await mcp.expect(
        error(
          13,
          -32600,
          "This connection was initialized with 2025-11-25; 2026-07-28 requests cannot be " +
            "mixed into it. Start a new connection for them.",
        ),
      );
      await mcp.send('{"jsonrpc":"2.0","id":14,"method":"server/discover"}');
      await mcp.expect(error(14, -32601, "Method not found: server/discover"));
    });

    await t.step("L10 notifications get no answer, even unknown or stray ones", async () => {
      await mcp.send(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{' +
          '"requestId":999}}',
      );
      await mcp.send('{"jsonrpc":"2.0","method":"notifications/whatever"}');
      await mcp.send('{"jsonrpc":"2.0","id":15,"result":{}}');
      await mcp.probe('{"jsonrpc":"2.0","id":16,"method":"ping"}');
    });

    await t.step("L11 a clean EOF ends the connector with code 0", async () => {
      const { code, rest } = await mcp.close();
      assertEquals(rest, []);
      assertEquals(code, 0);
    });

    await t.step("L12 an older or unknown requested version gets 2025-11-25", async () => {
      for (const requested of ["2024-11-05", "2099-01-01"]) {
        const other = startConnector(testEnv);
        await other.send(INIT.replace("2025-11-25", requested));
        await other.expect(initResult(1), 30_000);
        assertEquals((await other.close()).code, 0);
      }
    });

    await t.step(
      "L13 ping before initialize and an invalid initialize bind nothing; a valid one then does",
      async () => {
        const other = startConnector(testEnv);
        await other.send('{"jsonrpc":"2.0","id":"p0","method":"ping"}');
        await other.expect({ jsonrpc: "2.0", id: "p0", result: {} });
        await other.send('{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}');
        await other.expect(
          error(
            "a",
            -32602,
            "initialize needs protocolVersion (string), capabilities (object) and clientInfo " +
              '{name, version}, e.g. {"protocolVersion":"2025-11-25","capabilities":{},' +
              '"clientInfo":{"name":"my-client","version":"1.0.0"}}',
          ),
        );
        await other.send('{"jsonrpc":"2.0","id":"b","method":"tools/list"}');
        await other.expect(
          error(
            "b",
            -32600,
            'Send initialize first (2025-11-25), or carry params._meta["io.modelcontextprotocol/' +
              'protocolVersion"]: "2026-07-28" with "io.modelcontextprotocol/clientCapabilities" ' +
              "on every request (2026-07-28)",
          ),
        );
        await other.send(INIT.replace('"id":1', '"id":"c"'));
        await other.expect(initResult("c"), 30_000);
        assertEquals((await other.close()).code, 0);
      },
    );

    await t.step(
      "L14 a request id reused back to back is refused; the first call ends cleanly",
      async () => {
        const other = startConnector(testEnv, { GHOSTLIGHT_PROGRESS_INTERVAL_MS: "100" });
        await other.send(INIT);
        await other.expect(initResult(1), 30_000);
        await other.send(INITIALIZED);
        // Both lines arrive together, while the first call still waits for its workspace.
        const twice = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":' +
          '"tabs_context_mcp","arguments":{},"_meta":{"progressToken":"t5"}}}\n';
        await other.sendRaw(new TextEncoder().encode(twice + twice));
        await other.expect(error(5, -32600, "Request id 5 is already in use"));
        let answer = await other.nextJson(30_000);
        while (answer.method === "notifications/progress") answer = await other.nextJson();
        assertEquals(answer.id, 5);
        assert("result" in answer, JSON.stringify(answer));
        // The one call that ran has ended: its id is free again at once. (That its progress
        // stops with its answer is shown in fault_test.ts, on calls that outlast the interval.)
        await other.send(twice.trim());
        answer = await other.nextJson(30_000);
        while (answer.method === "notifications/progress") answer = await other.nextJson();
        assertEquals(answer.id, 5);
        assert("result" in answer, JSON.stringify(answer));
        await other.probe('{"jsonrpc":"2.0","id":"p","method":"ping"}');
        assertEquals(await other.close(), { code: 0, rest: [] });
      },
    );

    await t.step(
      "L15 a cancellation that arrives before the call is under way still cancels it",
      async () => {
        const other = startConnector(testEnv);
        await other.send(INIT);
        await other.expect(initResult(1), 30_000);
        await other.send(INITIALIZED);
        // The first call of a connection waits for its workspace; the cancellation comes first.
        await other.sendRaw(new TextEncoder().encode(
          '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"tabs_context_mcp",' +
            '"arguments":{}}}\n{"jsonrpc":"2.0","method":"notifications/cancelled",' +
            '"params":{"requestId":6}}\n',
        ));
        // Call 7 goes the way call 6 would have, through the same workspace, after it: had 6
        // run, its answer would come first. On EOF the connector lets what it still owes out
        // before it exits, so nothing comes later either.
        const next = await other.probe(
          '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tabs_context_mcp",' +
            '"arguments":{}}}',
        );
        assert("result" in next, JSON.stringify(next));
        assertEquals(await other.close(), { code: 0, rest: [] });
      },
    );
  } finally {
    await mcp.close();
    await stopService(testEnv);
    await testEnv.dispose();
  }
});
