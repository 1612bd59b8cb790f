import { assertEquals } from "../../tests/support/assert.ts";
import { cdpFailureKind } from "./cdp_words.ts";

Deno.test("Chrome's words for a gone document, frame or session become context_lost", () => {
  for (
    const message of [
      '{"code":-32000,"message":"Cannot find context with specified id"}',
      '{"code":-32000,"message":"Execution context was destroyed."}',
      '{"code":-32000,"message":"Inspected target navigated or closed"}',
      '{"code":-32000,"message":"No frame with given id found"}',
      '{"code":-32001,"message":"Session with given id not found."}',
    ]
  ) assertEquals(cdpFailureKind(message), "context_lost", message);
});

Deno.test("a missing tab is no_such_tab, and any other failure stays cdp_error", () => {
  assertEquals(cdpFailureKind("No tab with given id 7."), "no_such_tab");
  assertEquals(cdpFailureKind('{"code":-32602,"message":"Invalid parameters"}'), "cdp_error");
  assertEquals(cdpFailureKind("Uncaught ReferenceError: x is not defined"), "cdp_error");
});
