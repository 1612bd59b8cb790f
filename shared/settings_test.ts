import { z } from "zod";
import { assertEquals, assertRejects } from "../tests/support/assert.ts";
import { durationMs, instanceSetting, MAX_TIMER_MS, readSettings } from "./settings.ts";
import { documentedRows, settingsRows, settingsTable, withSection } from "./settings_doc.ts";

const Example = z.object({
  instance: instanceSetting(),
  waitMs: durationMs("GHOSTLIGHT_EXAMPLE_WAIT_MS", { default: 1_000, description: "a wait" }),
});

Deno.test("a duration is a whole number of milliseconds within a timer's reach, else the default", () => {
  const wait = (raw: string | undefined) =>
    readSettings(Example, (key) => key === "GHOSTLIGHT_EXAMPLE_WAIT_MS" ? raw : undefined).waitMs;
  assertEquals(wait("250"), 250);
  assertEquals(wait(" 250 "), 250);
  assertEquals(wait(String(MAX_TIMER_MS)), MAX_TIMER_MS);
  for (const raw of [undefined, "", " ", "abc", "-5", "0", "1.5", "Infinity", "NaN"]) {
    assertEquals(wait(raw), 1_000, String(raw));
  }
  assertEquals(wait(String(MAX_TIMER_MS + 1)), 1_000);
});

Deno.test("the instance is passed through as given; parseInstance judges it", () => {
  const read = (raw: string) =>
    readSettings(Example, (key) => key === "GHOSTLIGHT_INSTANCE" ? raw : undefined).instance;
  assertEquals(read("try"), "try");
  assertEquals(read("Not Valid"), "Not Valid");
});

Deno.test("a field without its variable's name cannot be read", async () => {
  const bare = z.object({ bare: z.string().optional() });
  await assertRejects(
    () => Promise.resolve().then(() => readSettings(bare, () => undefined)),
    /env/,
  );
});

Deno.test("a table is rendered from the schema and read back from the page by its cells", async () => {
  assertEquals(settingsRows(Example), [
    ["`GHOSTLIGHT_INSTANCE`", "unset", "—", settingsRows(Example)[0][3]],
    ["`GHOSTLIGHT_EXAMPLE_WAIT_MS`", "1 000 ms", "1 to 2 147 483 647 ms", "a wait"],
  ]);
  const page = "# T\n\n<!-- settings:x -->\nstale\n<!-- /settings:x -->\n";
  const updated = withSection(page, "x", settingsTable(Example));
  assertEquals(documentedRows(updated, "x"), settingsRows(Example));
  // Padding as `deno fmt` aligns a table changes nothing.
  assertEquals(documentedRows(updated.replaceAll(" | ", "   |   "), "x"), settingsRows(Example));
  assertEquals(documentedRows(page, "y"), null);
  await assertRejects(
    () => Promise.resolve().then(() => withSection(page, "y", "")),
    /no <!-- settings:y -->/,
  );
});
