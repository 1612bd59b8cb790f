import { documentedRows, SETTINGS_DOC, settingsRows } from "../shared/settings_doc.ts";
import { assertEquals } from "../tests/support/assert.ts";
import { BrowserConnectorSettings, readBrowserConnectorSettings } from "./settings.ts";

Deno.test("the browser connector reads only the instance", () => {
  assertEquals(readBrowserConnectorSettings(() => undefined), { instance: undefined });
  assertEquals(
    readBrowserConnectorSettings((key) => key === "GHOSTLIGHT_INSTANCE" ? "try" : "1"),
    { instance: "try" },
  );
});

Deno.test("docs/settings.md lists the browser connector's settings as the schema declares them", async () => {
  assertEquals(
    documentedRows(await Deno.readTextFile(SETTINGS_DOC), "browser-connector"),
    settingsRows(BrowserConnectorSettings),
    "docs/settings.md disagrees with browser_connector/settings.ts; run " +
      "'deno run -A scripts/settings_doc.ts'",
  );
});
