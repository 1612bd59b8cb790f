import { resolveInstancePaths } from "../../shared/instance.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { idleExitMsFromEnv } from "../cli/mod.ts";
import { startDaemon } from "./mod.ts";

Deno.test("a connection still in its hello keeps an idle service from exiting", async () => {
  const testEnv = await makeTestEnv("idl");
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const daemon = await startDaemon(paths, { idleExitMs: 300, logToStderr: false });
  let stopped = false;
  daemon.finished.then(() => stopped = true);
  try {
    // A connector that has connected but not yet said hello: about to become a session.
    const conn = await Deno.connect({ transport: "unix", path: paths.bridgeSocket });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert(!stopped, "the service exited under a connecting client");
    conn.close();
    const deadline = Date.now() + 10_000;
    while (!stopped && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert(stopped, "the service exits once the connection is gone and it is idle again");
  } finally {
    await daemon.stop();
    await testEnv.dispose();
  }
});

Deno.test("an unparseable idle setting means the default, never 'never exit'", () => {
  assertEquals(idleExitMsFromEnv("1500"), 1500);
  for (const raw of [undefined, "", "abc", "-5", "0", "1.5", "Infinity"]) {
    assertEquals(idleExitMsFromEnv(raw), 30_000, String(raw));
  }
});
