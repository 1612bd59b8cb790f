/**
 * The files issue 26 left outside `shared/files.ts` (decision 0339): the install receipt, the
 * extension's manifest, and the files `browser launch` writes into its throwaway profile. Each is
 * read or written only as a regular file of bounded size, never through a link, and a FIFO at its
 * name is refused at once instead of hanging the command.
 */

import { MAX_RECEIPT_BYTES, readReceipt } from "../service/install/receipt.ts";
import { EXTENSION_FILES, readExtension } from "../service/install/extension.ts";
import { prepareExtension } from "../service/cli/launch.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";

async function fifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert(made.success, "mkfifo");
}

Deno.test("the install receipt is read only as a regular file of bounded size", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-receipt-" });
  try {
    const elsewhere = `${dir}/elsewhere.json`;
    await Deno.writeTextFile(elsewhere, "{}");
    await Deno.symlink(elsewhere, `${dir}/linked.json`);
    assertMatch(String(await readReceipt(`${dir}/linked.json`)), /is a symbolic link/);
    await fifo(`${dir}/fifo.json`);
    assertMatch(String(await readReceipt(`${dir}/fifo.json`)), /is a FIFO/);
    await Deno.writeTextFile(`${dir}/huge.json`, " ".repeat(MAX_RECEIPT_BYTES + 1));
    assertMatch(
      String(await readReceipt(`${dir}/huge.json`)),
      /more than the \d+ this file may be/,
    );
    assertEquals(await readReceipt(`${dir}/absent.json`), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A folder holding the built extension's files, each copied from the repository's. */
async function builtExtension(dir: string): Promise<void> {
  await Deno.mkdir(`${dir}/dist`, { recursive: true });
  for (const file of EXTENSION_FILES) {
    await Deno.copyFile(`${ROOT}/extension/${file}`, `${dir}/${file}`);
  }
}

Deno.test("the extension's manifest is never read through a link, nor from a FIFO", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-manifest-" });
  try {
    await builtExtension(`${dir}/good`);
    assertEquals((await readExtension(`${dir}/good`)).version.length > 0, true);
    await builtExtension(`${dir}/linked`);
    await Deno.remove(`${dir}/linked/manifest.json`);
    await Deno.symlink(`${dir}/good/manifest.json`, `${dir}/linked/manifest.json`);
    await assertRejects(() => readExtension(`${dir}/linked`), /is a symbolic link/);
    await builtExtension(`${dir}/fifo`);
    await Deno.remove(`${dir}/fifo/manifest.json`);
    await fifo(`${dir}/fifo/manifest.json`);
    await assertRejects(() => readExtension(`${dir}/fifo`), /is a FIFO/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("browser launch writes its profile's files only as regular files, never through a link", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-profile-" });
  try {
    await builtExtension(`${dir}/source`);
    const outside = `${dir}/outside.json`;
    await Deno.writeTextFile(outside, "untouched");
    await Deno.mkdir(`${dir}/target`);
    await Deno.symlink(outside, `${dir}/target/config.json`);
    await assertRejects(
      () => prepareExtension(`${dir}/target`, { host: "h" }, `${dir}/source`),
      /is a symbolic link/,
    );
    assertEquals(await Deno.readTextFile(outside), "untouched", "nothing written through the link");
    // A fresh folder: written, owner-only.
    const id = await prepareExtension(`${dir}/fresh`, { host: "h" }, `${dir}/source`);
    assertMatch(id, /^[a-p]{32}$/);
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/fresh/config.json`)), { host: "h" });
    assertEquals((await Deno.stat(`${dir}/fresh/config.json`)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
