import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import type { PackedSnapshot, Snapshot, SnapshotNode } from "../page_runtime/contract.ts";
import { packWalk } from "../page_runtime/pack.ts";
import { unpackWalk } from "./collect.ts";

const ROWS: SnapshotNode[] = Array.from({ length: 200 }, (_, i): SnapshotNode[] => [
  { id: 5 * i + 5, depth: 2, role: "row", name: "" },
  { id: 5 * i + 6, depth: 3, role: "cell", name: String(i) },
  { id: 5 * i + 7, depth: 3, role: "cell", name: `Lamp check number ${i} done` },
  { id: 5 * i + 8, depth: 3, role: "cell", name: "" },
  { id: 5 * i + 9, depth: 4, role: "button", name: `Open ${i}` },
]).flat();

const WALK: Snapshot = {
  token: "t0k3n",
  url: "https://example.test/rows",
  title: "Rows",
  nodes: [
    { id: 1, depth: 0, role: "main", name: "" },
    { id: 2, depth: 1, role: "heading", name: 'Log "book"\n', states: ["level=1"] },
    { id: 3, depth: 1, role: "textbox", name: "Find", value: "", placeholder: "Search…" },
    { id: 4, depth: 1, role: "link", name: "Home", href: "https://example.test/", hints: "go" },
    { id: 0, depth: 2, role: "text", name: "plain words" },
    { id: 9000, depth: 1, role: "iframe", name: "Pay", href: "https://pay.test/", frame: true },
    {
      id: 9001,
      depth: 1,
      role: "button",
      name: "Buy",
      box: { x: 1, y: 2, width: 30, height: 4, visible: true, inViewport: false },
    },
    { id: 9002, depth: 1, role: "button", name: "Gone", box: null },
    ...ROWS,
  ],
  frames: [9000],
  omitted: 3,
  cutByDepth: 1,
  rest: {
    lines: 40,
    nodes: 50,
    elements: 45,
    sections: [{ id: 4, depth: 1, role: "table", name: "Entries" }],
  },
};

const roundTrip = (walk: Snapshot) => unpackWalk(JSON.parse(packWalk(walk)) as PackedSnapshot);

Deno.test("a packed walk unpacks into the same nodes, every field kept", () => {
  assertEquals(roundTrip(WALK), WALK);
  const { rest: _, ...whole } = WALK as Extract<Snapshot, { token: string }>;
  assertEquals(roundTrip(whole), whole);
  assertEquals(roundTrip({ gone: true }), { gone: true });
  assertEquals(roundTrip({ ...whole, nodes: [] }), { ...whole, nodes: [] });
});

Deno.test("a packed walk names each field and role once, not on every node", () => {
  const packed = packWalk(WALK);
  const plain = JSON.stringify(WALK);
  // What crosses is JSON text inside JSON: its quotes are escaped at every hop.
  const crossing = (text: string) => JSON.stringify(text).length;
  assert(
    crossing(packed) < crossing(plain) / 2,
    `packed ${crossing(packed)} against ${crossing(plain)}`,
  );
  const roles = (JSON.parse(packed) as { roles: string[] }).roles;
  assertEquals(roles.length, new Set(roles).size);
});

Deno.test("a packed node naming a role the walk did not list is refused", () => {
  const packed = JSON.parse(packWalk(WALK)) as Extract<PackedSnapshot, { token: string }>;
  packed.nodes[0][2] = packed.roles.length;
  let refused = "";
  try {
    unpackWalk(packed);
  } catch (error) {
    refused = (error as Error).message;
  }
  assertMatch(refused, /named no role/);
});
