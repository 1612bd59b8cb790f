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
    { name: "tabs_context_mcp", createsContext: true, binds: "topology" },
    { name: "update_plan", needsWorkspace: false },
    { name: "explain", needsWorkspace: false, acceptsWorkspace: false },
    { name: "navigate" },
  ]);
  assertEquals(catalog.traits("tabs_context_mcp"), {
    createsContext: true,
    needsWorkspace: true,
    acceptsWorkspace: true,
    binds: "topology",
  });
  assertEquals(catalog.traits("navigate"), {
    createsContext: false,
    needsWorkspace: true,
    acceptsWorkspace: true,
    binds: "surface",
  });
  // What a call binds stays in the service: the connector is told the rest.
  assert(catalog.descriptors().every((tool) => !("binds" in tool)));
  assertEquals(catalog.traits("update_plan").needsWorkspace, false);
  assertEquals(catalog.traits("explain").acceptsWorkspace, false);
});

Deno.test("an argument problem names the tool and shows a correct call", () => {
  const catalog = new Catalog([{ name: "navigate" }]);
  const problem = catalog.argumentProblem("navigate", {});
  assert(problem !== null);
  assertMatch(problem, /^Invalid arguments for navigate: .*A correct call looks like: \{/);
  assertEquals(catalog.argumentProblem("computer", {}), "unknown tool computer");
  // An action named like a property of every object still gets the tool's own example.
  const full = new Catalog([{ name: "computer" }]);
  for (const action of ["constructor", "toString", "left_clik"]) {
    const wrong = full.argumentProblem("computer", { action, tabId: 1 });
    assertMatch(wrong ?? "", /A correct call looks like: \{"action":/, action);
  }
});

Deno.test("the gate's lookup is the one explain and script's dry run use: act_on reads when it searches", () => {
  const catalog = new Catalog([]);
  const click = { action: "left_click" };
  assertEquals(catalog.capabilities("act_on", { ...click, target: { ref: "ref_1" } }), ["action"]);
  assertEquals(catalog.capabilities("act_on", { ...click, target: { query: "Save" } }), [
    "action",
    "read",
  ]);
});

Deno.test("a call's capabilities come from its action's row of the contract", () => {
  const catalog = new Catalog([]);
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
  // An action the contract does not have is none, even one every object has (audit, notes).
  for (const action of ["constructor", "toString", "no_such_action"]) {
    assertEquals(catalog.action("computer", { action }), null, action);
  }
  assertEquals(catalog.capabilities("form_fill", { fields: [] }), ["read", "write"]);
  assertEquals(catalog.capabilities("form_fill", { submit: true }), ["read", "write", "action"]);
  assertEquals(catalog.capabilities("tabs_create_mcp", {}), []);
  assertEquals(catalog.capabilities("no_such_tool", {}), []);
});
