import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { waitFor } from "../../tests/support/wait.ts";
import {
  MAX_WORKSPACES_PER_CONNECTION,
  type Workspace,
  WorkspaceHolds,
  WorkspaceRegistry,
} from "./mod.ts";

/** Holds with a short grace, recording whose tabs were given back. */
function makeHolds(graceMs = 20) {
  const workspaces = new WorkspaceRegistry();
  const tabsReleased: string[] = [];
  const holds = new WorkspaceHolds(workspaces, {
    graceMs,
    releaseTabs: (workspace: Workspace) => tabsReleased.push(workspace.id),
  });
  const exists = (id: string) => workspaces.get(id) !== undefined;
  return { workspaces, holds, tabsReleased, exists };
}

Deno.test("a workspace outlives a lost holder while another connection still holds it", async () => {
  const { holds, tabsReleased, exists } = makeHolds();
  const first = holds.connect();
  const second = holds.connect();
  const shared = holds.open(first, "a").id;
  const own = holds.open(first, "a").id;
  holds.hold(second, shared);
  holds.disconnect(first);
  // Both would have started equal grace timers together, the shared one first: once the
  // connection's own workspace is gone, a timer on the shared one would have fired too.
  await waitFor(() => Promise.resolve(!exists(own)), "the lost connection's own workspace to go");
  assert(exists(shared), "a workspace another connection holds was released");
  assertEquals(tabsReleased, [own]);
  holds.disconnect(second);
  await waitFor(() => Promise.resolve(!exists(shared)), "the last holder's workspace to go");
  assertEquals(tabsReleased, [own, shared]);
});

Deno.test("naming an orphaned workspace again takes it back from its grace period", async () => {
  const { holds, exists } = makeHolds();
  const lost = holds.connect();
  const kept = holds.open(lost, "a").id;
  const witness = holds.open(lost, "a").id;
  holds.disconnect(lost);
  const reconnected = holds.connect();
  holds.hold(reconnected, kept);
  await waitFor(() => Promise.resolve(!exists(witness)), "the unclaimed workspace to go");
  assert(exists(kept), "a workspace taken back was released anyway");
  holds.disconnect(reconnected);
  holds.close();
});

Deno.test("an explicit release goes at once, whoever else holds the workspace", () => {
  const { holds, tabsReleased, exists } = makeHolds();
  const first = holds.connect();
  const second = holds.connect();
  const id = holds.open(first, "a").id;
  holds.hold(second, id);
  holds.release(second, id);
  assert(!exists(id));
  assertEquals(tabsReleased, [id]);
  assert(!holds.holds(second, id));
  holds.disconnect(first);
  holds.disconnect(second);
  holds.close();
});

Deno.test("a connection is full at its cap; holding one it holds already costs nothing", () => {
  const { holds } = makeHolds();
  const holder = holds.connect();
  const ids: string[] = [];
  for (let n = 0; n < MAX_WORKSPACES_PER_CONNECTION; n++) {
    assert(!holds.isFull(holder));
    ids.push(holds.open(holder, "a").id);
  }
  assert(holds.isFull(holder));
  holds.hold(holder, ids[0]);
  assert(holds.holds(holder, ids[0]));
  holds.disconnect(holder);
  let thrown: unknown;
  try {
    holds.isFull(holder);
  } catch (error) {
    thrown = error;
  }
  assertMatch(String(thrown), /not connected/);
  holds.close();
});

Deno.test("closing the holds cancels pending grace releases and starts no more", () => {
  // A grace long enough that only close() can end its timer before the test does.
  const { holds, exists } = makeHolds(60_000);
  const first = holds.connect();
  const second = holds.connect();
  const early = holds.open(first, "a").id;
  const late = holds.open(second, "a").id;
  holds.disconnect(first);
  holds.close();
  holds.disconnect(second);
  assert(exists(early) && exists(late));
});

Deno.test("a grace release waits for the call running in the workspace", async () => {
  const workspaces = new WorkspaceRegistry();
  const running = new Map<string, PromiseWithResolvers<void>>();
  const graceEnded: string[] = [];
  const holds = new WorkspaceHolds(workspaces, {
    graceMs: 10,
    releaseTabs: () => {},
    untilSettled: (id) => {
      const call = running.get(id);
      if (!call) return null;
      graceEnded.push(id);
      return call.promise;
    },
  });
  const lost = holds.connect();
  const pinned = holds.open(lost, "a").id;
  const retaken = holds.open(lost, "a").id;
  for (const id of [pinned, retaken]) running.set(id, Promise.withResolvers());
  holds.disconnect(lost);
  await waitFor(() => Promise.resolve(graceEnded.length === 2), "both grace periods to end");
  assert(workspaces.get(pinned) && workspaces.get(retaken), "released under a running call");
  // Taken back while its call runs: the release that waited is off.
  const back = holds.connect();
  holds.hold(back, retaken);
  for (const id of [pinned, retaken]) {
    running.get(id)!.resolve();
    running.delete(id);
  }
  await waitFor(() => Promise.resolve(!workspaces.get(pinned)), "the settled workspace to go");
  assert(workspaces.get(retaken), "a workspace taken back was released once its call settled");
  holds.disconnect(back);
  holds.close();
});
