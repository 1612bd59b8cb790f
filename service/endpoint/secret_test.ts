import { SECRET_BYTES } from "../../shared/proof.ts";
import { assertEquals } from "../../tests/support/assert.ts";
import { ensureSecret } from "./secret.ts";

Deno.test("the secret is made once, owner-only, and read back the same after", async () => {
  const root = await Deno.makeTempDir();
  try {
    const made = await ensureSecret(`${root}/secret`);
    assertEquals(made.length, SECRET_BYTES);
    assertEquals((await Deno.stat(`${root}/secret`)).mode! & 0o777, 0o600);
    assertEquals([...await ensureSecret(`${root}/secret`)], [...made]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
