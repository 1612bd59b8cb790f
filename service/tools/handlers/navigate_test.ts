import { assert, assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import type { TabTarget } from "../core/target.ts";
import { type TabEvent, TabState } from "../../browser/mod.ts";
import { goThroughHistory, goToUrl, type History, stoppedBeforeLeaving } from "./navigate.ts";
import { LoadWatch, waitForLoad } from "../input/load_watch.ts";
import { ToolError } from "../core/errors.ts";
import { LANDED_BINDING } from "../page/landed_facts.ts";
import { waitFor } from "../../../tests/support/wait.ts";

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

/** The runtime's report of its document at its load, as the extension forwards it. */
function landedReport(payload: string) {
  return { method: "Runtime.bindingCalled", params: { name: LANDED_BINDING, payload } };
}

/** The main frame's commit of the document `loaderId`. */
function commitOf(loaderId: string) {
  return { method: "Page.frameNavigated", params: { frame: { id: "main", loaderId } } };
}

/** Runs `body` with a watch for the URL navigation to the document "new" on a fresh tab. */
async function watchingNew(body: (state: TabState, watch: LoadWatch) => Promise<void>) {
  const state = new TabState();
  const watch = new LoadWatch(state);
  watch.expected = "new";
  try {
    await body(state, watch);
  } finally {
    watch.stop.abort();
  }
}

const LOADED = { method: "Page.lifecycleEvent", params: { name: "load", loaderId: "new" } };

Deno.test("a URL navigation answers from its document's own report at its load", async () => {
  await watchingNew(async (state, watch) => {
    state.apply(commitOf("new"));
    state.apply(LOADED);
    assert(await watch.event, "the load ends the wait for the load");
    const facts = { url: "http://site/a.html", title: "Set in onload", status: 200 };
    const landed = watch.landedFacts(60_000);
    // The report at the first frame is a receipt's, not `navigate`'s (decision 0245).
    state.apply(landedReport(JSON.stringify({ ...facts, title: "Early", ready: "interactive" })));
    // The report comes right behind the load event: it ends the wait, not the bound.
    state.apply(landedReport(JSON.stringify({ ...facts, ready: "complete" })));
    assertEquals(await landed, { ...facts, ready: "complete" });
  });
});

Deno.test("a report from another document, or cut on the way, is not the answer", async () => {
  await watchingNew(async (state, watch) => {
    const facts = { url: "http://site/a.html", title: "A", status: 200, ready: "complete" };
    state.apply(commitOf("new"));
    state.apply(LOADED);
    // The page moved on before its report came: that report is the next document's.
    state.apply(commitOf("next"));
    state.apply(landedReport(JSON.stringify(facts)));
    assertEquals(await watch.landedFacts(20), null);
    state.apply(commitOf("new"));
    state.apply(landedReport(`${JSON.stringify(facts).slice(0, 30)}…`));
    assertEquals(await watch.landedFacts(20), null, "a clipped report is not read");
    state.apply(landedReport(JSON.stringify({ ...facts, title: "x".repeat(301) })));
    assertEquals(await watch.landedFacts(20), null, "nor one longer than a title may be");
  });
});

Deno.test("without its document's load seen no report is waited for", async () => {
  await watchingNew(async (state, watch) => {
    state.apply(commitOf("new"));
    // A load only readyState vouched for (its event dropped): the page is asked at once.
    assertEquals(await watch.landedFacts(60_000), null);
  });
});

/** A tab whose CDP commands `answer` answers, each method noted in `sent` as it goes out. */
function recordingTab(
  answer: (method: string, sent: string[]) => Promise<Record<string, unknown>>,
) {
  const sent: string[] = [];
  const target = {
    tabId: 1,
    native: 1,
    link: {
      call: (_op: string, params: { method: string }) => {
        sent.push(params.method);
        return answer(params.method, sent);
      },
    },
  } as unknown as TabTarget;
  return { target, sent };
}

/**
 * A tab on a page that asks to stay, whose browser stops the first navigation without a
 * prompt (it is still getting over the one refused before) and prompts on the next.
 */
function askingTab(state: TabState) {
  let answer: () => void = () => {};
  return recordingTab((method, sent) => {
    const aborted = { errorText: "net::ERR_ABORTED", frameId: "main", isDownload: false };
    if (method === "Page.handleJavaScriptDialog") {
      answer();
      return Promise.resolve({});
    }
    if (sent.filter((one) => one === "Page.navigate").length === 1) {
      return Promise.resolve(aborted);
    }
    state.apply({
      method: "Page.javascriptDialogOpening",
      params: { url: "http://site/leave.html", message: "", type: "beforeunload" },
    });
    return new Promise((resolve) => answer = () => resolve(aborted));
  });
}

/** Navigates `target` to `requested` without force; the failure, or null when it went. */
async function goingTo(target: TabTarget, state: TabState, requested: string): Promise<unknown> {
  const watch = new LoadWatch(state);
  try {
    return await goToUrl(target, state, { requested, force: false }, watch)
      .then(() => null, (error) => error);
  } finally {
    watch.stop.abort();
  }
}

Deno.test("a navigation stopped without a prompt is asked for again, and its prompt reported", async () => {
  const state = new TabState();
  const tab = askingTab(state);
  const error = await goingTo(tab.target, state, "http://site/index.html");
  assert(error instanceof ToolError, `a clear failure, not ${error}`);
  assertMatch(error.message, /asked to stay/);
  assertEquals(tab.sent, ["Page.navigate", "Page.navigate", "Page.handleJavaScriptDialog"]);
});

Deno.test("the new page's own alert, opened before the navigation's reply, is no leave-page prompt", async () => {
  const state = new TabState();
  const tab = recordingTab(() => {
    // The page arrives and alerts as it loads, before Chrome's reply to the navigate is read.
    state.apply({ method: "Page.frameNavigated", params: { frame: { id: "main" } } });
    state.apply({
      method: "Page.javascriptDialogOpening",
      params: { url: "http://site/alert_loop.html", message: "hello", type: "alert" },
    });
    return Promise.resolve({ frameId: "main", loaderId: "L" });
  });
  const error = await goingTo(tab.target, state, "http://site/alert_loop.html");
  assertEquals(error, null, "the navigation went");
  assertEquals(tab.sent, ["Page.navigate"], "the alert is left open for the agent, not dismissed");
  assertEquals(state.dialog?.type, "alert");
});

Deno.test("a navigation aborted after its request is sent once and said to have stayed", async () => {
  const state = new TabState();
  const tab = recordingTab(() => {
    state.apply({
      method: "Network.requestWillBeSent",
      params: { requestId: "R", frameId: "main", type: "Document", request: { url: "x" } },
    });
    return Promise.resolve({ errorText: "net::ERR_ABORTED", frameId: "main", isDownload: false });
  });
  const error = await goingTo(tab.target, state, "http://site/no-content");
  assert(error instanceof ToolError, `a clear failure, not ${error}`);
  assertMatch(error.message, /stopped before a new page arrived .* the tab stayed on its page/);
  assertEquals(tab.sent, ["Page.navigate"]);
});

Deno.test("only an abort before anything was asked or requested counts as stopped before leaving", () => {
  const aborted = { errorText: "net::ERR_ABORTED", isDownload: false };
  const quiet = { prompted: false, requested: false };
  assert(stoppedBeforeLeaving(aborted, quiet));
  assert(!stoppedBeforeLeaving(aborted, { ...quiet, prompted: true }), "a prompt was answered");
  assert(!stoppedBeforeLeaving(aborted, { ...quiet, requested: true }), "a request went out");
  assert(!stoppedBeforeLeaving({ ...aborted, isDownload: true }, quiet), "a download");
  assert(!stoppedBeforeLeaving({ errorText: "net::ERR_CONNECTION_REFUSED" }, quiet));
  assert(!stoppedBeforeLeaving({ loaderId: "L" }, quiet), "a navigation that went");
});

/**
 * A tab whose history move Chrome answers at once and then plays `after` (the events that follow
 * the reply); a dialog answer plays `answered`. Its history stays where it stood.
 */
function movingTab(state: TabState, after: TabEvent[], answered: TabEvent[] = []) {
  const history: History = {
    currentIndex: 1,
    entries: [{ id: 1, url: "http://site/a.html", title: "a" }, {
      id: 2,
      url: "http://site/leave.html",
      title: "leave",
    }],
  };
  const play = (events: TabEvent[]) =>
    queueMicrotask(() => events.forEach((event) => state.apply(event)));
  const tab = recordingTab((method) => {
    switch (method) {
      case "Page.getFrameTree":
        return Promise.resolve({ frameTree: { frame: { id: "main" } } });
      case "Page.getNavigationHistory":
        return Promise.resolve(history);
      case "Page.handleJavaScriptDialog":
        play(answered);
        return Promise.resolve({});
      default:
        play(after);
        return Promise.resolve({});
    }
  });
  return { ...tab, history };
}

const mainStopped: TabEvent = { method: "Page.frameStoppedLoading", params: { frameId: "main" } };

async function moveBack(tab: ReturnType<typeof movingTab>, state: TabState) {
  const watch = new LoadWatch(state);
  try {
    return await goThroughHistory(tab.target, state, {
      raw: "back",
      force: false,
      history: tab.history,
    }, watch).then((url) => url, (error) => error);
  } finally {
    watch.stop.abort();
  }
}

Deno.test("a history move the browser drops says so at once", async () => {
  const state = new TabState();
  const tab = movingTab(state, [mainStopped]);
  const error = await moveBack(tab, state);
  assert(error instanceof ToolError, `a clear failure, not ${error}`);
  assertMatch(error.message, /stopped the move back before the tab left its page/);
});

Deno.test("a prompt raised well after the history move's reply is answered and reported", async () => {
  const state = new TabState();
  const tab = movingTab(state, [], [
    { method: "Page.javascriptDialogClosed", params: { result: false } },
    mainStopped,
  ]);
  const moving = moveBack(tab, state);
  // The busy page asks only once the reply has long been read.
  await waitFor(
    () => Promise.resolve(tab.sent.includes("Page.navigateToHistoryEntry")),
    "the move sent",
  );
  state.apply({
    method: "Page.javascriptDialogOpening",
    params: { url: "http://site/leave.html", message: "", type: "beforeunload" },
  });
  const error = await moving;
  assert(error instanceof ToolError, `a clear failure, not ${error}`);
  assertMatch(error.message, /asked to stay/);
  assert(tab.sent.includes("Page.handleJavaScriptDialog"), `answered: ${tab.sent}`);
  assertEquals(state.dialog, null);
});

Deno.test("another frame's stop, or one after a move within the document, is no dropped move", async () => {
  const state = new TabState();
  const within: TabEvent = {
    method: "Page.navigatedWithinDocument",
    params: { frameId: "main", url: "http://site/a.html" },
  };
  const tab = movingTab(state, [
    { method: "Page.frameStoppedLoading", params: { frameId: "child" } },
    within,
    mainStopped,
  ]);
  assertEquals(await moveBack(tab, state), "http://site/a.html");
  assert(!tab.sent.includes("Page.getNavigationHistory"), "no second look at the history");
});
