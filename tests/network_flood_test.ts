/**
 * Issue 26's network flood, end to end (decision 0340): a page sending requests faster than the
 * extension can drop their events has its network events paused until its next document, like a
 * flooding console (0291). Its own `read_network_requests` answers and says what was not
 * recorded, another workspace's calm tab answers within the bound meanwhile, and the flooding tab
 * can be closed. Then the link's fairness (decision 0570): with the service stopped, a tab's
 * backlog waits in its own bounded lane in the extension, not in Chrome's queue, and what the lane
 * could not hold is counted and said. Real connectors, service and headless Chromium.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { allText } from "./support/results.ts";
import type { CallResult } from "./support/session.ts";
import {
  calmTabAnswers,
  ownReadSaysPaused,
  startStorm,
  type Storm,
  stormTabCloses,
} from "./support/storm.ts";
import { pollUntil, within } from "./support/wait.ts";

/** The calm tab's bound while the other tab floods: generous, for a loaded two-core machine. */
const CALM_MS = 10_000;
/**
 * Lines the burst page logs while the service is stopped: well over what the hops hold (a socket's
 * and a pipe's buffers, the extension's window of 16 and its lane of 256 events of ~2 KB each).
 */
const BURST = 1_000;

Deno.test("a tab flooding the network is no longer listened to, starves no other workspace, and can be closed", async (t) => {
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
    await t.step(
      "a tab's backlog waits in its own bounded lane, counted, and the calm tab still answers",
      () => backlogInItsLane(storm),
    );
  } finally {
    await storm.close();
  }
});

/**
 * What a console read of the burst's lines says: those kept, older ones evicted, and the tab's
 * events not recorded.
 */
function consoleCounts(read: CallResult): { kept: number; evicted: number; dropped: number } {
  const said = allText(read);
  const number = (pattern: RegExp) => Number(said.match(pattern)?.[1] ?? 0);
  return {
    kept: (read.structuredContent as { total: number }).total,
    evicted: number(/\((\d+) older ones were dropped\)/),
    dropped: number(/: (\d+) were not recorded\)/),
  };
}

/**
 * The stormer's tab logs {@linkcode BURST} lines at a pace the per-tab rate lets through while the
 * service is stopped, so nothing downstream takes them. Without the extension's lanes every line
 * waited in Chrome's queue and all arrived later; with them the tab's lane holds its bound and
 * counts the rest, which its read then says. The calm tab's call made meanwhile answers once the
 * service runs again.
 */
async function backlogInItsLane(storm: Storm): Promise<void> {
  const opened = await storm.call("tabs_context_mcp", { createIfEmpty: true });
  const busy = (opened.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
  const there = await storm.call("navigate", {
    url: storm.s.fixtures.url("/console_burst.html"),
    tabId: busy,
  });
  assert(!there.isError, allText(there));
  const lines = { tabId: busy, limit: 1, pattern: "^burst" };
  const before = await storm.call("read_console_messages", lines);
  assertEquals(consoleCounts(before), { kept: 0, evicted: 0, dropped: 0 });
  const started = await storm.call("javascript_tool", {
    action: "javascript_exec",
    text: `burst(${BURST}); "started"`,
    tabId: busy,
  });
  assert(!started.isError, allText(started));
  const { testEnv } = storm.s;
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const pid = (await fetchStatus(paths.controlSocket)).service.pid;
  let calm: Promise<CallResult> | undefined;
  Deno.kill(pid, "SIGSTOP");
  try {
    // Sent now, answered once the service runs again.
    calm = storm.s.call("get_page_text", { tabId: storm.calm });
    await pollUntil(
      () => Promise.resolve(storm.s.fixtures.requests("/no-content")),
      (done) => done > 0,
      "the page to log its burst",
      90_000,
    );
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
  const resumed = performance.now();
  const text = await within(calm!, 30_000, "the calm tab's text after the stop");
  console.log(`calm get_page_text after the stop: ${Math.round(performance.now() - resumed)} ms`);
  assert(/Skerry Point/.test(allText(text)), allText(text));
  // Every line is either recorded (kept, or evicted from the ring) or counted as not recorded.
  const read = await pollUntil(
    async () => consoleCounts(await storm.call("read_console_messages", lines)),
    (counts) => counts.kept + counts.evicted + counts.dropped >= BURST,
    "the burst's lines to be recorded or counted",
    60_000,
  );
  console.log(`burst behind a stopped service: ${JSON.stringify(read)}`);
  // The count of what was not recorded is the tab's, so it may also hold the network events of
  // the page's last request (a handful), waiting in the same full lane.
  const seen = read.kept + read.evicted + read.dropped;
  assert(seen <= BURST + 10, `${seen} lines recorded or counted of ${BURST}`);
  assert(read.dropped > 0, `the tab's lane dropped nothing: ${JSON.stringify(read)}`);
  await calmTabAnswers(storm, CALM_MS);
}
