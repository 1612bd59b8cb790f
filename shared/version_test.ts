import { assertEquals } from "../tests/support/assert.ts";
import { VERSION } from "./version.ts";

Deno.test("the extension's manifest declares the version the executables report", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../extension/manifest.json", import.meta.url)),
  );
  assertEquals(manifest.version, VERSION, "set extension/manifest.json's version to VERSION");
});
