import { assertEquals } from "../../../tests/support/assert.ts";
import { TabState } from "../../browser/mod.ts";
import { LANDED_BINDING } from "./landed_facts.ts";
import { factsOf, reportedWorld } from "./landed_facts.ts";

function commit(loaderId: string, frame: Record<string, unknown> = {}) {
  return { method: "Page.frameNavigated", params: { frame: { id: "main", loaderId, ...frame } } };
}

function call(payload: unknown, contextId: unknown = 7, name = LANDED_BINDING) {
  const params = { name, payload: JSON.stringify(payload), executionContextId: contextId };
  return { method: "Runtime.bindingCalled", params };
}

const WORLD = { frameId: "main", loaderId: "L2", contextId: 7, token: "t2" };

/** The world the tab's events name. */
function named(state: TabState) {
  return reportedWorld(state.mainDocument);
}

Deno.test("a new document's world is the one its runtime named after the main frame committed it", () => {
  const state = new TabState();
  assertEquals(named(state), null, "no commit seen");
  state.apply(call({ world: "t0" }));
  assertEquals(named(state), null, "a note before any commit is not paired");
  state.apply(commit("L1"));
  state.apply(call({ world: "t1" }, 5));
  state.apply(commit("L2"));
  assertEquals(named(state), null, "the last commit's document has said nothing yet");
  state.apply(call({ world: "t2" }));
  // The document's facts at its load come later through the same binding; the note stays.
  state.apply(call({ url: "http://site/", title: "T", status: 200, ready: "complete" }));
  assertEquals(named(state), WORLD);
  // A child frame's commit is not the main frame's.
  state.apply(commit("C1", { parentId: "main" }));
  assertEquals(named(state), WORLD);
  // A page back from the back/forward cache is an older document: its note is long past.
  state.apply(commit("L1", { type: "BackForwardCacheRestore" }));
  assertEquals(named(state), null);
});

Deno.test("a note is not taken when events were lost since the commit, or it is not this build's", () => {
  const lossy = new TabState();
  lossy.apply(commit("L2"));
  // Dropped events might have held a later commit: the note could be another document's.
  lossy.apply(call({ world: "t2" }), 3);
  assertEquals(named(lossy), null);

  const cases: [string, ReturnType<typeof call>][] = [
    ["another build's binding", call({ world: "t2" }, 7, "__ghostlightLanded_000000000000")],
    ["a binding of builds before 0244", call({ world: "t2" }, 7, "__ghostlightLanded")],
    ["no context", call({ world: "t2" }, null)],
    ["no token", call({ world: "" })],
    ["something else besides", call({ world: "t2", url: "x" })],
    ["not JSON", { ...call({}), params: { ...call({}).params, payload: "{world" } }],
  ];
  for (const [why, event] of cases) {
    const state = new TabState();
    state.apply(commit("L2"));
    state.apply(event);
    assertEquals(named(state), null, why);
  }
});

Deno.test("a world note is not a landing report's facts", () => {
  assertEquals(factsOf(call({ world: "t2" })), null);
  for (const ready of ["interactive", "complete"] as const) {
    const facts = { url: "http://site/", title: "T", status: 200, ready };
    assertEquals(factsOf(call(facts)), facts);
  }
  // A report must say when it was made: `navigate` answers from the load's alone (decision 0245).
  assertEquals(factsOf(call({ url: "http://site/", title: "T", status: 200 })), null);
  const early = { url: "http://site/", title: "T", status: 200, ready: "loading" };
  assertEquals(factsOf(call(early)), null);
});
