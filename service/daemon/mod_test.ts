import { resolveInstancePaths } from "../../shared/instance.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { idleExitMsFromEnv } from "../cli/mod.ts";
import { startDaemon } from "./mod.ts";

const IDLE_EXIT_MS = 300;

/** Starts a service with nothing ever connecting to it and waits for its idle exit. */
async function idleTwin(): Promise<void> {
  const testEnv = await makeTestEnv("twn");
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const daemon = await startDaemon(paths, { idleExitMs: IDLE_EXIT_MS, logToStderr: false });
  let stopped = false;
  daemon.finished.then(() => stopped = true);
  try {
    await waitFor(() => Promise.resolve(stopped), "an idle service to exit");
  } finally {
    await daemon.stop();
    await testEnv.dispose();
  }
}

Deno.test("a connection still in its hello keeps an idle service from exiting", async () => {
  const testEnv = await makeTestEnv("idl");
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const daemon = await startDaemon(paths, { idleExitMs: IDLE_EXIT_MS, logToStderr: false });
  let stopped = false;
  daemon.finished.then(() => stopped = true);
  try {
    // A connector that has connected but not yet said hello: about to become a session.
    const conn = await Deno.connect({ transport: "unix", path: paths.bridgeSocket });
    // Proof that the service's idle check has run after its idle period, on this process's own
    // clock: a twin started later has exited idle, so the period is over for this one too; and
    // a second twin exits no sooner than its second check, by which time this service (whose
    // timers fire in deadline order with the twins') has checked again.
    await idleTwin();
    await idleTwin();
    // Still listening: stopping closes the listeners before anything else.
    const another = await Deno.connect({ transport: "unix", path: paths.bridgeSocket })
      .catch(() => null);
    assert(another !== null && !stopped, "the service exited under a connecting client");
    another.close();
    conn.close();
    await waitFor(
      () => Promise.resolve(stopped),
      "the service to exit once the connection is gone and it is idle again",
    );
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
