import { assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { ensureOwnedDir } from "./owned_dir.ts";

Deno.test("an owned folder is made 0700; one open to others or a symlink is refused", async () => {
  const root = await Deno.makeTempDir();
  try {
    await ensureOwnedDir(`${root}/fresh`);
    assertEquals((await Deno.stat(`${root}/fresh`)).mode! & 0o777, 0o700);

    await Deno.mkdir(`${root}/open`);
    await Deno.chmod(`${root}/open`, 0o755);
    await assertRejects(() => ensureOwnedDir(`${root}/open`), /open to other users.*chmod 700/);

    await Deno.symlink(`${root}/fresh`, `${root}/link`);
    await assertRejects(() => ensureOwnedDir(`${root}/link`), /symbolic link/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
