import { resolveInstancePaths } from "../../shared/instance.ts";
import { assert } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { readServiceSettings } from "../settings.ts";
import { startDaemon } from "./start_daemon.ts";

Deno.test("a connection still in its hello keeps an idle service from exiting", async () => {
  const testEnv = await makeTestEnv("idl");
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const settings = { ...readServiceSettings(() => undefined), idleExitMs: 300 };
  const daemon = await startDaemon(paths, { settings, exitWhenIdle: true, logToStderr: false });
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
