import { FROM_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { BoundedWriter, encodeFrame, FrameReader } from "../../shared/framing.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { BrowserError, BrowserHub, MAX_KNOWN_BROWSERS } from "./mod.ts";

/** One browser connection into a real hub, driven frame by frame from the extension's side. */
function connect(hub: BrowserHub, sink: UnderlyingSink<Uint8Array> = {}) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const writer = new BoundedWriter(new WritableStream(sink), {
    maxWaiting: 16,
    maxBytes: 1 << 20,
  });
  const served = hub.serve(new FrameReader(readable, FROM_EXTENSION_MAX_FRAME), writer);
  return {
    say: (message: unknown) => feed.enqueue(encodeFrame(message, FROM_EXTENSION_MAX_FRAME)),
    served,
    async end() {
      feed.close();
      await served;
    },
  };
}

const hello = (browserId: string) => ({
  type: "hello",
  browser_id: browserId,
  extension_version: "1",
  user_agent: "test",
});

/** Waits until the hub has attached the browser that said hello as `browserId`. */
const attached = (hub: BrowserHub, browserId: string) =>
  waitFor(
    () => Promise.resolve(hub.list().some((link) => link.browserId === browserId)),
    `${browserId} to be attached`,
  );

Deno.test("a second hello on one connection replaces the first browser entirely", async () => {
  const hub = new BrowserHub();
  const conn = connect(hub);
  conn.say(hello("browser-one"));
  await attached(hub, "browser-one");
  const first = hub.pick()!;
  conn.say(hello("browser-two"));
  await attached(hub, "browser-two");
  assertEquals(hub.list().map((link) => link.browserId), ["browser-two"]);
  assert(!first.connected, "the first link is closed");
  assertEquals(hub.bySlot(first.slot), undefined);
  await conn.end();
  assertEquals(hub.list(), []);
});

Deno.test("a command that never left the service is not_sent, not 'may have happened'", async () => {
  const hub = new BrowserHub();
  const refusing = connect(hub, {
    write: () => Promise.reject(new Error("pipe closed")),
  });
  refusing.say(hello("browser-refusing"));
  await attached(hub, "browser-refusing");
  const link = hub.pick()!;
  const refused = await link.call("tab.get", { tab_id: 1 }).catch((error) => error);
  assert(refused instanceof BrowserError, String(refused));
  assertEquals(refused.kind, "not_sent");
  assertEquals(refused.mayHaveHappened, false);
  await refusing.end();
  const closed = await link.call("tab.get", { tab_id: 1 }).catch((error) => error);
  assertEquals([closed.kind, closed.mayHaveHappened], ["not_sent", false]);
});

Deno.test("slots stay stable for recent browsers and the memory of old ones is bounded", async () => {
  const hub = new BrowserHub();
  const slotOf = async (browserId: string) => {
    const conn = connect(hub);
    conn.say(hello(browserId));
    await attached(hub, browserId);
    const slot = hub.pick()!.slot;
    await conn.end();
    return slot;
  };
  const first = await slotOf("browser-0000");
  for (let n = 1; n <= MAX_KNOWN_BROWSERS + 5; n++) await slotOf(`browser-${n}`.padEnd(12, "x"));
  assert(hub.knownBrowsers <= MAX_KNOWN_BROWSERS, `${hub.knownBrowsers} remembered`);
  const recent = `browser-${MAX_KNOWN_BROWSERS}`.padEnd(12, "x");
  assertEquals(await slotOf(recent), await slotOf(recent));
  // A forgotten browser gets a fresh slot, never one another browser used.
  const again = await slotOf("browser-0000");
  assert(again !== first && again > MAX_KNOWN_BROWSERS, `slot ${again}`);
});

Deno.test("a link another connection replaces is closed and its connection ended", async () => {
  const hub = new BrowserHub();
  const first = connect(hub);
  first.say(hello("browser-same"));
  await attached(hub, "browser-same");
  const old = hub.pick()!;
  const second = connect(hub);
  second.say(hello("browser-same"));
  await waitFor(() => Promise.resolve(hub.pick() !== old), "the new link");
  assert(!old.connected, "the replaced link is closed");
  // The first connection's serve ends by itself: its reader was cancelled, so the daemon
  // closes that socket.
  await first.served;
  assertEquals(hub.list().length, 1);
  assertEquals(hub.pick()!.slot, old.slot, "a reconnection of the same run keeps its slot");
  await second.end();
});

Deno.test("a restarted browser gets a new slot, and its old tabs are purged first", async () => {
  const hub = new BrowserHub();
  const purged: number[] = [];
  hub.onEvents({
    tabRemoved: () => {},
    browserRestarted: (slot) => {
      purged.push(slot);
      assertEquals(hub.list().length, 0, "nothing of the new run is published yet");
    },
  });
  const first = connect(hub);
  first.say({ ...hello("browser-runs"), browser_run: "run-1" });
  await attached(hub, "browser-runs");
  const before = hub.pick()!;
  const oldTab = before.compose(5);
  await first.end();
  // The same run coming back (a relay reconnection) is no restart.
  const again = connect(hub);
  again.say({ ...hello("browser-runs"), browser_run: "run-1" });
  await attached(hub, "browser-runs");
  assertEquals(hub.pick()!.slot, before.slot);
  await again.end();
  const restarted = connect(hub);
  restarted.say({ ...hello("browser-runs"), browser_run: "run-2" });
  await attached(hub, "browser-runs");
  assertEquals(purged, [before.slot]);
  const after = hub.pick()!;
  assert(after.slot !== before.slot, "a new slot");
  assert(after.compose(5) !== oldTab, "old tab ids never name a new tab");
  assertEquals(hub.bySlot(before.slot), undefined, "old ids reach no browser");
  await restarted.end();
});

Deno.test("a link never sends an operation of a feature its extension did not declare", async () => {
  const hub = new BrowserHub();
  const written: Uint8Array[] = [];
  const conn = connect(hub, { write: (chunk) => void written.push(chunk) });
  conn.say(hello("browser-old"));
  await attached(hub, "browser-old");
  const link = hub.pick()!;
  assertEquals(link.details.features, []);
  const refused = await link.call("transfer.discard", { transfer_id: crypto.randomUUID() })
    .catch((error) => error);
  assert(refused instanceof BrowserError, String(refused));
  assertEquals([refused.kind, refused.mayHaveHappened], ["needs_upgrade", false]);
  // A command that waits for every earlier reply is a feature too (`after_replies`).
  const waiting = await link.call("cdp.sequence", {
    tab_id: 5,
    commands: [
      { method: "Input.insertText", params: { text: "a" } },
      { method: "Page.getFrameTree", params: {}, afterReplies: true },
    ],
  }).catch((error) => error);
  assert(waiting instanceof BrowserError, String(waiting));
  assertEquals([waiting.kind, waiting.mayHaveHappened], ["needs_upgrade", false]);
  assertEquals(written.length, 0, "nothing was written to the browser");
  // So is one aimed by an earlier reply's values (`reply_values`), even where `after_replies` is.
  conn.say({
    ...hello("browser-new"),
    features: ["transfers", "after_replies", "from-the-future"],
  });
  await attached(hub, "browser-new");
  const newer = hub.pick()!;
  assertEquals(newer.details.features, ["transfers", "after_replies"]);
  const aimed = await newer.call("cdp.sequence", {
    tab_id: 5,
    commands: [
      { method: "Runtime.evaluate", params: { expression: "1" } },
      { method: "Page.getFrameTree", params: {}, afterReplies: true },
      {
        method: "Input.dispatchMouseEvent",
        params: { type: "mouseMoved" },
        paramsFrom: [{ reply: 2, path: ["result", "value"], param: "x" }],
      },
    ],
  }).catch((error) => error);
  assert(aimed instanceof BrowserError, String(aimed));
  assertEquals([aimed.kind, aimed.message], [
    "needs_upgrade",
    "the installed extension (1) does not support reply_values",
  ]);
  await conn.end();
});

/** The commands written to the browser so far, decoded (each chunk one whole frame). */
function commandsIn(written: Uint8Array[]): { id: number; op: string; params: unknown }[] {
  return written.map((chunk) => JSON.parse(new TextDecoder().decode(chunk.subarray(4))));
}

Deno.test("a sequence's lead replies reach its caller ahead of its result, once", async () => {
  const hub = new BrowserHub();
  const written: Uint8Array[] = [];
  const conn = connect(hub, { write: (chunk) => void written.push(chunk) });
  conn.say({ ...hello("browser-lead"), features: ["after_replies", "reply_values"] });
  await attached(hub, "browser-lead");
  const link = hub.pick()!;
  const leads: unknown[] = [];
  const call = link.call("cdp.sequence", {
    tab_id: 5,
    lead: 1,
    commands: [
      { method: "Runtime.evaluate", params: { expression: "1" } },
      { method: "Input.insertText", params: { text: "a" } },
    ],
  }, { ahead: (results) => leads.push(results) });
  // The tab is observed first; then the sequence goes out.
  const sent = async (op: string) => {
    await waitFor(
      () => Promise.resolve(commandsIn(written).some((command) => command.op === op)),
      `${op} to be sent`,
    );
    return commandsIn(written).find((command) => command.op === op)!.id;
  };
  conn.say({ type: "result", id: await sent("tab.observe"), ok: true, value: {} });
  const id = await sent("cdp.sequence");
  const lead = [{ result: { value: 1 } }];
  conn.say({ type: "sequence_lead", id, results: lead });
  await waitFor(() => Promise.resolve(leads.length === 1), "the lead to reach the caller");
  assertEquals(leads, [lead]);
  // A repeat, or a lead for a command nobody waits for, is dropped.
  conn.say({ type: "sequence_lead", id, results: lead });
  conn.say({ type: "sequence_lead", id: id + 100, results: lead });
  conn.say({ type: "result", id, ok: true, value: { results: [...lead, {}] } });
  assertEquals((await call).results.length, 2);
  assertEquals(leads.length, 1);
  // A link whose extension cannot send a lead is never asked for one.
  conn.say({ ...hello("browser-older"), features: ["after_replies"] });
  await attached(hub, "browser-older");
  const refused = await hub.pick()!.call("cdp.sequence", {
    tab_id: 5,
    lead: 1,
    commands: [
      { method: "Runtime.evaluate", params: { expression: "1" } },
      { method: "Input.insertText", params: { text: "a" } },
    ],
  }).catch((error) => error);
  assert(refused instanceof BrowserError, String(refused));
  assertEquals(refused.kind, "needs_upgrade");
  await conn.end();
});
