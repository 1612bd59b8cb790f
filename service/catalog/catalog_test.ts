import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { Catalog } from "./catalog.ts";

Deno.test("only implemented tools are advertised, in contract order", () => {
  const catalog = new Catalog(new Set(["navigate", "tabs_context_mcp", "not_a_tool"]));
  assertEquals(catalog.descriptors().map((tool) => tool.name), ["tabs_context_mcp", "navigate"]);
  assertEquals(catalog.row("computer"), undefined);
});

Deno.test("traits: context creators, stateless tools and workspace-free tools", () => {
  const catalog = new Catalog(new Set());
  assertEquals(catalog.traits("tabs_context_mcp"), {
    createsContext: true,
    needsWorkspace: true,
    acceptsWorkspace: true,
  });
  assertEquals(catalog.traits("update_plan").needsWorkspace, false);
  assertEquals(catalog.traits("explain").acceptsWorkspace, false);
});

Deno.test("an argument problem names the tool and shows a correct call", () => {
  const catalog = new Catalog(new Set(["navigate"]));
  const problem = catalog.argumentProblem("navigate", {});
  assert(problem !== null);
  assertMatch(problem, /^Invalid arguments for navigate: .*A correct call looks like: \{/);
  assertEquals(catalog.argumentProblem("computer", {}), "unknown tool computer");
});
