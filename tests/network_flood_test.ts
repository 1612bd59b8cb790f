/**
 * Issue 26's network flood, end to end (decision 0340): a page sending requests faster than the
 * extension can drop their events has its network events paused until its next document, like a
 * flooding console (0291). Its own `read_network_requests` answers and says what was not
 * recorded, another workspace's calm tab answers within the bound meanwhile, and the flooding tab
 * can be closed. Real connectors, service and headless Chromium.
 */

import { calmTabAnswers, ownReadSaysPaused, startStorm, stormTabCloses } from "./support/storm.ts";

/** The calm tab's bound while the other tab floods: generous, for a loaded two-core machine. */
const CALM_MS = 10_000;

Deno.test("a tab flooding the network is no longer listened to, starves no other workspace, and can be closed", async () => {
  // Twenty requests every twenty milliseconds, for as long as the page is open.
  const storm = await startStorm("/network_storm.html");
  try {
    await ownReadSaysPaused(
      storm,
      "read_network_requests",
      /its network was not listened to/,
      /the requests it sent then were not recorded/,
    );
    await calmTabAnswers(storm, CALM_MS);
    await stormTabCloses(storm);
  } finally {
    await storm.close();
  }
});
