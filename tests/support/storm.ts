/**
 * Two workspaces for a flood test: the session's own, on a calm tab showing the article, and a
 * second client's ("stormer"), on a tab showing a fixture page that floods. Its calls go through
 * `call`; `close` ends both.
 */

import { assert } from "./assert.ts";
import { allText } from "./results.ts";
import { type CallResult, type E2ESession, startSession } from "./session.ts";

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
