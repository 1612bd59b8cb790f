import { assert, assertEquals } from "../../tests/support/assert.ts";
import { EVENT_STRING_MAX, EVENTS_PER_SECOND } from "../../shared/browser_protocol.ts";
import {
  admit,
  clip,
  endPause,
  FLOOD_LINES,
  FLOOD_REQUESTS,
  freshMeter,
  judge,
  madeAt,
  type Metered,
  newDocument,
  project,
  RECORDED_REQUESTS_PER_SECOND,
  replayed,
  startPause,
  takeToken,
} from "./event_filter.ts";

Deno.test("projection keeps only the named dotted paths", () => {
  const params = {
    requestId: "7",
    request: { url: "http://a/", method: "GET", headers: { cookie: "secret" }, postData: "x" },
    initiator: { stack: { callFrames: [] } },
  };
  assertEquals(project(params, ["requestId", "request.url", "request.method", "missing.x"]), {
    requestId: "7",
    request: { url: "http://a/", method: "GET" },
  });
});

Deno.test("clipping cuts long strings, deep nesting and long arrays", () => {
  const long = "x".repeat(EVENT_STRING_MAX + 10);
  const clipped = clip({
    text: long,
    list: Array.from({ length: 80 }, (_, i) => i),
    deep: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } },
  }, 0) as { text: string; list: number[]; deep: Record<string, unknown> };
  assertEquals(clipped.text.length, EVENT_STRING_MAX + 1);
  assertEquals(clipped.list.length, 50);
  assertEquals(JSON.stringify(clipped.deep), '{"a":{"b":{"c":{"d":{"e":"…"}}}}}');
});

Deno.test("the token bucket allows a burst, then the refill rate", () => {
  const bucket = { tokens: EVENTS_PER_SECOND, refilledAt: 0 };
  let allowed = 0;
  for (let i = 0; i < EVENTS_PER_SECOND * 3; i++) if (takeToken(bucket, 0)) allowed++;
  assertEquals(allowed, EVENTS_PER_SECOND);
  assertEquals(takeToken(bucket, 0), false);
  assertEquals(takeToken(bucket, 10), true, "10 ms refill two tokens at 200/s");
  assertEquals(takeToken(bucket, 10), true);
  assertEquals(takeToken(bucket, 10), false);
});

Deno.test("a dialog's events pass a spent rate bound; others wait for a token", () => {
  const bucket = { tokens: 0, refilledAt: 0 };
  assertEquals(admit(bucket, "Network.requestWillBeSent", 0), false);
  assertEquals(admit(bucket, "Page.javascriptDialogOpening", 0), true);
  assertEquals(admit(bucket, "Page.javascriptDialogClosed", 0), true);
  assertEquals(bucket.tokens, 0, "and take none of the tokens");
});

Deno.test("a kind's pause ends with listening again, metered afresh; what the browser replays is passed by", () => {
  const meter = freshMeter(1_000);
  startPause(meter, 1_200);
  assertEquals(meter.pausedAt, 1_200);
  endPause(meter, 5_000);
  assertEquals(meter, { ...freshMeter(5_000), resumedAt: 5_000 });
  // What the browser replays on listening again is older than the listening; new lines are not.
  assertEquals(replayed(meter, "Runtime.consoleAPICalled", { timestamp: 4_999 }), true);
  assertEquals(replayed(meter, "Runtime.consoleAPICalled", { timestamp: 5_001 }), false);
  assertEquals(replayed(meter, "Log.entryAdded", { entry: { timestamp: 10 } }), true);
  assertEquals(replayed(meter, "Network.loadingFinished", { timestamp: 10 }), false);
  assertEquals(replayed(freshMeter(0), "Runtime.consoleAPICalled", { timestamp: 1 }), false);
});

Deno.test("only the main frame's new document ends a pause", () => {
  assertEquals(newDocument("Page.frameNavigated", { frame: { id: "A" } }), true);
  assertEquals(newDocument("Page.frameNavigated", { frame: { id: "B", parentId: "A" } }), false);
  assertEquals(newDocument("Page.navigatedWithinDocument", { frameId: "A" }), false);
});

/** A tab as the extension keeps it, first observed at `now`. */
function freshTab(now: number): Metered {
  return {
    tokens: EVENTS_PER_SECOND,
    refilledAt: now,
    console: freshMeter(now),
    network: freshMeter(now),
  };
}

/** A page's traffic: `requests` started every `everyMs` for `seconds`, after a first `burst`. */
interface Traffic {
  requests: number;
  everyMs: number;
  seconds: number;
  burst?: number;
  /** Console lines logged beside each round of requests. */
  lines?: number;
}

/**
 * Feeds `tab` what such a page makes the browser send, in order: each request's start, its
 * answer and its end 50 ms later, and the console lines; a paused kind is passed by as the
 * extension does. Returns when the tab's `kind` was paused (ms after the start), or null.
 */
function pausedAt(
  tab: Metered,
  traffic: Traffic,
  kind: "network" | "console" = "network",
): number | null {
  const events: { at: number; method: string }[] = [];
  const request = (at: number) =>
    events.push(
      { at, method: "Network.requestWillBeSent" },
      { at: at + 50, method: "Network.responseReceived" },
      { at: at + 50, method: "Network.loadingFinished" },
    );
  for (let n = 0; n < (traffic.burst ?? 0); n++) request(n / 10);
  for (let at = 0; at < traffic.seconds * 1_000; at += traffic.everyMs) {
    for (let n = 0; n < traffic.requests; n++) request(at);
    for (let n = 0; n < (traffic.lines ?? 0); n++) {
      events.push({ at, method: "Runtime.consoleAPICalled" });
    }
  }
  events.sort((a, b) => a.at - b.at);
  for (const { at, method } of events) {
    const meter = method.startsWith("Network.") ? tab.network : tab.console;
    if (meter.pausedAt !== null) continue;
    const verdict = judge(tab, method, at);
    if (verdict.pause !== null) startPause(tab[verdict.pause], at);
    if (verdict.pause === kind) return at;
  }
  return null;
}

Deno.test("a page starting requests faster than their events can be recorded is paused, however slowly the processor lets it", () => {
  // The storm page: twenty requests every twenty milliseconds, a thousand a second.
  const storm = pausedAt(freshTab(0), { requests: 20, everyMs: 20, seconds: 10 });
  assert(storm !== null && storm < 1_500, `the storm paused at ${storm} ms`);
  // The same page on a starved processor: a quarter, then an eighth of its requests. Under the
  // rate bound's drops alone (500 within a second) neither was ever paused: a quarter drops
  // about 180 of its requests a second, an eighth about 60.
  const starved = pausedAt(freshTab(0), { requests: 5, everyMs: 20, seconds: 30 });
  const rate = 250 - RECORDED_REQUESTS_PER_SECOND;
  assert(starved !== null, "a quarter of the storm was never paused");
  assert(Math.abs(starved - (FLOOD_REQUESTS / rate) * 1_000) < 100, `paused at ${starved} ms`);
  const crawling = pausedAt(freshTab(0), { requests: 5, everyMs: 40, seconds: 60 });
  assert(crawling !== null && crawling < 30_000, `an eighth paused at ${crawling} ms`);
});

Deno.test("the network pause counts the requests a page starts, not what the rate bound drops", () => {
  const quarter = { requests: 5, everyMs: 20, seconds: 30 };
  // A console flood beside the requests takes every token of the rate bound until its own pause,
  // so the requests' events are dropped meanwhile; the pause comes at the same request all the
  // same.
  assertEquals(
    pausedAt(freshTab(0), { ...quarter, lines: 40 }),
    pausedAt(freshTab(0), quarter),
  );
  // A console flood alone pauses the console, never the network.
  const loud = freshTab(0);
  assertEquals(pausedAt(loud, { requests: 0, everyMs: 10, seconds: 5, lines: 2_000 }), null);
  assert(loud.console.pausedAt !== null, "the console flood was paused");
});

Deno.test("a page's load of a few hundred requests and a steady stream its events can be recorded for are never paused", () => {
  // 600 requests at once, then 60 a second (the events of 66 a second can be recorded) for two
  // minutes.
  const steady = { requests: 3, everyMs: 50, seconds: 120, burst: 600 };
  assertEquals(pausedAt(freshTab(0), steady), null);
  // A pause ends with the document: the next one is metered afresh.
  const tab = freshTab(0);
  assert(pausedAt(tab, { requests: 20, everyMs: 20, seconds: 5 }) !== null);
  endPause(tab.network, 10_000);
  assertEquals(tab.network, { ...freshMeter(10_000), resumedAt: 10_000 });
});

Deno.test("a page logging faster than its lines can be recorded is paused, however slowly the processor lets it", () => {
  // The storm page, as far as a starved processor lets it: 2,000 lines every ten milliseconds.
  const storm = pausedAt(
    freshTab(0),
    { requests: 0, everyMs: 10, seconds: 10, lines: 2_000 },
    "console",
  );
  assert(storm !== null && storm < 100, `the storm paused at ${storm} ms`);
  // Six hundred lines a second, steadily: the rate bound drops 400 of them each second, never
  // the 500 within one second the old rule waited for, so it was never paused.
  const steady = { requests: 0, everyMs: 50, seconds: 60, lines: 30 };
  const slow = pausedAt(freshTab(0), steady, "console");
  const rate = 600 - EVENTS_PER_SECOND;
  assert(slow !== null, "a steady 600 lines a second was never paused");
  assert(Math.abs(slow - (FLOOD_LINES / rate) * 1_000) < 100, `paused at ${slow} ms`);
  // A third of that, 250 a second: paused too, later.
  const crawling = pausedAt(freshTab(0), { ...steady, lines: 10, everyMs: 40 }, "console");
  assert(crawling !== null && crawling < 30_000, `250 lines a second paused at ${crawling} ms`);
});

Deno.test("a page's burst of a few hundred lines and a steady stream the rate bound records are never paused", () => {
  // 650 lines at once, then 150 a second for two minutes.
  const tab = freshTab(0);
  for (let n = 0; n < 650; n++) assertEquals(judge(tab, "Log.entryAdded", 0).pause, null);
  const calm = pausedAt(tab, { requests: 0, everyMs: 20, seconds: 120, lines: 3 }, "console");
  assertEquals(calm, null);
  // A burst of 700 is paused at its last line, as the old rule paused it (200 forwarded, 500
  // dropped within the second): a storm is paused no later than before.
  const burst = freshTab(0);
  for (let n = 1; n < FLOOD_LINES; n++) judge(burst, "Runtime.consoleAPICalled", 0);
  assertEquals(judge(burst, "Runtime.consoleAPICalled", 0).pause, "console");
  assertEquals(FLOOD_LINES, 700);
  // Requests do not fill the console's meter, nor lines the network's.
  assertEquals(pausedAt(freshTab(0), { requests: 20, everyMs: 20, seconds: 10 }, "console"), null);
});

Deno.test("a flood is metered by when the page made its events, not when a starved worker took them", () => {
  // The storm page stamps 2,000 lines every ten milliseconds; the worker takes 300 a second.
  const tab = freshTab(0);
  let paused: number | null = null;
  for (let n = 0; n < 5_000 && paused === null; n++) {
    const params = { timestamp: Math.floor(n / 2_000) * 10 };
    const verdict = judge(
      tab,
      "Runtime.consoleAPICalled",
      n * (1_000 / 300),
      madeAt("Runtime.consoleAPICalled", params),
    );
    if (verdict.pause === "console") paused = n;
  }
  // By the worker's clock the level would grow by 100 a second, paused after ten seconds.
  assertEquals(paused, FLOOD_LINES - 1);
  // Each kind's stamp: a log entry's, a request's wall time (seconds), none for other events.
  assertEquals(madeAt("Log.entryAdded", { entry: { timestamp: 7 } }), 7);
  assertEquals(madeAt("Runtime.exceptionThrown", { timestamp: 8 }), 8);
  assertEquals(madeAt("Network.requestWillBeSent", { wallTime: 1.5 }), 1_500);
  assertEquals(madeAt("Network.responseReceived", { timestamp: 9 }), undefined);
  assertEquals(madeAt("Runtime.consoleAPICalled", {}), undefined);
});
