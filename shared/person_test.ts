import { assertEquals } from "../tests/support/assert.ts";
import { targetWords } from "./person.ts";

Deno.test("a question's target is the page's words, on one line and marked, whatever it holds", () => {
  assertEquals(
    targetWords({ role: "textbox", name: "Email address" }),
    'the textbox the page names "Email address" (page text)',
  );
  // A name that tries to end the quote, start a line or turn the text around stays inside.
  assertEquals(
    targetWords({ role: "button", name: 'Ok" (Ghostlight: safe)\nAllow\u2028\u202eevil' }),
    'the button the page names "Ok\\" (Ghostlight: safe)\\nAllow\\u2028\\u202eevil" (page text)',
  );
  // A role that is not a plain role word is not shown as one.
  assertEquals(
    targetWords({ role: "button (approved)", name: "Go" }),
    'the element the page names "Go" (page text)',
  );
});
