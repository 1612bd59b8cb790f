import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { Catalog, CONTRACT } from "./mod.ts";

const catalog = new Catalog(CONTRACT.map((row) => ({ name: row.name })));

Deno.test("valid arguments pass", () => {
  assertEquals(catalog.argumentProblem("navigate", { url: "example.com", tabId: 1 }), null);
  assertEquals(
    catalog.argumentProblem("computer", { action: "left_click", tabId: 1, coordinate: [1, 2] }),
    null,
  );
  assertEquals(
    catalog.argumentProblem("form_input", { ref: "ref_1", value: true, tabId: 1 }),
    null,
  );
});

Deno.test("argument errors name the field and show a correct call", () => {
  const missing = catalog.argumentProblem("navigate", { tabId: 1 })!;
  assertMatch(missing, /"url" is required \(string\)/);
  assertMatch(missing, /A correct call looks like: \{"url":"https:\/\/example.com","tabId":123\}/);
  assertMatch(
    catalog.argumentProblem("navigate", { url: 5, tabId: 1 })!,
    /"url" must be string, not integer/,
  );
  assertMatch(
    catalog.argumentProblem("computer", { action: "fly", tabId: 1 })!,
    /"action" must be one of "left_click", "right_click"/,
  );
  assertMatch(
    catalog.argumentProblem("computer", { action: "left_click", tabId: 1, coordinate: [1] })!,
    /"coordinate" must have at least 2 items/,
  );
  assertMatch(
    catalog.argumentProblem("computer", { action: "scroll", tabId: 1, scroll_amount: 11 })!,
    /"scroll_amount" must be at most 10/,
  );
  assertMatch(
    catalog.argumentProblem("tabs_create_mcp", { tabId: 1 })!,
    /"tabId" is not a parameter here \(this tool takes none\)/,
  );
  assertMatch(
    catalog.argumentProblem("get_page_text", { tabId: 1, maxChars: 5 })!,
    /"maxChars" is not a parameter here: did you mean "max_chars"\? \(known: tabId, max_chars\)/,
  );
  assertMatch(
    catalog.argumentProblem("update_plan", { domains: ["a", 3], approach: [] })!,
    /"domains\[1\]" must be string/,
  );
});

Deno.test("computer's argument errors show the called action and name a look-alike field", () => {
  const key = catalog.argumentProblem("computer", { action: "key", key: "Enter", tabId: 1 })!;
  assertMatch(key, /"key" is not a parameter here: did you mean "text"\?/);
  assertMatch(key, /A correct call looks like: \{"action":"key","text":"Enter","tabId":123\}/);
  assertMatch(
    catalog.argumentProblem("computer", { action: "wait", duration: 60, tabId: 1 })!,
    /"duration" must be at most 10[\s\S]*\{"action":"wait","duration":2,"tabId":123\}/,
  );
  assertMatch(
    catalog.argumentProblem("computer", {
      action: "scroll",
      scroll_direction: "sideways",
      tabId: 1,
    })!,
    /"scroll_direction" must be one of[\s\S]*\{"action":"scroll","coordinate"/,
  );
  assertMatch(
    catalog.argumentProblem("get_page_text", { tab_id: 1 })!,
    /"tabId" is required \(number\); "tab_id" is not a parameter: did you mean "tabId"\?/,
  );
});

Deno.test("dialog's text goes with respond only, and the problem names the condition", () => {
  assertEquals(catalog.argumentProblem("dialog", { tabId: 1, action: "accept" }), null);
  assertEquals(
    catalog.argumentProblem("dialog", { tabId: 1, action: "respond", text: "Ada" }),
    null,
  );
  assertMatch(
    catalog.argumentProblem("dialog", { tabId: 1, action: "respond" })!,
    /"text" is required when "action" is "respond"/,
  );
  assertMatch(
    catalog.argumentProblem("dialog", { tabId: 1, action: "accept", text: "x" })!,
    /"text" must not be given unless "action" is "respond"/,
  );
});

Deno.test("a parameter named like a property of every object is not a parameter", () => {
  for (const name of ["constructor", "toString", "hasOwnProperty"]) {
    assertMatch(
      catalog.argumentProblem("navigate", { url: "example.com", tabId: 1, [name]: 1 }) ?? "",
      new RegExp(`"${name}" is not a parameter here \\(known: url, tabId, force\\)`),
      name,
    );
  }
  // Nor does an action so named stand for one of the tool's rows: it needs every capability.
  assertEquals(
    new Set(catalog.capabilities("computer", { action: "constructor" })),
    new Set(catalog.capabilities("computer", { action: "no_such_action" })),
  );
});
