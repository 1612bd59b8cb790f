import { assertEquals } from "../../tests/support/assert.ts";
import { redactUrl } from "./redact_url.ts";

Deno.test("credential query values and URL passwords are redacted, the rest kept", () => {
  assertEquals(
    redactUrl("https://api.test/v1/items?page=2&access_token=abc123&q=fog"),
    "https://api.test/v1/items?page=2&access_token=[redacted]&q=fog",
  );
  assertEquals(redactUrl("https://user:hunter2@db.test/x"), "https://user:[redacted]@db.test/x");
  assertEquals(
    redactUrl("https://a.test/?key=1&monkey=2"),
    "https://a.test/?key=[redacted]&monkey=2",
  );
  assertEquals(redactUrl("http://127.0.0.1:8080/data.json"), "http://127.0.0.1:8080/data.json");
  assertEquals(redactUrl("not a url"), "not a url");
});
