/**
 * Transcripts of revision `2026-07-28`, of the JSON-RPC core both revisions share, and of the
 * switch that binds a process to one revision: exact lines in, exact lines out, through the
 * real connector (which starts the real service on demand). Step names are the checklist ids
 * of docs/mcp.md.
 */

import { resolveInstancePaths } from "../shared/instance.ts";
import { INSTRUCTIONS } from "../mcp_connector/instructions.ts";
import { MAX_LINE_BYTES } from "../mcp_connector/jsonrpc.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { fetchStatus } from "../service/control/mod.ts";
import {
  envelope,
  expectedServer,
  startConnector,
  stopService,
  toolCall,
  waitFor,
} from "./mcp_support.ts";

const ENVELOPE = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' +
  '"io.modelcontextprotocol/clientCapabilities":{}}';

/** A modern request line: method, id and params (without `_meta`, which is added). */
function modern(id: number | string, method: string, params = ""): string {
  const body = params === "" ? ENVELOPE : `${params},${ENVELOPE}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":{${body}}}`;
}

Deno.test("2026-07-28, core and switch transcripts", async (t) => {
  const testEnv = await makeTestEnv("m26");
  testEnv.env.GHOSTLIGHT_IDLE_EXIT_MS = "3000";
  testEnv.env.GHOSTLIGHT_WORKSPACE_GRACE_MS = "500";
  const { info, descriptors } = expectedServer(testEnv);
  const serverMeta = { "io.modelcontextprotocol/serverInfo": info };
  const error = (id: number | string | null, code: number, message: string, data?: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });
  const result = (id: number | string, body: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", ...body, _meta: { ...serverMeta } },
  });
  const discover = (id: number | string, supportedVersions: string[]) =>
    result(id, {
      supportedVersions,
      capabilities: { tools: { listChanged: true } },
      instructions: INSTRUCTIONS,
      ttlMs: 3_600_000,
      cacheScope: "public",
    });
  const workspaceProperty = { type: "string" };
  const toolList = descriptors.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.createsContext
      ? tool.description + " Without a workspaceId it starts a new workspace and returns its " +
        "workspaceId: pass it on every later browser call. A workspace lasts while this " +
        "connection is open and about a minute after; an expired one is reported unknown: " +
        "start a new one."
      : tool.description,
    inputSchema: tool.acceptsWorkspace
      ? {
        ...tool.inputSchema,
        properties: {
          ...(tool.inputSchema.properties as Record<string, unknown> ?? {}),
          workspaceId: workspaceProperty,
        },
      }
      : tool.inputSchema,
    annotations: tool.annotations,
  }));
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);

  try {
    await t.step(
      "S01 a discovery probe is answered unbound and leaves nothing behind",
      async () => {
        const probe = startConnector(testEnv);
        await probe.send(modern("server-discover-probe-1", "server/discover"));
        await probe.expect(discover("server-discover-probe-1", ["2026-07-28", "2025-11-25"]));
        probe.child.kill("SIGKILL");
        await probe.close();
        // No service was started: no socket, no log file, so no workspace and no error in it.
        for (const path of [paths.bridgeSocket, paths.logFile]) {
          const exists = await Deno.stat(path).then(() => true, () => false);
          assert(!exists, `${path} should not exist after a probe`);
        }
      },
    );

    await t.step("S02 server/discover does not bind: initialize still works after it", async () => {
      const other = startConnector(testEnv);
      await other.send(modern(1, "server/discover"));
      await other.expect(discover(1, ["2026-07-28", "2025-11-25"]));
      await other.send(
        '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":' +
          '"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      );
      const init = await other.nextJson(30_000);
      assertEquals((init.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
      await other.close();
    });

    await t.step("S03 discover without the envelope or with a bad version", async () => {
      const other = startConnector(testEnv);
      await other.send('{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}');
      await other.expect(
        error(
          1,
          -32602,
          'Every request needs params._meta["io.modelcontextprotocol/protocolVersion"] ' +
            '(a string such as "2026-07-28")',
        ),
      );
      await other.send(modern(2, "server/discover").replace('"2026-07-28"', '"1900-01-01"'));
      await other.expect(
        error(2, -32022, "Unsupported protocol version", {
          supported: ["2026-07-28", "2025-11-25"],
          requested: "1900-01-01",
        }),
      );
      await other.close();
    });

    const mcp = startConnector(testEnv);
    await t.step("S04 the first enveloped request binds 2026-07-28: tools/list", async () => {
      await mcp.send(modern(1, "tools/list"));
      const line = await mcp.next(30_000);
      assertEquals(
        line,
        JSON.stringify(result(1, { tools: toolList, ttlMs: 300_000, cacheScope: "public" })),
      );
      // An agent reads the whole list every session: it stays under the budget in this revision
      // too, where every tool also takes a workspaceId.
      const size = JSON.stringify({ tools: JSON.parse(line).result.tools }).length;
      assert(size < 24_000, `tools/list takes ${size} characters`);
    });

    await t.step(
      "S05 every request is validated on its own: missing fields are -32602",
      async () => {
        await mcp.send('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}');
        await mcp.expect(
          error(
            2,
            -32602,
            'Every request needs params._meta["io.modelcontextprotocol/protocolVersion"] ' +
              '(a string such as "2026-07-28")',
          ),
        );
        await mcp.send(
          '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{' +
            '"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}',
        );
        await mcp.expect(
          error(
            3,
            -32602,
            'Every request needs params._meta["io.modelcontextprotocol/clientCapabilities"] ' +
              "(an object; {} declares none)",
          ),
        );
      },
    );

    await t.step("S06 an unsupported version: -32022 with supported and requested", async () => {
      await mcp.send(modern(4, "tools/list").replace('"2026-07-28"', '"2027-01-01"'));
      await mcp.expect(
        error(4, -32022, "Unsupported protocol version", {
          supported: ["2026-07-28"],
          requested: "2027-01-01",
        }),
      );
    });

    await t.step("S07 removed and unknown methods answer -32601", async () => {
      for (const method of ["ping", "logging/setLevel", "resources/subscribe", "prompts/list"]) {
        await mcp.send(modern(method, method));
        await mcp.expect(
          error(method, -32601, `Method not found: ${method} (not part of 2026-07-28)`),
        );
      }
    });

    await t.step("S08 initialize after binding 2026-07-28: -32022 naming the version", async () => {
      await mcp.send(
        '{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":' +
          '"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      );
      await mcp.expect(
        error(5, -32022, "Unsupported protocol version", {
          supported: ["2026-07-28"],
          requested: "2025-11-25",
        }),
      );
    });

    await t.step("S09 server/discover after binding lists what this process serves", async () => {
      await mcp.send(modern(6, "server/discover"));
      await mcp.expect(discover(6, ["2026-07-28"]));
    });

    await t.step(
      "S10 subscriptions/listen: acknowledged with its id and the honoured subset",
      async () => {
        await mcp.send(
          modern(
            7,
            "subscriptions/listen",
            '"notifications":{"toolsListChanged":true,' +
              '"promptsListChanged":true}',
          ),
        );
        await mcp.expect({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: {
            _meta: { "io.modelcontextprotocol/subscriptionId": 7 },
            notifications: { toolsListChanged: true },
          },
        });
        await mcp.send(modern("s2", "subscriptions/listen", '"notifications":{}'));
        await mcp.expect({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: { "io.modelcontextprotocol/subscriptionId": "s2" }, notifications: {} },
        });
        await mcp.send(modern(8, "subscriptions/listen"));
        await mcp.expect(
          error(
            8,
            -32602,
            'subscriptions/listen needs params.notifications, e.g. {"toolsListChanged":true}',
          ),
        );
        // Streams are bounded: 7 and s2 are open, 14 more fit, the next is refused.
        for (let i = 0; i < 14; i++) {
          await mcp.send(modern(`x${i}`, "subscriptions/listen", '"notifications":{}'));
          await mcp.next();
        }
        await mcp.send(modern("x14", "subscriptions/listen", '"notifications":{}'));
        await mcp.expect(
          error(
            "x14",
            -32600,
            "At most 16 listen streams may be open at once; cancel one first",
          ),
        );
        for (let i = 0; i < 14; i++) {
          await mcp.send(
            `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x${i}"}}`,
          );
        }
        // Ending a stream from the client side: nothing more is sent for it.
        await mcp.send(
          '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s2"}}',
        );
        await mcp.probe(modern("after-s2", "server/discover"));
      },
    );

    await t.step(
      "S11 tools/call: unknown tool -32602; malformed workspaceId corrected",
      async () => {
        await mcp.send(modern(9, "tools/call", '"name":"no_such_tool"'));
        await mcp.expect(error(9, -32602, "Unknown tool: no_such_tool"));
        await mcp.send(
          modern(
            10,
            "tools/call",
            '"name":"navigate","arguments":{"url":"about:blank",' +
              '"tabId":1,"workspaceId":7}',
          ),
        );
        await mcp.expect(result(10, {
          content: [{
            type: "text",
            text: "workspaceId must be the string that tabs_context_mcp or tabs_create_mcp " +
              'returned.\nCall navigate again with {"workspaceId":"ws_…", …}, or call ' +
              "tabs_context_mcp without one to start a new workspace.",
          }],
          isError: true,
        }));
      },
    );

    await t.step("S12 a stateful tool without workspaceId gets a corrective error", async () => {
      await mcp.send(
        modern(11, "tools/call", '"name":"navigate","arguments":{"url":"about:blank","tabId":1}'),
      );
      await mcp.expect(result(11, {
        content: [{
          type: "text",
          text: "navigate needs a workspaceId.\nCall tabs_context_mcp (or tabs_create_mcp) " +
            "first and pass the workspaceId it returns.",
        }],
        isError: true,
      }));
      await mcp.send(
        modern(
          12,
          "tools/call",
          '"name":"navigate","arguments":{"url":"about:blank",' +
            '"tabId":1,"workspaceId":"ws_forged"}',
        ),
      );
      await mcp.expect(result(12, {
        content: [{
          type: "text",
          text: "That workspaceId is unknown or was released.\nCall tabs_context_mcp without " +
            "a workspaceId to start a new workspace.",
        }],
        isError: true,
      }));
    });

    await t.step("S13 a context-creating tool mints and returns workspaceId", async () => {
      await mcp.send(modern(13, "tools/call", '"name":"tabs_context_mcp","arguments":{}'));
      const line = await mcp.next();
      const id = line.match(/"workspaceId":"(ws_[A-Za-z0-9_-]+)"/)?.[1];
      assert(id, line);
      const parsed = JSON.parse(line);
      assertEquals(parsed.result.structuredContent.workspaceId, id);
      assertEquals(parsed.result.resultType, "complete");
      assertEquals(parsed.result._meta, serverMeta);
      assertMatch(
        parsed.result.content.at(-1).text,
        /^workspaceId: ws_\S+ — pass it as workspaceId on every later call/,
      );
      // The same workspace is named explicitly on the next call; nothing is remembered.
      await mcp.send(
        modern(14, "tools/call", `"name":"tabs_context_mcp","arguments":{"workspaceId":"${id}"}`),
      );
      const again = JSON.parse(await mcp.next());
      assertEquals(again.result.structuredContent.workspaceId, id);
    });

    await t.step("S15 one connection holds at most 8 workspaces; the 9th is refused", async () => {
      // S13 minted one; seven more fit, the ninth is refused with how to carry on.
      const minted: string[] = [];
      for (let n = 0; n < 8; n++) {
        await mcp.send(modern(150 + n, "tools/call", '"name":"tabs_context_mcp","arguments":{}'));
        const answer = JSON.parse(await mcp.next());
        if (n < 7) {
          assert(!answer.result.isError, JSON.stringify(answer));
          minted.push(answer.result.structuredContent.workspaceId);
          continue;
        }
        assertEquals(answer.result.isError, true);
        assertEquals(
          answer.result.content[0].text,
          "This connection already holds 8 browser workspaces.\nPass the workspaceId an " +
            "earlier tabs_context_mcp or tabs_create_mcp call returned instead of starting " +
            "another workspace.",
        );
      }
      // Workspaces it already holds still work.
      await mcp.send(
        modern(
          160,
          "tools/call",
          `"name":"tabs_context_mcp","arguments":{"workspaceId":"${minted[0]}"}`,
        ),
      );
      const held = JSON.parse(await mcp.next());
      assertEquals(held.result.structuredContent.workspaceId, minted[0]);
    });

    await t.step(
      "S16 a workspace lives while any connection that named it does, past another's grace",
      async () => {
        const minter = startConnector(testEnv);
        await minter.send(modern(1, "tools/call", '"name":"tabs_context_mcp","arguments":{}'));
        const id = JSON.parse(await minter.next(30_000)).result.structuredContent.workspaceId;
        const user = startConnector(testEnv);
        const name = (n: number) =>
          modern(n, "tools/call", `"name":"tabs_context_mcp","arguments":{"workspaceId":"${id}"}`);
        await user.send(name(1));
        assertEquals(JSON.parse(await user.next(30_000)).result.structuredContent.workspaceId, id);
        // The minting connection ends; its grace period (500 ms here) passes. The proof that it
        // has: a witness connection ends after it, and its workspace is released after the
        // same grace period, on the same clock.
        const status = () => fetchStatus(paths.controlSocket);
        const connected = (await status()).connectors.length;
        assertEquals((await minter.close()).code, 0);
        await waitFor(
          async () => (await status()).connectors.length === connected - 1,
          "the service to see the minting connection end",
        );
        const witness = startConnector(testEnv);
        await witness.send(modern(1, "tools/call", '"name":"tabs_context_mcp","arguments":{}'));
        assert(!JSON.parse(await witness.next(30_000)).result.isError, "the witness's workspace");
        const withWitness = (await status()).workspaces;
        assertEquals((await witness.close()).code, 0);
        await waitFor(
          async () => (await status()).workspaces === withWitness - 1,
          "the witness's grace period to end",
        );
        await user.send(name(2));
        const still = JSON.parse(await user.next());
        assert(!still.result.isError, JSON.stringify(still));
        assertEquals(still.result.structuredContent.workspaceId, id);
        assertEquals((await user.close()).code, 0);
      },
    );

    await t.step(
      "S17 a cancellation that arrives while the call still waits for the catalog cancels it",
      async () => {
        const other = startConnector(testEnv);
        // A fresh connection fetches the catalog before its first call; the cancellation is first.
        await other.sendRaw(new TextEncoder().encode(
          modern(1, "tools/call", '"name":"tabs_context_mcp","arguments":{}') + "\n" +
            '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n',
        ));
        // On EOF the connector lets what it still owes out before it exits: call 1 owes nothing.
        await other.probe(modern(2, "tools/list"));
        assertEquals(await other.close(), { code: 0, rest: [] });
      },
    );

    await t.step(
      "S20 a call's com.ghostlight/restriction reaches the service, which refuses what it " +
        "does not allow; a malformed one is -32602",
      async () => {
        const restricted = startConnector(testEnv);
        const restrict = (restriction: unknown) =>
          envelope({ "com.ghostlight/restriction": restriction });
        await restricted.send(
          toolCall(1, "tabs_context_mcp", {}, restrict({ capabilities: ["action"] })),
        );
        const refused = JSON.parse(await restricted.next());
        assertEquals(refused.result.isError, true);
        assertEquals(
          refused.result.content[0].text,
          "Denied: tabs_context_mcp needs the read capability, which is refused (the call's " +
            '_meta "com.ghostlight/restriction" allows only action).\nNothing was done. Only ' +
            "the person can change this: do it with what is allowed here, or ask them.",
        );
        await restricted.send(toolCall(2, "tabs_context_mcp", {}, restrict({ hosts: ["*"] })));
        const allowed = JSON.parse(await restricted.next());
        assert(!allowed.result.isError, JSON.stringify(allowed));
        await restricted.send(toolCall(3, "tabs_context_mcp", {}, restrict(["read"])));
        const malformed = JSON.parse(await restricted.next());
        assertEquals(malformed.error.code, -32602);
        assertMatch(malformed.error.message, /com\.ghostlight\/restriction/);
        // Lists the bridge cannot carry (a 17-character capability, nine of them) are -32602
        // too: passed on, the service took the message for a broken connector and closed it.
        const long = restrict({ capabilities: ["read", "x".repeat(17)] });
        await restricted.send(toolCall(4, "tabs_context_mcp", {}, long));
        const tooLong = await restricted.next();
        assertEquals(JSON.parse(tooLong).error?.code, -32602, tooLong);
        const many = restrict({ capabilities: Array(9).fill("read") });
        await restricted.send(toolCall(5, "tabs_context_mcp", {}, many));
        const tooMany = await restricted.next();
        assertEquals(JSON.parse(tooMany).error?.code, -32602, tooMany);
        await restricted.send(toolCall(6, "tabs_context_mcp", {}, restrict({ hosts: ["*"] })));
        const after = JSON.parse(await restricted.next());
        assert(!after.result.isError, JSON.stringify(after));
        assertEquals((await restricted.close()).code, 0);
      },
    );

    await t.step(
      "S14 a graceful end answers open listen streams and cancels them, then exits 0",
      async () => {
        const { code, rest } = await mcp.close();
        assertEquals(rest, [
          JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            result: {
              resultType: "complete",
              _meta: { "io.modelcontextprotocol/subscriptionId": 7, ...serverMeta },
            },
          }),
          JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: 7, reason: "The server is shutting down." },
          }),
        ]);
        assertEquals(code, 0);
      },
    );

    const core = startConnector(testEnv);
    await t.step("C01 parse error: -32700 with a null id", async () => {
      await core.send('{"jsonrpc":"2.0","id":1,"method":');
      await core.expect(error(null, -32700, "Parse error"));
    });

    await t.step("C02 batches are rejected with -32600", async () => {
      await core.send(`[${modern(1, "tools/list")}]`);
      await core.expect(
        error(null, -32600, "Batches are not supported; send one JSON-RPC message per line"),
      );
    });

    await t.step("C03 invalid requests: -32600, echoing a usable id", async () => {
      await core.send('{"id":1,"method":"tools/list"}');
      await core.expect(error(1, -32600, "Invalid Request"));
      await core.send('{"jsonrpc":"2.0","id":null,"method":"tools/list"}');
      await core.expect(error(null, -32600, "Invalid Request: id must be a string or an integer"));
      await core.send('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}');
      await core.expect(error(null, -32600, "Invalid Request: id must be a string or an integer"));
      await core.send('{"jsonrpc":"2.0","id":2,"method":7}');
      await core.expect(error(2, -32600, "Invalid Request: method must be a string"));
      await core.send('"hello"');
      await core.expect(error(null, -32600, "Invalid Request"));
    });

    await t.step("C04 params that are not an object: -32602", async () => {
      await core.send('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}');
      await core.expect(error(3, -32602, "Invalid params: params must be an object"));
    });

    await t.step("C05 an oversized line is refused and the stream resynchronises", async () => {
      const big = new TextEncoder().encode(`{"x":"${"a".repeat(MAX_LINE_BYTES + 10)}"}\n`);
      await core.sendRaw(big);
      const refusal = await core.nextJson();
      assertEquals(refusal.id, null);
      assertEquals((refusal.error as { code: number }).code, -32600);
      assertMatch(
        (refusal.error as { message: string }).message,
        new RegExp(`over the ${MAX_LINE_BYTES}-byte limit`),
      );
      const withId = `{"jsonrpc":"2.0","id":5,"params":{"x":"${"a".repeat(MAX_LINE_BYTES)}"}}\n`;
      await core.sendRaw(new TextEncoder().encode(withId));
      assertEquals((await core.nextJson()).id, 5, "an oversized request is answered by its id");
      await core.send(modern(4, "server/discover"));
      await core.expect(discover(4, ["2026-07-28", "2025-11-25"]));
    });

    await t.step("C06 string and integer ids are echoed exactly", async () => {
      await core.send(modern("id-ä-1", "server/discover"));
      assertEquals((await core.nextJson()).id, "id-ä-1");
      await core.send(modern(-42, "server/discover"));
      assertEquals((await core.nextJson()).id, -42);
      assertEquals((await core.close()).code, 0);
    });
  } finally {
    await stopService(testEnv);
    await testEnv.dispose();
  }
});
