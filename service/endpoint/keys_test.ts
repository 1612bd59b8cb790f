import { resolveInstancePaths } from "../../shared/instance.ts";
import { KEY_BYTES } from "../../shared/proof.ts";
import { assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { controlKey, ensureKeys } from "./keys.ts";

async function instanceIn(root: string) {
  const paths = resolveInstancePaths("keys", (key) => key === "HOME" ? root : undefined);
  await Deno.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  return paths;
}

Deno.test("each role's key is made once, owner-only, and read back the same after", async () => {
  const root = await Deno.makeTempDir();
  try {
    const paths = await instanceIn(root);
    const made = await ensureKeys(paths);
    for (const file of Object.values(paths.keys)) {
      const info = await Deno.stat(file);
      assertEquals(info.mode! & 0o777, 0o600, file);
      assertEquals(info.size, KEY_BYTES, file);
    }
    const again = await ensureKeys(paths);
    assertEquals([...again.roles.mcp], [...made.roles.mcp]);
    assertEquals([...again.roles.browser], [...made.roles.browser]);
    assertEquals([...again.control], [...made.control]);
    assertEquals([...again.audit], [...made.audit]);
    assertEquals([...await controlKey(paths.keys)], [...made.control]);
    // Every key differs from every other.
    const all = [made.roles.mcp, made.roles.browser, made.control, made.audit].map((key) =>
      [...key].join(",")
    );
    assertEquals(new Set(all).size, all.length);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an older instance's shared secret is removed and no key is taken from it", async () => {
  const root = await Deno.makeTempDir();
  try {
    const paths = await instanceIn(root);
    const old = crypto.getRandomValues(new Uint8Array(KEY_BYTES));
    await Deno.writeFile(paths.legacySecretFile, old, { mode: 0o600 });
    let told = 0;
    const keys = await ensureKeys(paths, { onRemovedLegacy: () => told++ });
    assertEquals(told, 1);
    await assertRejects(() => Deno.stat(paths.legacySecretFile), /No such file/);
    for (const file of Object.values(paths.keys)) {
      assertEquals((await Deno.readFile(file)).join(",") === old.join(","), false, file);
    }
    assertEquals(keys.roles.mcp.join(",") === old.join(","), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a key others can read is refused, not used", async () => {
  const root = await Deno.makeTempDir();
  try {
    const paths = await instanceIn(root);
    await ensureKeys(paths);
    await Deno.chmod(paths.keys.browser, 0o644);
    await assertRejects(() => ensureKeys(paths), /readable by other users/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
