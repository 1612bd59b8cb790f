/**
 * A cross-origin frame whose renderer is held does not hold the reads of its page, end to end
 * (decision 0700). The frame runs a script without end from its first task on: read_page,
 * get_page_text and find answer with the rest of the page, each saying outside its fence, in
 * Ghostlight's words, that the frame was not read and why, and the tab is not quarantined for it,
 * so every read after works as well. (The first read waited 30 s for the browser to list the tab's
 * frames, which waited on the frame's renderer, and the tab was quarantined: every read after it
 * was refused.) A frame held by an alert instead refuses the tab's reads at once, naming the
 * dialog, until it is answered; then the frame is read.
 *
 * A frame that holds only after a read gave out refs (decision 0710): the reads after leave it out
 * the same way, and a read from a ref inside it says, in Ghostlight's words, that its page is busy
 * or held, within a few seconds, the tab not quarantined. (The read from the ref waited 30 s for
 * the frame's renderer, no listing having said it was held, and the tab was quarantined.)
 *
 * An action on a ref inside that frame (decision 0750): a click, a scroll_to and a form_input each
 * say within seconds, in Ghostlight's words, that the frame is busy and nothing was sent, the tab
 * not quarantined. (The click waited 30 s to find its element, and the tab was quarantined.) A
 * screenshot of the page and a wait that asks its frames answer as soon, the tab free.
 *
 * A form_fill whose first field, in the top page, holds the frame its second field is in
 * (decision 0780): the answer says the first was set and the second not, nothing having been sent
 * to the held frame, the tab not quarantined. (The frame's fill waited 5 s, the answer called its
 * field unknown, and the tab was quarantined.) A click on a ref below its own frame's fold goes
 * through the aim that scrolls, after the one that only looks.
 */

import { assert, assertMatch } from "./support/assert.ts";
import { startSession } from "./support/session.ts";
import { waitFor } from "./support/wait.ts";
import type { E2ESession } from "./support/session.ts";

/** Why the held frame was not read, as the answers say it. */
const HELD = /Frames not read: ref_\d+: its page is busy running a script or held by a dialog\./;

/** An answer with the page's words (in their fences) taken out: what Ghostlight says itself. */
function outsideFences(text: string): string {
  return text.replace(/<page-content-([\w-]+) [^>]*>[\s\S]*?<\/page-content-\1>/g, "");
}

/** Opens the page whose frame holds its renderer (`hold`), once the hold has begun. */
async function openHeld(s: E2ESession, hold: "busy" | "alert"): Promise<number> {
  const tabId = await s.firstTab();
  const url = s.fixtures.url(`/held_frame.html?host=held.localhost&hold=${hold}`);
  await s.ok("navigate", { url, tabId });
  await waitFor(() => Promise.resolve(s.fixtures.requests(`/held-${hold}`) > 0), "the hold");
  return tabId;
}

/**
 * Reads the page twice with each of read_page, get_page_text and find: each answers with the top
 * page and says, outside its fence, that the held frame was not read and why. A tab quarantined
 * by an earlier read would refuse them.
 */
async function readsWithoutTheFrame(s: E2ESession, tabId: number): Promise<void> {
  for (let read = 1; read <= 2; read++) {
    const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
    assert(outline.includes("heldtopwordz"), `read ${read}: ${outline}`);
    assertMatch(outsideFences(outline), HELD);
    const text = s.text(await s.ok("get_page_text", { tabId }));
    assert(text.includes("heldtopwordz"), `read ${read}: ${text}`);
    assertMatch(
      outsideFences(text),
      /\[1 frame was not read \(its page is busy running a script or held by a dialog\)/,
    );
    const found = s.text(await s.ok("find", { tabId, query: "heldtopbutton" }));
    assertMatch(found, /button "heldtopbutton" \[ref_\d+\]/);
    assertMatch(outsideFences(found), HELD);
  }
}

Deno.test("the reads of a page answer without a frame that runs a script without end", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const tabId = await openHeld(s, "busy");
    await readsWithoutTheFrame(s, tabId);
  } finally {
    await s.close();
  }
});

Deno.test("a frame's alert refuses the tab's reads at once, and once answered the frame is read", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const tabId = await openHeld(s, "alert");
    await waitFor(
      async () => /heldframedialogz/.test(await s.fail("read_page", { tabId })),
      "the alert to be known",
    );
    assertMatch(await s.fail("get_page_text", { tabId }), /alert dialog is open/);
    assertMatch(await s.fail("find", { tabId, query: "heldtopbutton" }), /alert dialog is open/);
    // Input is refused too, and the alert's words (the page's) stay in the answer's fence.
    const click = await s.fail("computer", { action: "left_click", coordinate: [20, 20], tabId });
    assertMatch(click, /alert dialog is open/);
    assert(!outsideFences(click).includes("heldframedialogz"), `unfenced: ${click}`);
    await s.ok("dialog", { action: "accept", tabId });
    const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
    assert(outline.includes("heldtopwordz") && outline.includes("heldframewordz"), outline);
    assert(!/Frames not read/.test(outline), outline);
  } finally {
    await s.close();
  }
});

/**
 * Opens the page whose frame holds its renderer only on a step of the top page (`when`: its
 * button clicked, its field set) and reads it whole while the frame is free. Answers the tab and
 * that read's outline.
 */
async function openFree(
  s: E2ESession,
  when: "click" | "fill",
): Promise<{ tabId: number; outline: string }> {
  const tabId = await s.firstTab();
  const url = s.fixtures.url(`/held_frame.html?host=held.localhost&hold=busy&when=${when}`);
  await s.ok("navigate", { url, tabId });
  let outline = "";
  await waitFor(async () => {
    outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
    return outline.includes("heldframewordz");
  }, "the frame to be read");
  return { tabId, outline };
}

/**
 * Opens the page whose frame holds its renderer only once the top page's button is clicked, reads
 * it whole while the frame is free, then clicks and waits for the hold to begin. Answers the tab
 * and the ref the free read gave the frame's heading.
 */
async function holdAfterRead(
  s: E2ESession,
): Promise<{ tabId: number; inFrame: string; field: string }> {
  const { tabId, outline } = await openFree(s, "click");
  const button = /button "heldtopbutton" \[(ref_\d+)\]/.exec(outline)?.[1];
  const inFrame = /heading "heldframewordz"[^\n]*\[(ref_\d+)\]/.exec(outline)?.[1];
  const field = /textbox "heldframefield"[^\n]*\[(ref_\d+)\]/.exec(outline)?.[1];
  assert(button && inFrame && field, outline);
  await s.ok("computer", { action: "left_click", ref: button, tabId });
  await waitFor(() => Promise.resolve(s.fixtures.requests("/held-busy") > 0), "the hold");
  return { tabId, inFrame, field };
}

/**
 * Runs `body` on the page whose frame holds once a read gave out refs ({@linkcode holdAfterRead}),
 * then reads the tab with every read: a call in `body` that got the tab quarantined fails them.
 */
async function afterHoldSinceRead(
  body: (s: E2ESession, held: { tabId: number; inFrame: string; field: string }) => Promise<void>,
): Promise<void> {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const held = await holdAfterRead(s);
    await body(s, held);
    await readsWithoutTheFrame(s, held.tabId);
  } finally {
    await s.close();
  }
}

Deno.test("a frame held after a read leaves the reads after it without that frame, the tab free", async () => {
  await afterHoldSinceRead(() => Promise.resolve());
});

Deno.test("a read from a ref inside a frame held since says the frame is busy, the tab free", async () => {
  await afterHoldSinceRead(async (s, { tabId, inFrame }) => {
    for (let read = 1; read <= 2; read++) {
      const refused = await s.fail("read_page", { tabId, filter: "all", ref_id: inFrame });
      assertMatch(
        outsideFences(refused),
        new RegExp(
          `${inFrame} is inside a frame whose page is busy running a script or held by a dialog, so it could not be read now`,
        ),
      );
    }
  });
});

/**
 * The old bound a command in a held frame waited before it failed and its tab was quarantined
 * (30 s), less room for a loaded machine: an answer before it was not waited out.
 */
const WELL_UNDER_OLD_BOUND_MS = 20_000;

/** `call`'s answer and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = Date.now();
  const answer = await call();
  return { answer, ms: Date.now() - started };
}

/** The refusal of an action on a ref inside a held frame, in Ghostlight's words. */
function heldRefusal(ref: string): RegExp {
  return new RegExp(
    `${ref} is inside a frame whose page is busy running a script or held by a dialog, so it ` +
      "could not be reached now: nothing was sent to it",
  );
}

Deno.test("an action on a ref inside a frame held since says the frame is busy, within seconds, the tab free", async () => {
  await afterHoldSinceRead(async (s, { tabId, inFrame, field }) => {
    const actions: [string, Record<string, unknown>, string][] = [
      ["computer", { action: "left_click", ref: inFrame, tabId }, inFrame],
      ["computer", { action: "scroll_to", ref: inFrame, tabId }, inFrame],
      ["form_input", { ref: field, value: "heldvaluez", tabId }, field],
    ];
    for (const [tool, args, ref] of actions) {
      const { answer, ms } = await timed(() => s.fail(tool, args));
      assert(ms < WELL_UNDER_OLD_BOUND_MS, `${tool} ${args.action ?? ""}: ${ms} ms: ${answer}`);
      assertMatch(outsideFences(answer), heldRefusal(ref));
    }
  });
});

Deno.test("a screenshot of a page whose frame is held since answers within seconds, the tab free", async () => {
  await afterHoldSinceRead(async (s, { tabId }) => {
    for (let shot = 1; shot <= 2; shot++) {
      const { answer, ms } = await timed(() => s.call("computer", { action: "screenshot", tabId }));
      assert(ms < WELL_UNDER_OLD_BOUND_MS, `shot ${shot}: ${ms} ms: ${s.text(answer)}`);
      assert(!answer.isError, `shot ${shot}: ${s.text(answer)}`);
      assert(answer.content.some((part) => part.type === "image"), `shot ${shot}: no image`);
    }
  });
});

Deno.test("a wait that looks into a frame held since answers at its timeout, the tab free", async () => {
  await afterHoldSinceRead(async (s, { tabId }) => {
    // Text the main frame does not show: every slice of the wait asks the frames too.
    const { answer, ms } = await timed(() =>
      s.fail("wait_for", { tabId, text: "nowherewordz", timeout_ms: 2_000 })
    );
    assert(ms < WELL_UNDER_OLD_BOUND_MS, `${ms} ms: ${answer}`);
    assertMatch(answer, /Timed out after 2(\.0+)? s/);
    const notAsked =
      /Frames not asked: 1 frame busy running a script or held by a dialog; what they show was not counted/;
    assertMatch(answer, notAsked);
    // The frame still shows its words, unseen: gone is not confirmed while it cannot be asked,
    // and the timeout says so (an act_on expect says the same).
    const gone = await s.fail("wait_for", {
      tabId,
      text: "heldframewordz",
      state: "gone",
      timeout_ms: 2_000,
    });
    assertMatch(gone, /^Timed out after 2(\.0+)? s: text "heldframewordz" gone did not hold/);
    assertMatch(gone, new RegExp(`${notAsked.source}, so gone could not be confirmed\\.`));
    const expected = s.text(
      await s.ok("act_on", {
        tabId,
        target: { query: "heldtopbutton" },
        action: "hover",
        expect: { text: "heldframewordz", state: "gone", timeout_ms: 1_000 },
      }),
    );
    assertMatch(expected, /Expected text "heldframewordz" gone: did NOT hold within 1 s/);
    assertMatch(expected, notAsked);
  });
});

Deno.test("a form_fill whose later field is inside a frame held by an earlier field says what it set, the tab free", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const { tabId, outline } = await openFree(s, "fill");
    assert(outline.includes("heldtopfield") && outline.includes("heldframefield"), outline);
    // The top field's handler returns only once the frame holds: its fill comes after the hold.
    const fields = { heldtopfield: "topvaluez", heldframefield: "framevaluez" };
    const { answer, ms } = await timed(() => s.call("form_fill", { tabId, fields }));
    const text = s.text(answer);
    assert(s.fixtures.requests("/held-busy") > 0, `the frame never held: ${text}`);
    assert(!answer.isError, text);
    assert(ms < WELL_UNDER_OLD_BOUND_MS, `${ms} ms: ${text}`);
    assertMatch(
      text,
      /^Filled 1 of 2 fields on tab \d+ \(1 not set\): "heldtopfield" \[ref_\d+\]\./,
    );
    assertMatch(
      outsideFences(text),
      /Not set: "heldframefield" \[ref_\d+\]: its frame's page is busy running a script or held by a dialog, so nothing was sent to it\./,
    );
    await readsWithoutTheFrame(s, tabId);
  } finally {
    await s.close();
  }
});

Deno.test("a click on a ref below its own frame's fold, the frame free, scrolls there and lands", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const { tabId, outline } = await openFree(s, "click");
    const low = /button "heldframelow" \[(ref_\d+)\]/.exec(outline)?.[1];
    assert(low, outline);
    // The aim's look finds no point of it in the frame's view: the aim that scrolls goes next.
    await s.ok("computer", { action: "left_click", ref: low, tabId });
    await waitFor(async () => {
      const after = s.text(await s.ok("read_page", { tabId, filter: "all" }));
      return after.includes("heldframelowclicked");
    }, "the click to land");
  } finally {
    await s.close();
  }
});
