import { assert, assertEquals } from "../../../tests/support/assert.ts";
import {
  biggestSections,
  diffOutlines,
  displayLines,
  type OutlineNode,
  remember,
  render,
} from "./outline.ts";

const TABLE: OutlineNode[] = [
  { ref: "ref_1", depth: 0, role: "main", name: "" },
  { ref: "ref_2", depth: 1, role: "button", name: "Show", states: ["collapsed"] },
  { ref: "ref_3", depth: 1, role: "table", name: "Entries" },
  ...Array.from({ length: 30 }, (_, i): OutlineNode[] => [
    { ref: `ref_r${i}`, depth: 2, role: "row", name: "" },
    { ref: `ref_a${i}`, depth: 3, role: "cell", name: String(i) },
    { ref: `ref_b${i}`, depth: 3, role: "cell", name: "" },
    { ref: `ref_c${i}`, depth: 4, role: "button", name: `Open ${i}` },
  ]).flat(),
];

Deno.test("simple table rows render as one line each", () => {
  const lines = displayLines(TABLE);
  assertEquals(lines[3], '    row [ref_r0] "0" | button "Open 0" [ref_c0]');
  assertEquals(lines.length, 3 + 30);
  const flat = displayLines(TABLE, true);
  assert(flat.every((line) => !line.startsWith(" ")), "interactive outlines are flat");
});

Deno.test("a list item around one element is one line", () => {
  const lines = displayLines([
    { ref: "ref_1", depth: 0, role: "list", name: "" },
    { ref: "ref_2", depth: 1, role: "listitem", name: "" },
    { ref: "ref_3", depth: 2, role: "link", name: "Home", href: "/" },
    { ref: "ref_4", depth: 1, role: "listitem", name: "" },
    { ref: "ref_5", depth: 2, role: "link", name: "A" },
    { ref: "ref_6", depth: 2, role: "link", name: "B" },
  ]);
  assertEquals(lines, [
    "list [ref_1]",
    '  listitem: link "Home" [ref_3] href="/"',
    "  listitem [ref_4]",
    '    link "A" [ref_5]',
    '    link "B" [ref_6]',
  ]);
});

Deno.test("render stops at the budget on a line boundary", () => {
  const lines = displayLines(TABLE);
  const { text, shown, total } = render(lines, 120);
  assert(text.length <= 120);
  assertEquals(text.split("\n").length, shown);
  assertEquals(total, 33);
});

Deno.test("the biggest sections skip wrappers around one big section", () => {
  assertEquals(biggestSections(TABLE).map((node) => node.ref), ["ref_3"]);
});

Deno.test("diff reports changed, added and removed lines only", () => {
  const before = remember("s", "u", TABLE);
  const after = remember("s", "u", [
    TABLE[0],
    { ...TABLE[1], name: "Hide", states: ["expanded"] },
    { ref: "ref_9", depth: 1, role: "region", name: "Weather" },
    { depth: 2, role: "text", name: "Gale warning" },
    ...TABLE.slice(2, -4),
  ]);
  const diff = diffOutlines(before, after);
  assertEquals(diff.changed, [
    '~ button "Hide" [ref_2] expanded   (was: button "Show" [ref_2] collapsed)',
  ]);
  assertEquals(diff.added, ['+ region "Weather" [ref_9]', '+ text "Gale warning"']);
  assertEquals(diff.removed.length, 4);
});
