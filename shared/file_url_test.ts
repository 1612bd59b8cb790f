import { assertEquals, assertMatch } from "../tests/support/assert.ts";
import { pathOfFileUrl } from "./file_url.ts";

Deno.test("a file URL's path is decoded: a folder with a space is the folder itself", () => {
  assertEquals(
    pathOfFileUrl("file:///home/a/Claude%20Extensions/ghostlight/app/"),
    "/home/a/Claude Extensions/ghostlight/app/",
  );
  assertEquals(pathOfFileUrl(new URL("file:///srv/50%25%20off/x.ts")), "/srv/50% off/x.ts");
  assertEquals(pathOfFileUrl("file:///C:/Users/a%20b/deno.json"), "C:/Users/a b/deno.json");
  let refused = "";
  try {
    pathOfFileUrl("https://example.com/x");
  } catch (error) {
    refused = (error as Error).message;
  }
  assertMatch(refused, /is not a file: URL/);
});
