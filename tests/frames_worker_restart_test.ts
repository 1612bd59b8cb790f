/**
 * Out-of-process frames stay readable after Chrome stops the extension's service worker, end to
 * end: a page framing another origin, framing a third, is open and read; the worker is stopped
 * (as Chrome stops one it judges idle) and starts again; the first read that answers at all reads
 * both frames again. Chrome reports a frame's session once, to the worker running when auto-attach
 * took the frame, and the tab's attachment outlives the worker: before, the new worker never heard
 * of those frames, and every read of the page showed its top document alone.
 */

import { assert } from "./support/assert.ts";
import { connectCdp, stopServiceWorkers } from "./support/cdp.ts";
import { openFramed } from "./support/framed.ts";
import { startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

Deno.test("a restarted service worker reads the out-of-process frames of a page already open", async () => {
  const s = await startSession({
    policy: `{ "default": "allow" }`,
    launchArgs: ["--remote-debugging"],
  });
  const cdp = await connectCdp(s.browser.ready.devtools!);
  try {
    const hosts = "r1.localhost,r2.localhost";
    const tabId = await openFramed(s, s.fixtures.url(`/nested_frames.html?hosts=${hosts}`));
    const before = s.text(await s.ok("get_page_text", { tabId }));
    for (const words of ["nestedword1z", "nestedword2z"]) assert(before.includes(words), before);

    await stopServiceWorkers(cdp);
    // The first read the restarted worker answers (the top document's words in it) must already
    // hold the frames': no later read is asked for.
    const after = await pollUntil(
      async () => s.text(await s.call("get_page_text", { tabId })),
      (text) => text.includes("nestedword0z"),
      "a read of the page once the worker is back",
    );
    for (const words of ["nestedword1z", "nestedword2z"]) {
      assert(after.includes(words), `after the worker restarted: ${after}`);
    }
    assert(!/not read/.test(after), after);
  } finally {
    cdp.close();
    await s.close();
  }
});
