import { assertEquals } from "../../../tests/support/assert.ts";
import { plainCdpError } from "./errors.ts";

Deno.test("a CDP error is shown as its message, without the protocol's JSON", () => {
  assertEquals(
    plainCdpError(
      'Page.getNavigationHistory: {"code":-32000,"message":"Not attached to an active page"}',
    ),
    "Not attached to an active page (Page.getNavigationHistory)",
  );
  assertEquals(plainCdpError("cannot attach to tab 5: gone"), "cannot attach to tab 5: gone");
  assertEquals(plainCdpError("Page.navigate: {not json}"), "Page.navigate: {not json}");
});
