import { assertEquals } from "../../tests/support/assert.ts";
import { FileChanges, readText } from "./file_changes.ts";

Deno.test("a dry run lists changes and makes none; a write that changes nothing is skipped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gl-changes-" });
  try {
    const dry = new FileChanges({ dryRun: true });
    await dry.ensureDir(`${dir}/a/b`);
    await dry.writeFile(`${dir}/a/b/f`, "x", 0o644);
    assertEquals(dry.changes.map((c) => [c.action, c.path.slice(dir.length)]), [
      ["mkdir", "/a"],
      ["mkdir", "/a/b"],
      ["create", "/a/b/f"],
    ]);
    assertEquals(await readText(`${dir}/a/b/f`), null);

    const real = new FileChanges({ dryRun: false });
    await real.ensureDir(`${dir}/a/b`);
    await real.writeFile(`${dir}/a/b/f`, "x", 0o644);
    const again = new FileChanges({ dryRun: false });
    await again.ensureDir(`${dir}/a/b`);
    await again.writeFile(`${dir}/a/b/f`, "x", 0o644);
    await again.symlink(`${dir}/l`, `${dir}/a/b/f`);
    await again.symlink(`${dir}/l`, `${dir}/a/b/f`);
    assertEquals(again.changes.map((c) => c.action), ["link"]);
    await again.writeFile(`${dir}/a/b/f`, "x", 0o600);
    assertEquals(again.changes.map((c) => c.action), ["link", "update"], "a mode change is one");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
