import { assertEquals } from "../../tests/support/assert.ts";
import { EVENT_STRING_MAX, EVENTS_PER_SECOND } from "../../shared/browser_protocol.ts";
import {
  admit,
  clip,
  endPause,
  FLOOD_DROPS,
  floods,
  freshMeter,
  newDocument,
  project,
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

Deno.test("a tab that drops a second's worth of console events is paused, and heard again", () => {
  const meter = freshMeter(1_000);
  for (let i = 1; i < FLOOD_DROPS; i++) assertEquals(floods(meter, 1_000 + i / 10), false);
  assertEquals(floods(meter, 1_100), true, "the last drop within the second");
  // Drops spread over more than a second never add up to a flood.
  const calm = freshMeter(0);
  for (let i = 0; i < FLOOD_DROPS * 3; i++) {
    assertEquals(floods(calm, i * (1_000 / (FLOOD_DROPS - 2))), false);
  }
  startPause(meter, 1_200);
  assertEquals(meter.pausedAt, 1_200);
  endPause(meter, 5_000);
  assertEquals(meter.pausedAt, null);
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
