/**
 * Two workspaces for a flood test: the session's own, on a calm tab showing the article, and a
 * second client's ("stormer"), on a tab showing a fixture page that floods. Its calls go through
 * `call`; `close` ends both.
 */

import { assert, assertMatch } from "./assert.ts";
import { allText } from "./results.ts";
import { type CallResult, type E2ESession, startSession } from "./session.ts";
import { pollUntil, within } from "./wait.ts";

/** A running flood: the session, the calm and the flooding tab, and the stormer's calls. */
export interface Storm {
  s: E2ESession;
  calm: number;
  storm: number;
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** Opens both tabs, the second on the fixture page `path`. */
export async function startStorm(path: string): Promise<Storm> {
  const s = await startSession();
  const stormer = await s.connectClient("stormer");
  const call = async (name: string, args: Record<string, unknown>) =>
    await stormer.callTool({ name, arguments: args }) as CallResult;
  const close = async () => {
    await stormer.close().catch(() => {});
    await s.close();
  };
  try {
    const calm = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/article.html"), tabId: calm });
    const opened = await call("tabs_context_mcp", { createIfEmpty: true });
    const storm = (opened.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    const there = await call("navigate", { url: s.fixtures.url(path), tabId: storm });
    assert(!there.isError, allText(there));
    return { s, calm, storm, call, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The flooding tab's own read (`tool`) answers, and says what it could not record: polled until
 * its answer matches `paused`, then checked against `unrecorded`. Generous bounds: the machine
 * may be loaded.
 */
export async function ownReadSaysPaused(
  storm: Storm,
  tool: string,
  paused: RegExp,
  unrecorded: RegExp,
): Promise<void> {
  const read = await pollUntil(
    () => within(storm.call(tool, { tabId: storm.storm, limit: 2 }), 40_000, "a read"),
    (result) => paused.test(allText(result)),
    `${tool} to say the page went too fast`,
    90_000,
  );
  assert(!read.isError, allText(read));
  assertMatch(allText(read), unrecorded);
}

/** Meanwhile the other workspace's reads of its calm tab answer within `boundMs`, three times. */
export async function calmTabAnswers(storm: Storm, boundMs: number): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    const text = await within(
      storm.s.call("get_page_text", { tabId: storm.calm }),
      boundMs,
      `the calm tab's text, round ${round}`,
    );
    assert(!text.isError, allText(text));
    assertMatch(allText(text), /Skerry Point/);
    console.log(`calm get_page_text: ${Math.round(performance.now() - started)} ms`);
  }
}

/** The flooding tab can be closed, and is gone from its workspace's tabs. */
export async function stormTabCloses(storm: Storm): Promise<void> {
  const closed = await within(
    storm.call("tab_control", { action: "close", tabId: storm.storm }),
    20_000,
    "closing the flooding tab",
  );
  assert(!closed.isError, allText(closed));
  const left = await storm.call("tabs_context_mcp", {});
  assert(!JSON.stringify(left.structuredContent).includes(String(storm.storm)), "the tab is gone");
}
