import { assertEquals } from "../../../tests/support/assert.ts";
import { toBool } from "./on_off.ts";

Deno.test("an agent's value reads as on, off, or neither", () => {
  const cases: [unknown, boolean | null][] = [
    [true, true],
    [1, true],
    [" Yes ", true],
    ["checked", true],
    [false, false],
    [0, false],
    ["", false],
    ["Unchecked", false],
    ["mixed", null],
    ["Express", null],
    [2, null],
  ];
  assertEquals(cases.map(([value]) => toBool(value)), cases.map(([, want]) => want));
});
