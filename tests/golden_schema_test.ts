/**
 * Golden test of the trained tools' public surface: every input schema and annotation set the
 * 13 trained tools advertise through a real 2025-11-25 client must equal the team's contract in
 * names, types, enums, key order and requiredness. Descriptions are ours and are ignored. The
 * contract is kept verbatim in `tests/golden/tool-schemas.json`, so a bare clone tests itself;
 * where the team's spec sits beside the repository (as in CI), the copy must equal it too.
 */

import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";
import { startSession } from "./support/session.ts";
import { CONTRACT } from "../service/catalog/contract.ts";
import { TOOL_TEXT } from "../service/catalog/descriptions.ts";

/** The most characters `tools/list` may take for all 25 tools: an agent reads it every session. */
const LIST_BUDGET = 24_000;

interface SpecRow {
  name: string;
  trained: boolean;
  inputSchema: unknown;
  annotations: unknown;
}

/** A copy without `description` keys, keeping every other key in its order. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key !== "description") out[key] = withoutDescriptions(item);
  }
  return out;
}

/** JSON that keeps key order, so a reordered schema is a difference. */
function ordered(value: unknown): string {
  return JSON.stringify(withoutDescriptions(value), null, 1);
}

const GOLDEN = `${ROOT}/tests/golden/tool-schemas.json`;
const TEAM_SPEC = `${ROOT}/../shared/spec/tool-schemas.json`;

async function readSpec(): Promise<SpecRow[]> {
  return JSON.parse(await Deno.readTextFile(GOLDEN));
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "the golden copy is the team's spec, byte for byte",
  ignore: !exists(TEAM_SPEC),
}, async () => {
  assertEquals(await Deno.readTextFile(GOLDEN), await Deno.readTextFile(TEAM_SPEC));
});

Deno.test("the comparison sees reordered keys, enums and required lists", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "string", enum: ["x", "y"] }, b: { type: "number" } },
    required: ["a", "b"],
  };
  const same = { ...schema, description: "ours", properties: { ...schema.properties } };
  assertEquals(ordered(same), ordered(schema), "descriptions are ignored");
  const reordered = { ...schema, properties: { b: schema.properties.b, a: schema.properties.a } };
  const enums = {
    ...schema,
    properties: { ...schema.properties, a: { type: "string", enum: ["y", "x"] } },
  };
  const required = { ...schema, required: ["b", "a"] };
  for (const changed of [reordered, enums, required]) {
    assert(ordered(changed) !== ordered(schema), JSON.stringify(changed));
  }
});

Deno.test("the repository's contract copy equals the team's spec", async () => {
  const spec = await readSpec();
  assertEquals(CONTRACT.map((row) => row.name), spec.map((row) => row.name));
  for (const row of spec) {
    const ours = CONTRACT.find((candidate) => candidate.name === row.name)!;
    assertEquals(ours.trained, row.trained, `${row.name} trained flag`);
    assertEquals(ordered(ours.inputSchema), ordered(row.inputSchema), `${row.name} inputSchema`);
    assertEquals(ordered(ours.annotations), ordered(row.annotations), `${row.name} annotations`);
  }
});

Deno.test("tools/list advertises every built tool as the spec, in its order", async () => {
  const trained = (await readSpec()).filter((row) => row.trained);
  assertEquals(trained.length, 13);
  // The 1.x SDK client asks for this revision, and Ghostlight binds it.
  assertEquals(LATEST_PROTOCOL_VERSION, "2025-11-25");
  const s = await startSession();
  try {
    const { tools } = await s.client.listTools();
    const advertised = tools.map((tool: { name: string }) => tool.name);
    assertEquals(
      advertised,
      CONTRACT.map((row) => row.name).filter((name) => advertised.includes(name)),
      "every advertised tool keeps the contract's order",
    );
    const spec = await readSpec();
    for (const tool of tools) {
      const row = spec.find((candidate) => candidate.name === tool.name);
      assert(row, `${tool.name} is in the spec`);
      assertEquals(ordered(tool.inputSchema), ordered(row.inputSchema), `${tool.name} schema`);
      assertEquals(ordered(tool.annotations), ordered(row.annotations), `${tool.name} annotations`);
    }
    const size = JSON.stringify({ tools }).length;
    assert(size < LIST_BUDGET, `tools/list takes ${size} characters, over ${LIST_BUDGET}`);
    const missing = trained.filter((row) => !advertised.includes(row.name)).map((r) => r.name);
    assertEquals(missing, [], "every trained tool is advertised");
    assertEquals(
      advertised.filter((name: string) => trained.some((row) => row.name === name)),
      trained.map((row) => row.name),
      "trained tools keep the spec's order",
    );
    for (const row of trained) {
      const tool = tools.find((candidate: { name: string }) => candidate.name === row.name)!;
      assertEquals(ordered(tool.inputSchema), ordered(row.inputSchema), `${row.name} inputSchema`);
      assertEquals(ordered(tool.annotations), ordered(row.annotations), `${row.name} annotations`);
      assert(
        typeof tool.description === "string" && tool.description.length >= 40,
        `${row.name} has a description that teaches its use`,
      );
    }
  } finally {
    await s.close();
  }
});

Deno.test(`tools/list for all 25 tools stays under ${LIST_BUDGET} characters`, () => {
  // As the connector lists a tool; unbuilt tools count with the descriptions they will have.
  const tools = CONTRACT.map((row) => ({
    name: row.name,
    title: row.annotations.title,
    description: TOOL_TEXT[row.name].description,
    inputSchema: row.inputSchema,
    annotations: row.annotations,
  }));
  const size = JSON.stringify({ tools }).length;
  assert(size < LIST_BUDGET, `tools/list would take ${size} characters, over ${LIST_BUDGET}`);
});
