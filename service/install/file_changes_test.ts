import { assertEquals } from "../../tests/support/assert.ts";
import { FileChanges, readText } from "./file_changes.ts";

Deno.test("a dry run lists changes and makes none; a write that changes nothing is skipped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gl-changes-" });
  try {
    const dry = new FileChanges({ dryRun: true });
    await dry.ensureDir(`${dir}/a/b`);
    await dry.writeFile(`${dir}/a/b/f`, "x", 0o644);
    await dry.ensureDir(`${dir}/a/b`);
    await dry.ensureDir(`${dir}/a/c`);
    assertEquals(dry.changes.map((c) => [c.action, c.path.slice(dir.length)]), [
      ["mkdir", "/a"],
      ["mkdir", "/a/b"],
      ["create", "/a/b/f"],
      ["mkdir", "/a/c"],
    ], "each folder a dry run would make is listed once");
    assertEquals(await readText(`${dir}/a/b/f`), null);

    const real = new FileChanges({ dryRun: false });
    await real.ensureDir(`${dir}/a/b`);
    await real.writeFile(`${dir}/a/b/f`, "x", 0o644);
    const again = new FileChanges({ dryRun: false });
    await again.ensureDir(`${dir}/a/b`);
    await again.writeFile(`${dir}/a/b/f`, "x", 0o644);
    await again.writeFile(`${dir}/a/b/s`, "#!/bin/sh\n", 0o700, { whole: true });
    await again.writeFile(`${dir}/a/b/s`, "#!/bin/sh\n", 0o700, { whole: true });
    assertEquals(again.changes.map((c) => c.action), ["create"]);
    const names: string[] = [];
    for await (const entry of Deno.readDir(`${dir}/a/b`)) names.push(entry.name);
    assertEquals(names.sort(), ["f", "s"], "a whole write leaves no temporary file");
    await again.writeFile(`${dir}/a/b/f`, "x", 0o600);
    assertEquals(again.changes.map((c) => c.action), ["create", "update"], "a mode change is one");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
