import { assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import type { PackedSnapshot, Snapshot } from "../page_runtime/contract.ts";
import { unpackWalk } from "./collect.ts";

const BOX = { x: 1, y: 2, width: 30, height: 4, visible: true, inViewport: false };

/** What a walk answers beside its nodes, packed or not. */
const HEAD = {
  token: "t0k3n",
  url: "https://example.test/rows",
  title: "Rows",
  frames: [9000],
  omitted: 3,
  cutByDepth: 1,
};

/** A walk packed as the runtime's `packWalk` packs it (decision 0620). */
const PACKED: PackedSnapshot = {
  ...HEAD,
  roles: ["main", "heading", "textbox", "link", "text", "iframe", "button", "table"],
  nodes: [
    [1, 0, 0, ""],
    [2, 1, 1, 'Log "book"', { states: ["level=1"] }],
    [3, 1, 2, "Find", { value: "", placeholder: "Search…" }],
    [4, 1, 3, "Home", { href: "https://example.test/", hints: "go" }],
    [0, 2, 4, "plain words"],
    [9000, 1, 5, "Pay", { href: "https://pay.test/", frame: true }],
    [9001, 1, 6, "Buy", { box: BOX }],
    [9002, 1, 6, "Gone", { box: null }],
  ],
  rest: {
    lines: 40,
    nodes: 50,
    elements: 45,
    sections: [[4, 1, 7, "Entries"]],
    walkedToEnd: false,
  },
};

const WALK: Snapshot = {
  ...HEAD,
  nodes: [
    { id: 1, depth: 0, role: "main", name: "" },
    { id: 2, depth: 1, role: "heading", name: 'Log "book"', states: ["level=1"] },
    { id: 3, depth: 1, role: "textbox", name: "Find", value: "", placeholder: "Search…" },
    { id: 4, depth: 1, role: "link", name: "Home", href: "https://example.test/", hints: "go" },
    { id: 0, depth: 2, role: "text", name: "plain words" },
    { id: 9000, depth: 1, role: "iframe", name: "Pay", href: "https://pay.test/", frame: true },
    { id: 9001, depth: 1, role: "button", name: "Buy", box: BOX },
    { id: 9002, depth: 1, role: "button", name: "Gone", box: null },
  ],
  rest: {
    lines: 40,
    nodes: 50,
    elements: 45,
    sections: [{ id: 4, depth: 1, role: "table", name: "Entries" }],
    walkedToEnd: false,
  },
};

Deno.test("a packed walk unpacks into its nodes, every field and the rest's sections kept", () => {
  assertEquals(unpackWalk(JSON.parse(JSON.stringify(PACKED))), WALK);
  const { rest: _, ...whole } = PACKED as Extract<PackedSnapshot, { token: string }>;
  const { rest: __, ...wholeWalk } = WALK as Extract<Snapshot, { token: string }>;
  assertEquals(unpackWalk(whole), wholeWalk);
  assertEquals(unpackWalk({ gone: true }), { gone: true });
});

Deno.test("a packed node naming a role the walk did not list is refused", () => {
  const packed = structuredClone(PACKED) as Extract<PackedSnapshot, { token: string }>;
  packed.nodes[1][2] = packed.roles.length;
  let refused = "";
  try {
    unpackWalk(packed);
  } catch (error) {
    refused = (error as Error).message;
  }
  assertMatch(refused, /named no role 8/);
});
