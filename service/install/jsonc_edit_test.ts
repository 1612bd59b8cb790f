import { assert, assertEquals } from "../../tests/support/assert.ts";
import { applyInverse, insertJsonEntry, parseJsonc, removeJsonEntry } from "./jsonc_edit.ts";

const ENTRY = { command: "/home/u/.local/bin/ghostlight-mcp-connector", args: [] };
const PATH = ["mcpServers", "ghostlight"];

function added(text: string): { text: string; back: string | null } {
  const edit = insertJsonEntry(text, { path: PATH, value: ENTRY });
  if (!edit.ok) throw new Error(edit.reason);
  return { text: edit.text, back: applyInverse(edit.text, edit.inverse) };
}

Deno.test("an entry joins its neighbours' indentation and every other byte stays", () => {
  const text =
    '{\n  // mine\n  "mcpServers": {\n    "other": { "command": "x" }, // note\n  },\n}\n';
  const { text: next, back } = added(text);
  assertEquals(
    next,
    '{\n  // mine\n  "mcpServers": {\n    "other": { "command": "x" },\n    "ghostlight": {\n' +
      '      "command": "/home/u/.local/bin/ghostlight-mcp-connector",\n      "args": []\n' +
      "    }, // note\n  },\n}\n",
  );
  assertEquals(back, text);
});

Deno.test("tabs, four spaces, CRLF, an empty object and a one-line file are all undone exactly", () => {
  for (
    const text of [
      "{}",
      '{\n\t"mcpServers": {}\n}',
      '{\n    "theme": "dark",\n}\n',
      '{\r\n  "x": 1\r\n}\r\n',
      '{"a":1}',
      '{\n  "mcpServers": {\n  }\n}\n',
    ]
  ) {
    const { text: next, back } = added(text);
    assertEquals(back, text, JSON.stringify(text));
    const parsed = parseJsonc(next);
    assert(parsed.ok);
    assertEquals((parsed.value as { mcpServers: unknown }).mcpServers, { ghostlight: ENTRY });
  }
  assert(added('{\n\t"mcpServers": {}\n}').text.includes('\n\t\t"ghostlight": {\n\t\t\t"command"'));
});

Deno.test("a file that does not parse, or whose servers are not an object, is refused", () => {
  for (
    const [text, reason] of [["{ bad", /not valid JSON/], ['{"mcpServers": []}', /not an object/]]
  ) {
    const edit = insertJsonEntry(text as string, { path: PATH, value: ENTRY });
    assert(!edit.ok && (reason as RegExp).test(edit.reason), JSON.stringify(edit));
  }
  const taken = insertJsonEntry('{"mcpServers": {"ghostlight": {}}}', {
    path: PATH,
    value: ENTRY,
  });
  assert(!taken.ok && /already exists/.test(taken.reason));
});

Deno.test("an inverse applies only where its text is there exactly once", () => {
  assertEquals(applyInverse("a-X-b", { find: "X", replace: "" }), "a--b");
  assertEquals(applyInverse("a-X-X", { find: "X", replace: "" }), null);
  assertEquals(applyInverse("a-b", { find: "X", replace: "" }), null);
});

Deno.test("without an inverse the entry is still removed and the rest kept", () => {
  const text = '{\n  // keep\n  "mcpServers": {"other": {}, "ghostlight": {"command": "c"}}\n}\n';
  const removed = removeJsonEntry(text, PATH);
  assert(removed.includes("// keep") && removed.includes('"other"'));
  assert(!removed.includes("ghostlight"));
});
