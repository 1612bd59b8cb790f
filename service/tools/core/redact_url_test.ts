import { assertEquals } from "../../../tests/support/assert.ts";
import { displayUrl, redactUrl } from "./redact_url.ts";

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

Deno.test("displayUrl redacts and bounds a URL a page made long", () => {
  const shown = displayUrl(`https://a.test/${"x".repeat(5000)}?session_id=abc`);
  assertEquals(shown.length, 2001);
  assertEquals(
    displayUrl("https://u:pw@a.test/?token=t1"),
    "https://u:[redacted]@a.test/?token=[redacted]",
  );
});

Deno.test("a password a GET form put in the URL is redacted by its field name", () => {
  assertEquals(
    redactUrl("http://127.0.0.1:8/search?email=a%40b.com&pw=hunter2secret"),
    "http://127.0.0.1:8/search?email=a%40b.com&pw=[redacted]",
  );
  assertEquals(
    redactUrl("https://a.test/?user_password=x&passcode=1&pin=1234&compass=north"),
    "https://a.test/?user_password=[redacted]&passcode=[redacted]&pin=[redacted]&compass=north",
  );
});
