/**
 * Issue 26's network flood, end to end (decision 0340): a page sending requests faster than the
 * extension can drop their events has its network events paused until its next document, like a
 * flooding console (0291). Its own `read_network_requests` answers and says what was not
 * recorded, another workspace's calm tab answers within the bound meanwhile, and the flooding tab
 * can be closed. Real connectors, service and headless Chromium.
 */

import { assert, assertMatch } from "./support/assert.ts";
import { allText } from "./support/results.ts";
import { startStorm } from "./support/storm.ts";
import { pollUntil, within } from "./support/wait.ts";

/** The calm tab's bound while the other tab floods: generous, for a loaded two-core machine. */
const CALM_MS = 10_000;

Deno.test("a tab flooding the network is no longer listened to, starves no other workspace, and can be closed", async () => {
  // Twenty requests every twenty milliseconds, for as long as the page is open.
  const { s, calm, storm, call, close } = await startStorm("/network_storm.html");
  try {
    // Its own network read answers, and says what it could not record.
    const read = await pollUntil(
      () => within(call("read_network_requests", { tabId: storm, limit: 2 }), 40_000, "a read"),
      (result) => /its network was not listened to/.test(allText(result)),
      "the network read to say the page sent requests too fast",
      90_000,
    );
    assert(!read.isError, allText(read));
    assertMatch(allText(read), /the requests it sent then were not recorded/);

    // Meanwhile another workspace's calls on its calm tab answer within the bound, each time.
    for (let round = 0; round < 3; round++) {
      const text = await within(
        s.call("get_page_text", { tabId: calm }),
        CALM_MS,
        `the calm tab's text, round ${round}`,
      );
      assert(!text.isError, allText(text));
      assertMatch(allText(text), /Skerry Point/);
    }

    const closed = await within(
      call("tab_control", { action: "close", tabId: storm }),
      20_000,
      "closing the flooding tab",
    );
    assert(!closed.isError, allText(closed));
  } finally {
    await close();
  }
});
