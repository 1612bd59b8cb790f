/**
 * A browser outlives the service that attached to its tabs: after an upgrade the new service
 * finds the old one's page runtime still registered for new documents in those tabs' debugger
 * sessions. Each build keeps to a world of its own (decision 0237), so an older runtime never
 * stands in for this one. End to end through the real connector, service and headless Chromium;
 * the older registration is made from the extension's worker, in the tab's own debugger session,
 * as the older service's was.
 */

import { decomposeTabId } from "../service/browser/mod.ts";
import { WORLD_NAME } from "../service/tools/page/frames.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectCdp, evaluateInExtension, inTabWorld } from "./support/cdp.ts";
import { startSession } from "./support/session.ts";

/**
 * An expression for the extension's worker: registers `source` for new documents of tab
 * `native` (and runs it in the document shown now) in the world `worldName`.
 */
function register(native: number, source: string, worldName: string): string {
  return `chrome.debugger.sendCommand({ tabId: ${native} }, ` +
    `"Page.addScriptToEvaluateOnNewDocument", { source: ${JSON.stringify(source)}, ` +
    `worldName: ${JSON.stringify(worldName)}, runImmediately: true }).then(() => true)`;
}

/**
 * An expression for the extension's worker: exposes the binding `name` in the world `worldName`
 * of tab `native`, as an older service registered its landing report's (decision 0244).
 */
function bind(native: number, name: string, worldName: string): string {
  return `chrome.debugger.sendCommand({ tabId: ${native} }, "Runtime.addBinding", ` +
    `{ name: ${JSON.stringify(name)}, executionContextName: ${JSON.stringify(worldName)} })` +
    `.then(() => true)`;
}

/** An expression for the extension's worker: the runtime's token in `worldName` of tab `native`. */
function tokenIn(native: number, worldName: string): string {
  return inTabWorld(native, worldName, "globalThis.__ghostlight?.token ?? null");
}

/** A session whose browser the test also reaches over CDP, on the bench form (`?query`). */
async function onForm(
  query: string,
  body: (
    s: Awaited<ReturnType<typeof startSession>>,
    cdp: Awaited<ReturnType<typeof connectCdp>>,
    tab: { tabId: number; native: number },
  ) => Promise<void>,
): Promise<void> {
  const s = await startSession({ launchArgs: ["--remote-debugging"] });
  const cdp = await connectCdp(s.browser.ready.devtools!);
  try {
    const tabId = await s.firstTab();
    const native = decomposeTabId(tabId)!.native;
    await s.ok("navigate", { url: s.fixtures.url(`/bench_form.html?${query}`), tabId });
    await body(s, cdp, { tabId, native });
  } finally {
    cdp.close();
    await s.close();
  }
}

Deno.test("a page runtime an older build registered in the tab does not stand in for this build's", async () => {
  await onForm("before", async (s, cdp, { tabId, native }) => {
    // An older runtime holding its world outright, under the name builds before 0237 used and
    // under another build's name. Through its own build's binding it names its world as it is
    // installed and reports each document at its load (before this build's runtime does, at
    // `pageshow`), as this build's runtime would: a world or facts taken from it would be the
    // older runtime's (decision 0244).
    const report = JSON.stringify({
      url: "http://older.example/",
      title: "Older build's report",
      status: 200,
      ready: "complete",
    });
    const say = (payload: string) =>
      `for (const name of Object.getOwnPropertyNames(globalThis)) ` +
      `if (name.startsWith("__ghostlightLanded")) globalThis[name](${JSON.stringify(payload)});`;
    const older = `globalThis.__ghostlight = { token: "older-build" }; ` +
      say(JSON.stringify({ world: "older-build" })) +
      `addEventListener("load", () => { ${say(report)} });`;
    for (const world of ["ghostlight", "ghostlight-000000000000"]) {
      assertEquals(await evaluateInExtension<boolean>(cdp, register(native, older, world)), true);
    }
    const olderBinding = bind(native, "__ghostlightLanded_000000000000", "ghostlight-000000000000");
    assertEquals(await evaluateInExtension<boolean>(cdp, olderBinding), true);

    // The document shown now and the next one are read and searched with this build's runtime.
    assertMatch(s.text(await s.ok("read_page", { tabId })), /textbox "Full name"/);
    const landed = s.text(
      await s.ok("navigate", { url: s.fixtures.url("/bench_form.html?after"), tabId }),
    );
    assert(!landed.includes("Older build"), `the answer is this build's report: ${landed}`);
    assertMatch(s.text(await s.ok("read_page", { tabId })), /textbox "Full name"/);
    const found = s.text(await s.ok("find", { query: "full name field", tabId }));
    assertMatch(found.split("\n").find((line) => /ref_\d+/.test(line)) ?? "", /Full name/);
    const typed = await s.ok("computer", {
      action: "left_click",
      ref: found.match(/ref_\d+/)![0],
      tabId,
    });
    assertMatch(s.text(typed), /left_click at ref_\d+/);

    // Both worlds exist side by side in the new document; each holds its own runtime.
    assertEquals(await evaluateInExtension(cdp, tokenIn(native, "ghostlight")), "older-build");
    const own = await evaluateInExtension<string | null>(cdp, tokenIn(native, WORLD_NAME));
    // A token (a null would mean no runtime there), and not the older one's.
    assertEquals(typeof own, "string", "this build's world holds a runtime");
    assert(own !== "older-build", "this build's world holds its own runtime");
  });
});

Deno.test("a page's own pagehide does not make the runtime take its document for hidden", async () => {
  await onForm("hidden", async (s, cdp, { tabId, native }) => {
    const shown = inTabWorld(native, WORLD_NAME, "globalThis.__ghostlight.vouch(0).current");
    assertEquals(await evaluateInExtension(cdp, shown), true);
    // Only the browser's own event says the document went into the back/forward cache: taken
    // from the page, it would send every read the slow way and refuse `form_fill` for good.
    const text = 'dispatchEvent(new PageTransitionEvent("pagehide", { persisted: true })); "sent"';
    await s.ok("javascript_tool", { action: "javascript_exec", text, tabId });
    assertEquals(await evaluateInExtension(cdp, shown), true);
  });
});
