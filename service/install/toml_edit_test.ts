import { assert, assertEquals } from "../../tests/support/assert.ts";
import { applyInverse } from "./jsonc_edit.ts";
import { insertTomlTable, parseToml, removeTomlTable } from "./toml_edit.ts";

const PATH = ["mcp_servers", "ghostlight"];
const ENTRY = { command: "/home/u/.local/bin/ghostlight-mcp-connector", args: [] };

Deno.test("a table is appended as text and its inverse gives the file back", () => {
  for (
    const text of [
      "",
      '# my settings\nmodel = "o3"\n',
      'model = "o3"',
      '[mcp_servers.other]\ncommand = "x" # why\n\n',
    ]
  ) {
    const edit = insertTomlTable(text, { path: PATH, value: ENTRY });
    if (!edit.ok) throw new Error(edit.reason);
    assert(edit.text.startsWith(text));
    assertEquals(applyInverse(edit.text, edit.inverse), text);
    const parsed = parseToml(edit.text);
    assert(parsed.ok);
    assertEquals((parsed.value as { mcp_servers: unknown }).mcp_servers, {
      ...(text.includes("other") ? { other: { command: "x" } } : {}),
      ghostlight: ENTRY,
    });
  }
});

Deno.test("invalid TOML, a taken name and an inline parent are refused", () => {
  for (
    const [text, reason] of [
      ["model = ", /not valid TOML/],
      ['[mcp_servers.ghostlight]\ncommand = "x"\n', /already exists/],
      ['mcp_servers = { other = { command = "x" } }\n', /cannot be added/],
    ] as const
  ) {
    const edit = insertTomlTable(text, { path: PATH, value: ENTRY });
    assert(!edit.ok && reason.test(edit.reason), JSON.stringify(edit));
  }
});

Deno.test("without an inverse the table is removed up to the next one", () => {
  const text =
    'a = 1\n\n[mcp_servers.ghostlight]\ncommand = "c"\nargs = []\n\n# next\n[x]\nb = 2\n';
  assertEquals(removeTomlTable(text, PATH), "a = 1\n\n# next\n[x]\nb = 2\n");
  assertEquals(
    removeTomlTable('a = 1\n\n[mcp_servers.ghostlight]\ncommand = "c"\n', PATH),
    "a = 1\n",
  );
  assertEquals(removeTomlTable("a = 1\n", PATH), null);
});
