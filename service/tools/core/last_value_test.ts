import { assertEquals } from "../../../tests/support/assert.ts";
import { rememberLast } from "./last_value.ts";
import { displayUrl, redactUrl } from "./redact_url.ts";
import { originOf } from "./fence.ts";

Deno.test("the last answer is given again for the same argument, any other is computed", () => {
  const asked: string[] = [];
  const upper = rememberLast((raw) => {
    asked.push(raw);
    return raw.toUpperCase();
  });
  assertEquals([upper("a"), upper("a"), upper("b"), upper("a")], ["A", "A", "B", "A"]);
  assertEquals(asked, ["a", "b", "a"]);
});

Deno.test("remembered URLs are shown and judged as if computed afresh", () => {
  const secret = "https://user:pw@example.com/a?token=abc&q=1";
  const plain = "https://example.com/b";
  for (const url of [secret, secret, plain, secret, "not a url", "not a url"]) {
    assertEquals(displayUrl(url), redactUrl(url));
  }
  assertEquals([originOf(secret), originOf(plain), originOf(secret)], [
    "https://example.com",
    "https://example.com",
    "https://example.com",
  ]);
  assertEquals([originOf("about:blank"), originOf("about:blank"), originOf("::")], [
    "about:",
    "about:",
    "unknown",
  ]);
});
