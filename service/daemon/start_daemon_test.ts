import { resolveInstancePaths } from "../../shared/instance.ts";
import { assert } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { readServiceSettings } from "../settings.ts";
import { startDaemon } from "./start_daemon.ts";

/** Settings with a short idle period, otherwise the defaults. */
const SETTINGS = { ...readServiceSettings(() => undefined), idleExitMs: 300 };

/** Starts an idle-exiting service on an instance of its own. */
async function startIdleService(prefix: string) {
  const testEnv = await makeTestEnv(prefix);
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const daemon = await startDaemon(paths, {
    settings: SETTINGS,
    exitWhenIdle: true,
    logToStderr: false,
  });
  let stopped = false;
  daemon.finished.then(() => stopped = true);
  return {
    paths,
    stopped: () => stopped,
    async close() {
      await daemon.stop();
      await testEnv.dispose();
    },
  };
}

/** Starts a service with nothing ever connecting to it and waits for its idle exit. */
async function idleTwin(): Promise<void> {
  const twin = await startIdleService("twn");
  try {
    await waitFor(() => Promise.resolve(twin.stopped()), "an idle service to exit");
  } finally {
    await twin.close();
  }
}

Deno.test("a connection still in its hello keeps an idle service from exiting", async () => {
  const service = await startIdleService("idl");
  try {
    // A connector that has connected but not yet said hello: about to become a session.
    const conn = await Deno.connect({ transport: "unix", path: service.paths.bridgeSocket });
    // Proof that the service's idle check has run after its idle period, on this process's own
    // clock: a twin started later has exited idle, so the period is over for this one too; and
    // a second twin exits no sooner than its second check, by which time this service (whose
    // timers fire in deadline order with the twins') has checked again.
    await idleTwin();
    await idleTwin();
    // Still listening: stopping closes the listeners before anything else.
    const another = await Deno.connect({ transport: "unix", path: service.paths.bridgeSocket })
      .catch(() => null);
    assert(another !== null && !service.stopped(), "the service exited under a connecting client");
    another.close();
    conn.close();
    await waitFor(
      () => Promise.resolve(service.stopped()),
      "the service to exit once the connection is gone and it is idle again",
    );
  } finally {
    await service.close();
  }
});
