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

Deno.test("a call's capabilities come from its action's row of the contract", () => {
  const catalog = new Catalog(new Set());
  assertEquals(catalog.capabilities("get_page_text", { tabId: 1 }), ["read"]);
  assertEquals(catalog.capabilities("computer", { action: "left_click" }), ["action"]);
  assertEquals(catalog.action("computer", { action: "left_click" }), "left_click");
  assertEquals(catalog.capabilities("computer", { action: "screenshot" }), ["read"]);
  assertEquals(catalog.capabilities("computer", { action: "wait" }), []);
  assertEquals(catalog.capabilities("form_input", {}), ["write"]);
  assertEquals(catalog.capabilities("javascript_tool", { action: "javascript_exec" }), [
    "execute",
  ]);
  assertEquals(catalog.action("javascript_tool", { action: "javascript_exec" }), null);
  assertEquals(catalog.capabilities("form_fill", { fields: [] }), ["read", "write"]);
  assertEquals(catalog.capabilities("form_fill", { submit: true }), ["read", "write", "action"]);
  assertEquals(catalog.capabilities("tabs_create_mcp", {}), []);
  assertEquals(catalog.capabilities("no_such_tool", {}), []);
});
