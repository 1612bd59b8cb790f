import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { configureLog, log } from "./log.ts";

Deno.test("the log file is owner-only, one line per event, and rotated past 4 MiB", async () => {
  const root = await Deno.makeTempDir();
  const file = `${root}/service.log`;
  try {
    configureLog({ file, stderr: false });
    log("info", "first");
    assertMatch(await Deno.readTextFile(file), /^\d{4}-\d\d-\d\dT[\d:.]+Z info first\n$/);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);

    await Deno.writeTextFile(file, "x".repeat(4 * 1024 * 1024 + 1));
    log("warn", "after rotation");
    assert((await Deno.stat(`${file}.1`)).size > 4 * 1024 * 1024, "the full log moved to .1");
    assertMatch(await Deno.readTextFile(file), /^\S+ warn after rotation\n$/);
  } finally {
    configureLog({ file: null, stderr: true });
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("logging never throws, even when its file cannot be written", () => {
  configureLog({ file: "/nonexistent-folder/service.log", stderr: false });
  try {
    log("error", "nowhere to go");
  } finally {
    configureLog({ file: null, stderr: true });
  }
});
