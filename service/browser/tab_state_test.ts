import { assert, assertEquals } from "../../tests/support/assert.ts";
import { MAX_CONTEXTS, Ring, TabState } from "./tab_state.ts";
import { CONSOLE_PAUSED_EVENT } from "../../shared/browser_protocol.ts";

Deno.test("a ring keeps the newest items and counts evictions", () => {
  const ring = new Ring<number>(3);
  for (const n of [1, 2, 3, 4, 5]) ring.push(n);
  assertEquals([...ring.items()], [3, 4, 5]);
  assertEquals(ring.evicted, 2);
  ring.clear();
  assertEquals([ring.items().length, ring.evicted], [0, 0]);
});

Deno.test("console events become readable lines, with object previews", () => {
  const tab = new TabState();
  tab.apply({
    method: "Runtime.consoleAPICalled",
    params: {
      type: "log",
      timestamp: 1,
      args: [
        { type: "string", value: "boot" },
        { type: "number", value: 42 },
        {
          type: "object",
          preview: { properties: [{ name: "mode", type: "string", value: "test" }] },
        },
      ],
      stackTrace: { callFrames: [{ url: "http://x/a.js", lineNumber: 9 }] },
    },
  });
  tab.apply({
    method: "Runtime.exceptionThrown",
    params: { timestamp: 2, exceptionDetails: { exception: { description: "Error: late" } } },
  });
  const [log, exception] = tab.console.items();
  assertEquals([log.level, log.text, log.line], ["log", 'boot 42 {mode: "test"}', 10]);
  assertEquals([exception.level, exception.source, exception.text], [
    "error",
    "exception",
    "Error: late",
  ]);
});

Deno.test("a request is followed through redirect, response and finish", () => {
  const tab = new TabState();
  tab.apply({
    method: "Network.requestWillBeSent",
    params: { requestId: "1", request: { url: "http://a/", method: "GET" }, timestamp: 10 },
  });
  tab.apply({
    method: "Network.requestWillBeSent",
    params: {
      requestId: "1",
      request: { url: "http://a/b", method: "GET" },
      redirectResponse: { status: 302 },
      timestamp: 10.1,
      type: "Document",
    },
  });
  tab.apply({
    method: "Network.responseReceived",
    params: { requestId: "1", response: { status: 200, mimeType: "text/html" } },
  });
  tab.apply({
    method: "Network.loadingFinished",
    params: { requestId: "1", timestamp: 10.35, encodedDataLength: 99 },
  });
  const [first, second] = tab.network.items();
  assertEquals([first.url, first.status], ["http://a/", 302]);
  assertEquals([second.url, second.status, second.durationMs, second.bytes], [
    "http://a/b",
    200,
    250,
    99,
  ]);
});

Deno.test("waiters resolve on a matching event, on timeout, or when aborted", async () => {
  const tab = new TabState();
  const dialog = tab.waitFor((e) => e.method === "Page.javascriptDialogOpening", 1_000);
  tab.apply({ method: "Page.javascriptDialogOpening", params: { type: "alert", message: "hi" } });
  assertEquals((await dialog)?.params.message, "hi");
  assertEquals(tab.dialog?.message, "hi");
  tab.apply({ method: "Page.javascriptDialogClosed", params: {} });
  assertEquals(tab.dialog, null);

  assertEquals(await tab.waitFor(() => true, 5), null);
  const stop = new AbortController();
  const aborted = tab.waitFor(() => false, 10_000, stop.signal);
  stop.abort();
  assertEquals(await aborted, null);
});

Deno.test("a settled waiter leaves no listener on a long-lived signal", async () => {
  const tab = new TabState();
  const signal = new AbortController().signal;
  let listening = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listening++;
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    listening--;
    remove(...args);
  }) as typeof signal.removeEventListener;
  const matched = tab.waitFor((e) => e.method === "Page.loadEventFired", 1_000, signal);
  tab.apply({ method: "Page.loadEventFired", params: {} }, 0);
  assert((await matched) !== null);
  assertEquals(await tab.waitFor(() => false, 5, signal), null);
  assertEquals(listening, 0);
});

Deno.test("a watch resolves with the first matching event, or null once stopped", async () => {
  const tab = new TabState();
  const dialog = (event: { method: string }) => event.method === "Page.javascriptDialogOpening";
  const seen = tab.watch(dialog);
  tab.apply({ method: "Page.loadEventFired", params: {} });
  tab.apply({ method: "Page.javascriptDialogOpening", params: { type: "alert", message: "hi" } });
  assertEquals((await seen.event)?.method, "Page.javascriptDialogOpening");
  seen.stop();
  const stopped = tab.watch(dialog);
  stopped.stop();
  assertEquals(await stopped.event, null);
  // A stopped watch is gone: a later dialog reaches nobody and stopping again changes nothing.
  tab.apply({ method: "Page.javascriptDialogOpening", params: { type: "alert", message: "hi" } });
  stopped.stop();
  assertEquals(await stopped.event, null);
});

Deno.test("a console message carries its context's origin; the contexts kept are bounded", () => {
  const tab = new TabState();
  const created = (id: number, origin: string) =>
    tab.apply({ method: "Runtime.executionContextCreated", params: { context: { id, origin } } });
  const logged = (executionContextId: number) =>
    tab.apply({
      method: "Runtime.consoleAPICalled",
      params: { type: "log", timestamp: 1, args: [], executionContextId },
    });
  for (let id = 1; id <= MAX_CONTEXTS + 1; id++) created(id, `http://h${id}.example`);
  logged(MAX_CONTEXTS + 1);
  logged(2);
  logged(1); // the oldest context was let go: its origin is not known
  tab.apply({ method: "Runtime.executionContextsCleared", params: {} });
  logged(2);
  assertEquals(tab.console.items().map((entry) => entry.origin), [
    `http://h${MAX_CONTEXTS + 1}.example`,
    "http://h2.example",
    null,
    null,
  ]);
});

Deno.test("the extension's word that a tab's console went unheard is kept, pause by pause", () => {
  const state = new TabState();
  state.apply({ method: CONSOLE_PAUSED_EVENT, params: { paused: true, at: 1_000 } });
  assertEquals(state.consoleUnheard, { since: 1_000, pauses: 1, ms: 0 });
  state.apply({ method: CONSOLE_PAUSED_EVENT, params: { paused: false, at: 4_000 } });
  state.apply({ method: CONSOLE_PAUSED_EVENT, params: { paused: false, at: 9_000 } });
  assertEquals(state.consoleUnheard, { since: null, pauses: 1, ms: 3_000 });
  state.apply({ method: CONSOLE_PAUSED_EVENT, params: { paused: true, at: 10_000 } });
  state.apply({ method: CONSOLE_PAUSED_EVENT, params: { paused: true, at: 11_000 } });
  assertEquals(state.consoleUnheard, { since: 10_000, pauses: 2, ms: 3_000 });
  assertEquals(state.console.items().length, 0, "no console line is made of it");
});
