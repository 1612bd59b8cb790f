// The link's table of where each reporting tab stands (decision 0190): learnt from answers' tails
// and `tab_location` messages, numbered by serial, forgotten on release, close and link loss, and
// trusted after a call only when nothing answered for the tab after what it says. And the
// `tab.observe` it sends, checked against the wire's schema.

import { type Command, Operations, type TabInfo } from "../../shared/browser_protocol.ts";
import type { ExtensionFeature } from "../../shared/extension_features.ts";
import { BoundedWriter } from "../../shared/framing.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { BrowserLink, type CommandReports } from "./browser_link.ts";

/** A link whose commands are kept, decoded, for the test to answer. */
function linkWith(features: ExtensionFeature[] = ["tab_locations"], reports?: CommandReports) {
  const sent: Command[] = [];
  const writer = new BoundedWriter(
    new WritableStream<Uint8Array>({
      write(frame) {
        sent.push(JSON.parse(new TextDecoder().decode(frame.subarray(4))));
      },
    }),
    { maxWaiting: 16, maxBytes: 1 << 20 },
  );
  const link = new BrowserLink(
    "browser-loc",
    0,
    {
      extensionVersion: "0.1.0",
      userAgent: "test",
      features,
      executor: "browser-loc/1",
      executorLink: 1,
    },
    writer,
    { reports },
  );
  /** Waits for the command `op` sent `nth` (from 1) and returns it. */
  const command = async (op: string, nth = 1) => {
    await waitFor(
      () => Promise.resolve(sent.filter((c) => c.op === op).length >= nth),
      `${op} to be sent`,
    );
    return sent.filter((c) => c.op === op)[nth - 1];
  };
  /**
   * Sends a first CDP command to tab 7 and answers it (after its `tab.observe`), with `tail`;
   * returns what `tab.observe` asked for.
   */
  const firstCdp = async (tail: TabInfo) => {
    const done = link.call("cdp", { tab_id: 7, method: "Page.enable", params: {} });
    const observe = await command("tab.observe");
    link.handleResult({ type: "result", id: observe.id, ok: true, value: {} });
    const cdp = await command("cdp");
    link.handleResult({ type: "result", id: cdp.id, ok: true, value: {}, tab: tail });
    await done;
    return observe.params as { locations?: boolean };
  };
  return { link, sent, command, firstCdp };
}

const at = (url: string, pending?: string): TabInfo => ({
  tab_id: 7,
  window_id: 1,
  group_id: -1,
  url,
  ...(pending ? { pending_url: pending } : {}),
  title: "",
  status: "complete",
  active: true,
});

Deno.test("a tab is unknown until its extension says where it stands, then known by serial", async () => {
  const { link, command } = linkWith();
  assertEquals(link.knownLocation(7), undefined);
  const got = link.call("tab.get", { tab_id: 7 });
  const asked = await command("tab.get");
  link.handleResult({
    type: "result",
    id: asked.id,
    ok: true,
    value: at("https://a.test/"),
    tab: at("https://a.test/"),
  });
  await got;
  const first = link.knownLocation(7);
  assertEquals(first?.tab.url, "https://a.test/");
  link.handleLocation({
    type: "tab_location",
    tab_id: 7,
    tab: at("https://a.test/", "https://b.test/"),
  });
  const second = link.knownLocation(7);
  assertEquals(second?.tab.pending_url, "https://b.test/");
  assert(second!.serial > first!.serial, "each message gets a newer serial");
  assertEquals(link.locationSerial, second!.serial);
});

Deno.test("an answer carries the tab it names only; another tab's tail is not believed", async () => {
  const { link, command } = linkWith();
  const got = link.call("tab.get", { tab_id: 8 });
  const asked = await command("tab.get");
  link.handleResult({
    type: "result",
    id: asked.id,
    ok: true,
    value: { ...at("x:"), tab_id: 8 },
    tab: at("https://a.test/"),
  });
  await got;
  assertEquals(link.knownLocation(7), undefined);
});

Deno.test("after a call, the table speaks only for what came after the call's start and its last answer", async () => {
  const { link, command, firstCdp } = linkWith();
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  const start = link.locationSerial;
  // Nothing since the call started: ask the browser.
  assertEquals(link.locationSince(7, start), undefined);
  // A command's answer with its tail: that is where the call left the tab.
  assertEquals((await firstCdp(at("https://b.test/"))).locations, true);
  assertEquals(link.locationSince(7, start)?.url, "https://b.test/");
  // A later answer without a tail (the tab changed while it was read): the tail is older than
  // that answer, so it no longer says where the tab is.
  const again = link.call("cdp", { tab_id: 7, method: "Page.enable", params: {} });
  const second = await command("cdp", 2);
  link.handleResult({ type: "result", id: second.id, ok: true, value: {} });
  await again;
  assertEquals(link.locationSince(7, start), undefined);
  assertEquals(link.knownLocation(7)?.tab.url, "https://b.test/", "still the best guess before");
  // The change it saw arrives after: fresh again.
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://c.test/") });
  assertEquals(link.locationSince(7, start)?.url, "https://c.test/");
});

Deno.test("a failed command's tail counts; a command cut off makes what is known stale", async () => {
  const { link, command } = linkWith();
  const start = link.locationSerial;
  const failing = link.call("tab.focus", { tab_id: 7 }).catch((error) => error);
  const focus = await command("tab.focus");
  link.handleResult({
    type: "result",
    id: focus.id,
    ok: false,
    error: { kind: "internal", message: "no" },
    tab: at("https://a.test/"),
  });
  await failing;
  assertEquals(link.locationSince(7, start)?.url, "https://a.test/");
  const cut = await link.call("tab.focus", { tab_id: 7 }, { timeoutMs: 1 }).catch((e) => e);
  assertEquals(cut.kind, "timeout");
  assertEquals(link.locationSince(7, start), undefined);
});

Deno.test("release, the end of reports, close and the link's end forget where a tab stands", async () => {
  const { link, command } = linkWith();
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  const released = link.call("tab.release", { tab_id: 7 });
  const release = await command("tab.release");
  assertEquals(link.knownLocation(7), undefined, "forgotten once the release is sent");
  // A report sent before the release ended, then its answer: still forgotten.
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  link.handleResult({ type: "result", id: release.id, ok: true, value: { detached: true } });
  await released;
  assertEquals(link.knownLocation(7), undefined);
  // The extension stopped reporting it (its debugger went away).
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  link.handleLocation({ type: "tab_location", tab_id: 7 });
  assertEquals(link.knownLocation(7), undefined);
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  link.tabClosed(7);
  assertEquals(link.knownLocation(7), undefined);
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  link.close();
  assertEquals(link.knownLocation(7), undefined);
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://a.test/") });
  assertEquals(link.knownLocation(7), undefined, "a closed link learns nothing");
});

Deno.test("an extension without the feature is never asked, and what it sends is not believed", async () => {
  const { link, firstCdp } = linkWith([]);
  assertEquals((await firstCdp(at("https://b.test/"))).locations, undefined);
  link.handleLocation({ type: "tab_location", tab_id: 7, tab: at("https://c.test/") });
  assertEquals(link.knownLocation(7), undefined);
});

Deno.test("the tab.observe the link sends is one the extension accepts", async () => {
  const { firstCdp } = linkWith();
  const params = await firstCdp(at("https://a.test/"));
  const parsed = Operations["tab.observe"].params.safeParse(params);
  assert(parsed.success, JSON.stringify(parsed.error?.issues));
  assert(parsed.data.enable.length > 0, "it asks for enable commands");
});

Deno.test("a dialog that opens fails the tab's waiting renderer-bound commands at once, and only those", async () => {
  const { link, command, firstCdp } = linkWith();
  await firstCdp(at("https://a.test/"));
  const read = link.call("cdp", { tab_id: 7, method: "Runtime.evaluate", params: {} });
  const owned = link.call("cdp", { tab_id: 7, method: "DOM.getDocument", params: {} }, {
    ownDialogs: true,
  });
  const press = link.call("cdp", { tab_id: 7, method: "Input.dispatchKeyEvent", params: {} });
  const failed = read.then(() => null, (error) => error.kind);
  await command("cdp", 4);
  link.handleEvent({
    type: "cdp_event",
    tab_id: 7,
    method: "Page.javascriptDialogOpening",
    params: { type: "alert", message: "hi", url: "https://a.test/" },
  });
  assertEquals(await failed, "dialog_open");
  // A caller that races dialogs itself, and input that may open one, are answered as sent.
  const ownedSent = await command("cdp", 3);
  const pressSent = await command("cdp", 4);
  link.handleResult({ type: "result", id: ownedSent.id, ok: true, value: { owned: true } });
  link.handleResult({ type: "result", id: pressSent.id, ok: true, value: { pressed: true } });
  assertEquals(await owned, { owned: true });
  assertEquals(await press, { pressed: true });
});

Deno.test("a command with no effect that is not answered in time leaves its tab unquarantined and known", async () => {
  const unknown: string[] = [];
  const { link, firstCdp } = linkWith(["tab_locations"], {
    unknown: (_link, native, command) => unknown.push(`${native} ${command.command}`),
    ended: () => {},
  });
  await firstCdp(at("https://a.test/"));
  const start = link.locationSerial - 1;
  const look = { tab_id: 7, method: "Page.getFrameTree", params: {}, session_id: "S" };
  const held = await link.call("cdp", look, { timeoutMs: 1, noEffect: true }).catch((e) => e);
  assertEquals(held.kind, "unanswered");
  assertEquals(held.mayHaveHappened, false);
  assertEquals(unknown, []);
  assertEquals(link.locationSince(7, start)?.url, "https://a.test/");
  // Any other command cut off the same way may have happened: its tab is reported, as before.
  const cut = await link.call("cdp", look, { timeoutMs: 1 }).catch((e) => e);
  assertEquals(cut.kind, "timeout");
  assertEquals(unknown.length, 1);
  assertEquals(link.locationSince(7, start), undefined);
});

Deno.test("a command whose work ended before it went out is not sent, even while the tab's observation was awaited", async () => {
  const { link, sent, command } = linkWith();
  const over = new AbortController();
  // The first command to tab 7 waits for the tab's observation to be answered.
  const read = link.call("cdp", { tab_id: 7, method: "Page.getFrameTree", params: {} }, {
    signal: over.signal,
  }).catch((error) => error);
  const observe = await command("tab.observe");
  over.abort();
  link.handleResult({ type: "result", id: observe.id, ok: true, value: {} });
  const refused = await read;
  assertEquals([refused.kind, refused.mayHaveHappened], ["abandoned", false]);
  const ended = await link.call("tab.get", { tab_id: 7 }, { signal: over.signal }).catch((e) => e);
  assertEquals(ended.kind, "abandoned");
  assertEquals(sent.map((c) => c.op), ["tab.observe"]);
});

Deno.test("the held mark of a frame listing is asked only of an extension that declared it", async () => {
  const older = linkWith(["tab_locations"]);
  const refused = await older.link.call("tab.frames", { tab_id: 7, held: true }).catch((e) => e);
  assertEquals([refused.kind, older.sent.length], ["needs_upgrade", 0]);
  const newer = linkWith(["tab_locations", "frame_holds"]);
  const listed = newer.link.call("tab.frames", { tab_id: 7, held: true });
  const sent = await newer.command("tab.frames");
  assertEquals(sent.params, { tab_id: 7, held: true });
  newer.link.handleResult({ type: "result", id: sent.id, ok: true, value: { sessions: [] } });
  assertEquals(await listed, { sessions: [] });
});
