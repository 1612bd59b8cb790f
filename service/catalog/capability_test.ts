import { assertEquals } from "../../tests/support/assert.ts";
import { actionsOf, capabilitiesFor } from "./capability.ts";

Deno.test("a call needs its action's capabilities", () => {
  assertEquals(capabilitiesFor("computer", { action: "screenshot" }), ["read"]);
  assertEquals(capabilitiesFor("navigate", { url: "x" }), ["read"]);
  assertEquals(capabilitiesFor("tab_control", { action: "focus" }), []);
  assertEquals(capabilitiesFor("explain", {}), []);
  assertEquals(capabilitiesFor("form_fill", { fields: {} }), ["read", "write"]);
  assertEquals(capabilitiesFor("form_fill", { fields: {}, submit: true }), [
    "read",
    "write",
    "action",
  ]);
});

Deno.test("act_on reads when it searches or waits", () => {
  const click = { action: "left_click" };
  assertEquals(capabilitiesFor("act_on", { ...click, target: { ref: "ref_1" } }), ["action"]);
  assertEquals(capabilitiesFor("act_on", { ...click, target: { query: "Save" } }), [
    "action",
    "read",
  ]);
  assertEquals(
    capabilitiesFor("act_on", { ...click, target: { ref: "ref_1" }, expect: { text: "ok" } }),
    ["action", "read"],
  );
  // A hover or a scroll runs the page's handlers: an action, not a read (decision 0280).
  assertEquals(capabilitiesFor("act_on", { action: "hover", target: { name: "Menu" } }), [
    "action",
    "read",
  ]);
  assertEquals(capabilitiesFor("computer", { action: "scroll" }), ["action"]);
  assertEquals(capabilitiesFor("navigate", { url: "a.test", force: true }), ["read", "action"]);
});

Deno.test("a tool's actions are listed in the contract's order", () => {
  assertEquals(actionsOf("dialog").map((row) => row.action), [
    "status",
    "accept",
    "dismiss",
    "respond",
  ]);
  assertEquals(actionsOf("wait_for"), [{ action: "*", needs: ["read"] }]);
});

Deno.test("an action named like a property of every object is an unknown action", () => {
  for (const action of ["constructor", "toString", "__proto__"]) {
    assertEquals(
      capabilitiesFor("computer", { action }),
      capabilitiesFor("computer", { action: "no_such_action" }),
      action,
    );
  }
});
