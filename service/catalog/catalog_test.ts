import { assert, assertEquals, assertMatch, assertRejects } from "../../tests/support/assert.ts";
import { Catalog } from "./catalog.ts";

Deno.test("only built tools are advertised, in contract order", () => {
  const catalog = new Catalog([{ name: "navigate" }, { name: "tabs_context_mcp" }]);
  assertEquals(catalog.descriptors().map((tool) => tool.name), ["tabs_context_mcp", "navigate"]);
  assertEquals(catalog.row("computer"), undefined);
});

Deno.test("a tool outside the contract is refused when the catalog is built", async () => {
  await assertRejects(
    () => Promise.resolve().then(() => new Catalog([{ name: "not_a_tool" }])),
    /no contract row/,
  );
});

Deno.test("traits are what a tool declares, over the defaults", () => {
  const catalog = new Catalog([
    { name: "tabs_context_mcp", createsContext: true },
    { name: "update_plan", needsWorkspace: false },
    { name: "explain", needsWorkspace: false, acceptsWorkspace: false },
    { name: "navigate" },
  ]);
  assertEquals(catalog.traits("tabs_context_mcp"), {
    createsContext: true,
    needsWorkspace: true,
    acceptsWorkspace: true,
  });
  assertEquals(catalog.traits("navigate"), {
    createsContext: false,
    needsWorkspace: true,
    acceptsWorkspace: true,
  });
  assertEquals(catalog.traits("update_plan").needsWorkspace, false);
  assertEquals(catalog.traits("explain").acceptsWorkspace, false);
});

Deno.test("an argument problem names the tool and shows a correct call", () => {
  const catalog = new Catalog([{ name: "navigate" }]);
  const problem = catalog.argumentProblem("navigate", {});
  assert(problem !== null);
  assertMatch(problem, /^Invalid arguments for navigate: .*A correct call looks like: \{/);
  assertEquals(catalog.argumentProblem("computer", {}), "unknown tool computer");
});
