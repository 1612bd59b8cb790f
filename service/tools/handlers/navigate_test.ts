import { assert, assertEquals } from "../../../tests/support/assert.ts";
import type { TabTarget } from "../core/target.ts";
import { TabState } from "../../browser/mod.ts";
import { LoadWatch, waitForLoad } from "./navigate.ts";

/** A tab whose readyState looks answer with `ready` (or never, when it is null). */
function fakeTab(ready: string | null) {
  let looks = 0;
  let asked: () => void = () => {};
  const firstLook = new Promise<void>((resolve) => asked = resolve);
  const target = {
    tabId: 1,
    native: 1,
    link: {
      call: () => {
        looks++;
        asked();
        return ready === null
          ? new Promise(() => {})
          : Promise.resolve({ result: { value: ready } });
      },
    },
  } as unknown as TabTarget;
  return { target, firstLook, looks: () => looks };
}

Deno.test("a load event is not kept waiting behind a readyState look the busy page holds", async () => {
  const tab = fakeTab(null);
  let fire: (event: unknown) => void = () => {};
  const events = new Promise((resolve) => fire = resolve);
  const waited = waitForLoad(tab.target, {
    done: () => false,
    committed: () => true,
    blocked: () => false,
  }, events);
  await tab.firstLook;
  fire({ method: "Page.lifecycleEvent" });
  assertEquals(await waited, "complete");
});

Deno.test("an event waiter that ended without the load leaves the look to readyState", async () => {
  const tab = fakeTab("complete");
  const waited = await waitForLoad(tab.target, {
    done: () => false,
    committed: () => true,
    blocked: () => false,
  }, Promise.resolve(null));
  assertEquals(waited, "complete");
  assert(tab.looks() === 1, `one look, not a spin: ${tab.looks()}`);
});

Deno.test("a history move ends when the page comes back from the back/forward cache", async () => {
  const state = new TabState();
  const watch = new LoadWatch(state);
  watch.expected = null;
  try {
    state.apply({
      method: "Page.frameNavigated",
      params: { frame: { id: "main" }, type: "BackForwardCacheRestore" },
    });
    assert(await watch.event, "the restore ends the wait");
    assertEquals(await watch.commit, true);
  } finally {
    watch.stop.abort();
  }
});

Deno.test("a URL navigation still waits for its own document's load", async () => {
  const state = new TabState();
  const watch = new LoadWatch(state);
  watch.expected = "new";
  try {
    state.apply({ method: "Page.frameNavigated", params: { frame: { id: "main" } } });
    state.apply({ method: "Page.lifecycleEvent", params: { name: "load", loaderId: "old" } });
    assert(!watch.done(), "another document's load does not count");
    state.apply({ method: "Page.lifecycleEvent", params: { name: "load", loaderId: "new" } });
    assert(await watch.event, "its load ends the wait");
    assert(watch.done());
  } finally {
    watch.stop.abort();
  }
});
