import { assertEquals } from "../../tests/support/assert.ts";
import { HostPattern } from "./hosts.ts";
import { BUILT_IN_SACRED } from "./sacred.ts";

Deno.test("the built-in sacred sites are valid host patterns, each named in the README", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("**Sacred sites**"));
  for (const entry of BUILT_IN_SACRED) {
    assertEquals(HostPattern.parse(entry), entry);
  }
  assertEquals(BUILT_IN_SACRED.filter((entry) => !section.includes(entry)), []);
});
