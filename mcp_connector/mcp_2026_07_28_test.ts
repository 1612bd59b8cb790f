import { assertEquals } from "../tests/support/assert.ts";
import { ErrorCode, RpcError } from "./jsonrpc.ts";
import { hasEnvelope, listedTool, readEnvelope, renderWithWorkspace } from "./mcp_2026_07_28.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function rpcError(fn: () => unknown): { code: number; data?: unknown } {
  try {
    fn();
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, data: error.data };
    throw error;
  }
  throw new Error("expected an RpcError");
}

Deno.test("the envelope is read from this request alone, version before capabilities", () => {
  assertEquals(readEnvelope({ _meta: META }, ["2026-07-28"]), { client: null });
  assertEquals(
    readEnvelope({
      _meta: {
        ...META,
        "io.modelcontextprotocol/clientInfo": { name: "x", version: "2" },
        progressToken: 7,
      },
    }, ["2026-07-28"]),
    { client: { name: "x", version: "2" }, progressToken: 7 },
  );
  assertEquals(rpcError(() => readEnvelope({}, ["2026-07-28"])).code, ErrorCode.invalidParams);
  assertEquals(
    rpcError(() =>
      readEnvelope({
        _meta: { "io.modelcontextprotocol/protocolVersion": "2030-01-01" },
      }, ["2026-07-28"])
    ),
    {
      code: ErrorCode.unsupportedProtocolVersion,
      data: { supported: ["2026-07-28"], requested: "2030-01-01" },
    },
  );
  assertEquals(
    rpcError(() =>
      readEnvelope({
        _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": [] },
      }, ["2026-07-28"])
    ).code,
    ErrorCode.invalidParams,
  );
  assertEquals(hasEnvelope({ _meta: { progressToken: 1 } }), false);
  assertEquals(hasEnvelope({ _meta: META }), true);
});

Deno.test("tools that use a workspace gain an optional workspaceId; others are untouched", () => {
  const tool = {
    name: "navigate",
    title: "Navigate",
    description: "d",
    inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    annotations: {},
    createsContext: false,
    needsWorkspace: true,
    acceptsWorkspace: true,
  };
  const listed = listedTool(tool) as { inputSchema: Record<string, unknown> };
  assertEquals(Object.keys(listed.inputSchema.properties as object), ["url", "workspaceId"]);
  assertEquals(listed.inputSchema.required, ["url"]);
  const planLike = { ...tool, needsWorkspace: false };
  const planListed = listedTool(planLike) as { inputSchema: Record<string, unknown> };
  assertEquals(Object.keys(planListed.inputSchema.properties as object), ["url", "workspaceId"]);
  const free = { ...tool, needsWorkspace: false, acceptsWorkspace: false };
  assertEquals(listedTool(free).inputSchema, tool.inputSchema);
});

Deno.test("a minted workspace is handed to the model; failures are left as they are", () => {
  const rendered = renderWithWorkspace({
    outcome: {
      kind: "success",
      content: [{ type: "text", text: "1 tab" }],
      structured: { tabs: [] },
      workspace: "ws_abc",
    },
  });
  assertEquals(rendered.structuredContent, { tabs: [], workspaceId: "ws_abc" });
  assertEquals(rendered.content.length, 2);
  const failed = renderWithWorkspace({
    outcome: { kind: "denied", message: "no", next_step: "ask" },
  });
  assertEquals(failed, {
    content: [{ type: "text", text: "Denied: no\nask" }],
    isError: true,
  });
});

Deno.test("a call's restriction travels in its _meta; a malformed one is -32602", () => {
  const restriction = { capabilities: ["read"], hosts: ["*.example.com"] };
  assertEquals(
    readEnvelope({ _meta: { ...META, "com.ghostlight/restriction": restriction } }, [
      "2026-07-28",
    ]),
    {
      client: null,
      restriction: { source: `the call's _meta "com.ghostlight/restriction"`, ...restriction },
    },
  );
  for (const bad of [[], "read", { capabilities: "read" }, { hosts: [1] }, { allow: ["read"] }]) {
    const error = rpcError(() =>
      readEnvelope({ _meta: { ...META, "com.ghostlight/restriction": bad } }, ["2026-07-28"])
    );
    assertEquals(error.code, ErrorCode.invalidParams, JSON.stringify(bad));
  }
});
