import { assertEquals } from "../tests/support/assert.ts";
import { readBrowserConnectorSettings } from "./settings.ts";

Deno.test("the browser connector reads only the instance", () => {
  assertEquals(readBrowserConnectorSettings(() => undefined), { instance: undefined });
  assertEquals(
    readBrowserConnectorSettings((key) => key === "GHOSTLIGHT_INSTANCE" ? "try" : "1"),
    { instance: "try" },
  );
});
