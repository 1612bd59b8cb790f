import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { TabState } from "../../browser/mod.ts";
import { LANDED_BINDING } from "../page/landed_facts.ts";
import { chordEvents, parseChords } from "./input.ts";
import { mayPipeline, NavigationWatch } from "./send.ts";

function mouse(type: string, extra: Record<string, unknown> = {}) {
  return { method: "Input.dispatchMouseEvent", params: { type, x: 10, y: 20, ...extra } };
}

Deno.test("a click's and a key chord's events go out pipelined", () => {
  const press = { button: "left", clickCount: 1 };
  assert(mayPipeline([mouse("mouseMoved"), mouse("mousePressed", press), mouse("mouseReleased")]));
  assert(mayPipeline([
    mouse("mouseMoved"),
    mouse("mousePressed", press),
    mouse("mouseReleased", press),
    mouse("mousePressed", { ...press, clickCount: 2 }),
    mouse("mouseReleased", { ...press, clickCount: 2 }),
  ]));
  assert(mayPipeline(chordEvents(parseChords("ctrl+a Delete"))));
});

Deno.test("a drag, a wheel and anything but input wait for each event", () => {
  const press = { button: "left", buttons: 1, clickCount: 1 };
  assert(
    !mayPipeline([
      mouse("mouseMoved"),
      mouse("mousePressed", press),
      mouse("mouseMoved", { button: "left", buttons: 1 }),
      mouse("mouseReleased", press),
    ]),
  );
  assert(!mayPipeline([mouse("mouseWheel", { deltaX: 0, deltaY: 100 })]));
  assert(!mayPipeline([{ method: "Runtime.evaluate", params: { expression: "1" } }]));
});

function commit(loaderId: string, frame: Record<string, unknown> = {}) {
  return { method: "Page.frameNavigated", params: { frame: { id: "main", loaderId, ...frame } } };
}

function call(payload: unknown) {
  const params = { name: LANDED_BINDING, payload: JSON.stringify(payload), executionContextId: 7 };
  return { method: "Runtime.bindingCalled", params };
}

const FACTS = { url: "http://site/next", title: "Next", status: 200 };

/**
 * What `landed` gave once the events already applied were taken in (a few microtask turns, no
 * timer), or "waiting" when they did not end the wait.
 */
async function landedNow(watch: NavigationWatch): Promise<unknown> {
  let value: unknown = "waiting";
  watch.landed.then((landed) => value = landed);
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
  return value;
}

Deno.test("a navigation's new document reports itself only when its runtime named its world", async () => {
  const state = new TabState();
  state.apply(commit("L1"));
  state.apply(call({ world: "t1" }));
  const watch = new NavigationWatch(state, { frameId: "main", loaderId: "L1" }, 60_000);
  try {
    // The page being left named its world too, but it is not the new document.
    assertEquals(watch.willReport(), false, "the old document");
    state.apply(commit("L2"));
    assertEquals(watch.willReport(), false, "committed, but its runtime has said nothing yet");
    state.apply(call({ world: "t2" }));
    assertEquals(watch.willReport(), true);
    // Its first report, at its first frame, is the receipt's; a later one changes nothing.
    state.apply(call({ ...FACTS, ready: "interactive" }));
    state.apply(call({ ...FACTS, title: "Loaded", ready: "complete" }));
    assertEquals(await watch.landed, { ...FACTS, ready: "interactive" });
    // A page back from the back/forward cache says nothing: it is read instead.
    state.apply(commit("L0", { type: "BackForwardCacheRestore" }));
    assertEquals(watch.willReport(), false, "restored from the back/forward cache");
  } finally {
    watch.stop();
  }
});

/** A tab on document L1 of frame "main", watched for a navigation while `body` runs. */
async function watching(
  body: (state: TabState, watch: NavigationWatch) => Promise<void>,
): Promise<void> {
  const state = new TabState();
  state.apply(commit("L1"));
  const watch = new NavigationWatch(state, { frameId: "main", loaderId: "L1" }, 60_000);
  try {
    await body(state, watch);
  } finally {
    watch.stop();
  }
}

Deno.test("a report cut on the way, or events lost after the commit, end the wait with nothing", async () => {
  await watching(async (state, watch) => {
    state.apply(commit("L2"));
    state.apply(call({ world: "t2" }));
    assertEquals(watch.willReport(), true);
    // A URL near the extension's bound on event strings: the report is not JSON any more.
    const report = call({ ...FACTS, ready: "interactive" });
    state.apply({ ...report, params: { ...report.params, payload: '{"url":"http://site/aaaa' } });
    assertEquals(await landedNow(watch), null, "the receipt reads the page instead");
  });
  await watching(async (state, watch) => {
    state.apply(commit("L2"));
    state.apply(call({ world: "t2" }));
    // The report may be among the events dropped before this one.
    state.apply({ method: "Page.lifecycleEvent", params: { name: "load" } }, 2);
    assertEquals(await landedNow(watch), null);
    assertEquals(watch.willReport(), false);
  });
});

Deno.test("a report before the new document's commit is not where the action led", async () => {
  const state = new TabState();
  state.apply(commit("L1"));
  const watch = new NavigationWatch(state, { frameId: "main", loaderId: "L1" }, 60_000);
  try {
    state.apply(call({ ...FACTS, title: "Old page", ready: "complete" }));
    state.apply(commit("L2"));
    state.apply(call({ world: "t2" }));
    state.apply(call({ ...FACTS, ready: "complete" }));
    assertEquals(await watch.landed, { ...FACTS, ready: "complete" });
  } finally {
    watch.stop();
  }
});
