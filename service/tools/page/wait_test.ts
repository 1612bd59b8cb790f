import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { TabState } from "../../browser/mod.ts";
import { type Look, networkQuiet, notAskedNote, waitInSlices } from "./wait.ts";

Deno.test("a wait asks slice after slice until the page says the condition holds", async () => {
  let asked = 0;
  const waited = await waitInSlices(
    () => Promise.resolve({ met: ++asked === 3, present: asked, visible: asked }),
    { timeoutMs: 30_000, signal: new AbortController().signal },
  );
  assertEquals(waited.ended, "met");
  assertEquals(asked, 3);
  assertEquals(waited.last?.present, 3);
});

Deno.test("a cancelled wait returns at once and asks the page nothing more", async () => {
  const controller = new AbortController();
  let asked = 0;
  let answer: (look: Look) => void = () => {};
  const waiting = waitInSlices(() => {
    asked++;
    // The second slice is still in the page when the caller cancels.
    if (asked === 2) controller.abort();
    return new Promise<Look>((resolve) => answer = resolve);
  }, { timeoutMs: 30_000, signal: controller.signal });
  const first = answer;
  first({ met: false });
  const waited = await waiting;
  assertEquals(waited.ended, "cancelled");
  answer({ met: false });
  await Promise.resolve();
  assertEquals(asked, 2, "no slice after the cancel");
});

Deno.test("a wait that never holds ends at its timeout with the last answer", async () => {
  const waited = await waitInSlices(() => Promise.resolve({ met: false, present: 0 }), {
    timeoutMs: 0,
    signal: new AbortController().signal,
  });
  assertEquals(waited.ended, "timeout");
  assertEquals(waited.last?.present, 0);
});

Deno.test("the network is quiet when nothing is in flight or just finished", () => {
  const state = new TabState();
  const now = 1_000_000;
  assert(networkQuiet(state, now));
  state.apply({
    method: "Network.requestWillBeSent",
    params: { requestId: "1", request: { url: "/a", method: "GET" }, wallTime: now / 1000 - 1 },
  });
  assert(!networkQuiet(state, now), "a request in flight");
  assert(networkQuiet(state, now + 20_000), "a request open for long is a stream, not a load");
  state.apply({ method: "Network.responseReceived", params: { requestId: "1", response: {} } });
  state.network.items()[0].status = 200;
  state.network.items()[0].durationMs = 900;
  assert(!networkQuiet(state, now), "it finished 100 ms ago");
  assert(networkQuiet(state, now + 500));
});

Deno.test("what a wait did not ask is said by why, and a gone not confirmed is said so", () => {
  const look = (notAsked: Look["notAsked"], visible = 0): Look => ({
    met: false,
    present: visible,
    visible,
    notAsked,
  });
  assertEquals(notAskedNote({ met: true, visible: 0 }, "gone"), "");
  assertEquals(
    notAskedNote(look({ held: 1, withheld: 2 }), "gone"),
    " Frames not asked: 1 frame busy running a script or held by a dialog; 2 frames the policy " +
      "withholds; what they show was not counted, so gone could not be confirmed.",
  );
  // A frame the policy withholds is never asked: a gone holds without it, and says so.
  assertEquals(
    notAskedNote(look({ withheld: 1 }), "gone"),
    " Frames not asked: 1 frame the policy withholds; what they show was not counted.",
  );
  assertEquals(
    notAskedNote(look({ unlisted: 1, bounds: 3 }), "visible"),
    " Frames not asked: the page's frames could not be listed; 3 frames past the bound of 24 or " +
      "4 deep; what they show was not counted.",
  );
  // Text seen elsewhere: the gone failed on its own, not for want of asking.
  assert(!notAskedNote(look({ failed: 1 }, 2), "gone").includes("could not be confirmed"));
});
