import { assert, assertEquals } from "../../tests/support/assert.ts";
import {
  addEntry,
  freeName,
  newConfigText,
  ourEntries,
  readClientConfig,
} from "./client_config.ts";

const SERVER = { command: "/home/u/.local/bin/ghostlight-mcp-connector", args: [] };

function config(client: Parameters<typeof readClientConfig>[0], text: string) {
  const read = readClientConfig(client, text);
  if (!read.ok) throw new Error(read.reason);
  return read.config;
}

Deno.test("ours is the entry that runs our launcher; a foreign one under our name is not", () => {
  const text = JSON.stringify({
    mcpServers: {
      ghostlight: { command: "/opt/other", args: [] },
      "ghostlight-2": { type: "stdio", ...SERVER },
    },
  });
  const parsed = config("claude-code", text);
  assertEquals(ourEntries(parsed, SERVER), ["ghostlight-2"]);
  assertEquals(freeName(parsed, "ghostlight"), "ghostlight-3");
  assertEquals(freeName(config("claude-code", "{}"), "ghostlight"), "ghostlight");
});

Deno.test("OpenCode's two layouts and its command array", () => {
  const second = config("opencode", '{"mcp": {"servers": {}}}');
  assertEquals(second.container, ["mcp", "servers"]);
  const first = config("opencode", '{"mcp": {"x": {"type": "local", "command": ["x"]}}}');
  assertEquals(first.container, ["mcp"]);
  const edit = addEntry(second, {
    text: '{"mcp": {"servers": {}}}',
    name: "ghostlight",
    server: SERVER,
  });
  assert(edit.ok);
  assertEquals(ourEntries(config("opencode", edit.text), SERVER), ["ghostlight"]);
});

Deno.test("a servers key that is no object, and a file that does not parse, are refused", () => {
  const notObject = readClientConfig("cursor", '{"mcpServers": "none"}');
  assert(!notObject.ok && /not an object/.test(notObject.reason));
  const broken = readClientConfig("codex", "model = ");
  assert(!broken.ok && /not valid TOML/.test(broken.reason));
});

Deno.test("a new file holds only our entry, in the client's format", () => {
  assertEquals(
    newConfigText("codex", { name: "ghostlight", server: SERVER }),
    `[mcp_servers.ghostlight]\ncommand = "${SERVER.command}"\nargs = []\n`,
  );
  assertEquals(
    JSON.parse(newConfigText("zed", { name: "ghostlight", server: SERVER })),
    { context_servers: { ghostlight: { source: "custom", ...SERVER } } },
  );
});
