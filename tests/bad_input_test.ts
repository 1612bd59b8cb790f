/**
 * The bad-input table: one end-to-end case per row, each through the real connector, service and
 * headless Chromium, each asserting a clear error and then that the same connection still serves
 * the next valid call.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { makeTestEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { startConnector, type Transcript } from "./mcp_support.ts";
import { MAX_LINE_BYTES } from "../mcp_connector/jsonrpc.ts";
import { fetchStatus } from "../service/control/mod.ts";
import { waitFor } from "./support/wait.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Answer = {
  id: unknown;
  result?: {
    isError?: boolean;
    content: { type: string; text?: string }[];
    structuredContent?: Record<string, unknown>;
  };
  error?: { code: number; message: string };
};

/** The text of a failed call: a tool error's text or a protocol error's message. */
function failure(answer: Answer): string {
  if (answer.error) return answer.error.message;
  assert(answer.result?.isError, `expected an error, got ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.result!.content.map((block) => block.text ?? "").join("\n");
}

type PropertySchema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  minLength?: number;
  minItems?: number;
  minProperties?: number;
  additionalProperties?: boolean | PropertySchema;
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
  required?: string[];
};

/** A plausible valid value for a JSON Schema property, so that only the fault under test is. */
function validValue(schema: PropertySchema): unknown {
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "number":
    case "integer":
      return Math.max(1, schema.minimum ?? 1);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => validValue(schema.items ?? {}));
    default: {
      const value: Record<string, unknown> = Object.fromEntries(
        (schema.required ?? []).map((name) => [name, validValue(schema.properties?.[name] ?? {})]),
      );
      // A map (form_fill's fields) that must hold entries gets them, of its entries' schema.
      const entry = typeof schema.additionalProperties === "object"
        ? schema.additionalProperties
        : {};
      for (let n = Object.keys(value).length; n < (schema.minProperties ?? 0); n++) {
        value[`entry${n}`] = validValue(entry);
      }
      return value;
    }
  }
}

/** A value of none of the JSON types a property allows. */
function wrongValue(schema: PropertySchema): unknown {
  const types = new Set([schema.type ?? []].flat());
  if (types.has("number")) types.add("integer");
  const candidates: [string, unknown][] = [
    ["string", 12345],
    ["integer", "not a number"],
    ["boolean", "yes"],
    ["array", { not: "an array" }],
    ["object", ["not", "an", "object"]],
  ];
  const typeOf = (value: unknown) =>
    Array.isArray(value) ? "array" : typeof value === "number" ? "integer" : typeof value;
  for (const [, value] of candidates) if (!types.has(typeOf(value))) return value;
  return null;
}

Deno.test("bad input, row by row: a clear error, and the next valid call is served", async (t) => {
  const testEnv = await makeTestEnv("bad");
  testEnv.env.GHOSTLIGHT_WORKSPACE_GRACE_MS = "300";
  const fixtures = serveFixtures();
  const browser = await launchBrowser(testEnv);
  const mcp = startConnector(testEnv);
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    await mcp.send(JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: { ...params, _meta: ENVELOPE },
    }));
    return JSON.parse(await mcp.next(60_000)) as Answer;
  };
  const call = (name: string, args: Record<string, unknown>, on: Transcript = mcp) =>
    on === mcp ? request("tools/call", { name, arguments: args }) : callOn(on, name, args);
  const callOn = async (on: Transcript, name: string, args: Record<string, unknown>) => {
    await on.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: ENVELOPE },
    }));
    return JSON.parse(await on.next(60_000)) as Answer;
  };
  try {
    const context = await call("tabs_context_mcp", { createIfEmpty: true });
    assert(!context.result?.isError, JSON.stringify(context));
    const workspaceId = context.result!.structuredContent!.workspaceId as string;
    const tabId = (context.result!.structuredContent!.tabs as { tabId: number }[])[0].tabId;
    const page = await call("navigate", { url: fixtures.url("/logs.html"), tabId, workspaceId });
    assert(!page.result?.isError, JSON.stringify(page));
    const serving = async (row: string) => {
      const answer = await call("tabs_context_mcp", { workspaceId });
      assert(!answer.result?.isError, `${row}: the next call failed: ${JSON.stringify(answer)}`);
      assertEquals(answer.result!.structuredContent!.workspaceId, workspaceId);
    };

    await t.step("an oversized line", async () => {
      await mcp.sendRaw(new TextEncoder().encode("x".repeat(MAX_LINE_BYTES + 1) + "\n"));
      const answer = JSON.parse(await mcp.next()) as Answer;
      assertEquals(answer.error?.code, -32600);
      assertMatch(answer.error!.message, new RegExp(`over the ${MAX_LINE_BYTES}-byte limit`));
      await serving("oversized line");
    });

    await t.step("an unterminated JSON message", async () => {
      await mcp.send('{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":');
      const answer = JSON.parse(await mcp.next()) as Answer;
      assertEquals([answer.id, answer.error?.code], [null, -32700]);
      await serving("unterminated JSON");
    });

    await t.step("invalid UTF-8, bare and inside an argument", async () => {
      await mcp.sendRaw(new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0x0a]));
      assertEquals((JSON.parse(await mcp.next()) as Answer).error?.code, -32700);
      const prefix = JSON.stringify({
        jsonrpc: "2.0",
        id: 901,
        method: "tools/call",
        params: {
          name: "find",
          arguments: { query: "@@", tabId, workspaceId },
          _meta: ENVELOPE,
        },
      });
      const [before, after] = prefix.split("@@");
      await mcp.sendRaw(
        new Uint8Array([
          ...new TextEncoder().encode(before),
          0xff,
          0xc0,
          0xaf,
          ...new TextEncoder().encode(after + "\n"),
        ]),
      );
      const answer = JSON.parse(await mcp.next(60_000)) as Answer;
      // Bad bytes become U+FFFD: the call is read as a query for those and answered.
      assertEquals(answer.id, 901);
      assert(answer.result !== undefined, JSON.stringify(answer));
      await serving("invalid UTF-8");
    });

    await t.step("deep JSON nesting", async () => {
      const depth = 100_000;
      await mcp.send(
        `{"jsonrpc":"2.0","id":902,"method":"tools/call","params":{"name":"find",` +
          `"arguments":{"query":${"[".repeat(depth)}${"]".repeat(depth)},"tabId":${tabId},` +
          `"workspaceId":"${workspaceId}"},"_meta":${JSON.stringify(ENVELOPE)}}}`,
      );
      const answer = JSON.parse(await mcp.next(60_000)) as Answer;
      assertEquals(answer.id, 902);
      assertMatch(failure(answer), /query/);
      await serving("deep nesting");
    });

    await t.step("wrong types and unknown fields, for every tool", async () => {
      const list = await request("tools/list", {});
      const tools = (list.result as unknown as {
        tools: { name: string; inputSchema: PropertySchema }[];
      }).tools;
      assert(tools.length >= 13, `${tools.length} tools`);
      for (const tool of tools) {
        const declared = tool.inputSchema.properties ?? {};
        // A call that is valid but for the one fault under test.
        const base = {
          ...validValue(tool.inputSchema) as Record<string, unknown>,
          ...Object.fromEntries(
            Object.entries({ ref: "ref_1", url: "about:blank" }).filter(([name]) =>
              (tool.inputSchema.required ?? []).includes(name)
            ),
          ),
          ...Object.fromEntries(
            Object.entries({ tabId, workspaceId }).filter(([name]) => name in declared),
          ),
        };
        const unknown = await call(tool.name, { ...base, no_such_field: 1 });
        assertMatch(failure(unknown), /no_such_field/, `${tool.name} names the unknown field`);
        for (const [name, schema] of Object.entries(declared)) {
          if (name === "workspaceId") continue;
          const wrong = await call(tool.name, { ...base, [name]: wrongValue(schema) });
          assertMatch(failure(wrong), new RegExp(name), `${tool.name}.${name} is named`);
        }
      }
      await serving("wrong types");
    });

    await t.step("forged, malformed and expired workspaceIds", async () => {
      for (const forged of ["ws_forged_by_a_guess_0000000000000000000000", "", "x".repeat(300)]) {
        const answer = await call("tabs_context_mcp", { workspaceId: forged });
        assertMatch(failure(answer), /workspace/i);
      }
      assertMatch(failure(await call("tabs_context_mcp", { workspaceId: 42 })), /workspaceId/);
      // A workspace whose only connection ended, past its grace period.
      const other = startConnector(testEnv);
      const minted = await callOn(other, "tabs_context_mcp", {});
      const expired = minted.result!.structuredContent!.workspaceId as string;
      const before = (await fetchStatus(testEnv.plan.paths.controlSocket)).workspaces;
      assertEquals((await other.close()).code, 0);
      await waitFor(
        async () => (await fetchStatus(testEnv.plan.paths.controlSocket)).workspaces < before,
        "the ended connection's workspace to expire",
      );
      assertMatch(failure(await call("tabs_context_mcp", { workspaceId: expired })), /unknown/i);
      await serving("workspaceIds");
    });

    await t.step("forged, foreign, negative, fractional and huge tab ids", async () => {
      const other = startConnector(testEnv);
      const made = await callOn(other, "tabs_create_mcp", {});
      const foreign = (made.result!.structuredContent!.tabs as { tabId: number }[])[0].tabId;
      assert(Number.isInteger(foreign), JSON.stringify(made));
      for (const bad of [123_456_789, foreign, -1, 1.5, 2 ** 60]) {
        const answer = await call("get_page_text", { tabId: bad, workspaceId });
        assertMatch(failure(answer), /tab/i, `tabId ${bad}`);
      }
      await other.close();
      await serving("tab ids");
    });

    await t.step("a huge max_chars is held to its bound", async () => {
      const answer = await call("get_page_text", { tabId, workspaceId, max_chars: 1e15 });
      assert(answer.result !== undefined, JSON.stringify(answer));
      if (answer.result.isError) assertMatch(failure(answer), /max_chars/);
      await serving("max_chars");
    });

    await t.step("negative and huge coordinates", async () => {
      for (const coordinate of [[-10, -10], [1e9, 1e9]]) {
        const answer = await call("computer", {
          action: "left_click",
          coordinate,
          tabId,
          workspaceId,
        });
        assertMatch(failure(answer), /coordinate/i, JSON.stringify(coordinate));
      }
      await serving("coordinates");
    });

    await t.step("a catastrophically backtracking pattern and urlPattern", async () => {
      const evil = "(a+)+$";
      const consoleAnswer = await call("read_console_messages", {
        tabId,
        workspaceId,
        pattern: evil,
      });
      assertMatch(failure(consoleAnswer), /pattern/i);
      const network = await call("read_network_requests", {
        tabId,
        workspaceId,
        urlPattern: `${"a".repeat(50)}${evil}`,
      });
      // A URL pattern is matched as text: it answers, at once, with nothing matched.
      assert(network.result !== undefined, JSON.stringify(network));
      await serving("patterns");
    });
  } finally {
    await mcp.close();
    await browser.stop();
    await fixtures.close();
    await testEnv.dispose();
  }
});
