/**
 * Out-of-process iframes: Chromium runs a cross-site iframe in its own renderer, reachable only
 * through a child CDP session. With flat auto-attach on a tab, Chrome reports each such frame's
 * session in `Target.attachedToTarget`; this module remembers them per tab so the service can
 * address a frame's session (`chrome.debugger.sendCommand({tabId, sessionId}, ...)`).
 *
 * @module
 */

/// <reference types="@types/chrome" />

/** One child session of a tab. */
export interface ChildSession {
  session_id: string;
  target_id: string;
  type: string;
  url: string;
}

/** Most child sessions remembered per tab. */
const MAX_SESSIONS_PER_TAB = 64;
const sessions = new Map<number, Map<string, ChildSession>>();

chrome.debugger.onEvent.addListener((source, method, params) => {
  const tabId = source.tabId;
  if (tabId === undefined) return;
  const event = (params ?? {}) as {
    sessionId?: string;
    targetInfo?: { targetId: string; type: string; url: string };
  };
  if (method === "Target.attachedToTarget" && event.sessionId && event.targetInfo) {
    let known = sessions.get(tabId);
    if (!known) sessions.set(tabId, known = new Map());
    if (known.size >= MAX_SESSIONS_PER_TAB) known.delete(known.keys().next().value!);
    known.set(event.sessionId, {
      session_id: event.sessionId,
      target_id: event.targetInfo.targetId,
      type: event.targetInfo.type,
      url: event.targetInfo.url.slice(0, 2000),
    });
  } else if (method === "Target.detachedFromTarget" && event.sessionId) {
    sessions.get(tabId)?.delete(event.sessionId);
  }
});

chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId !== undefined) sessions.delete(source.tabId);
});

/** Turns on flat auto-attach for the tab (again, harmlessly) and lists its child sessions. */
export async function childSessions(tabId: number): Promise<ChildSession[]> {
  const options = { autoAttach: true, waitForDebuggerOnStart: false, flatten: true };
  await chrome.debugger.sendCommand({ tabId }, "Target.setAutoAttach", options);
  // Nested out-of-process frames attach through their parent's session.
  for (const child of [...(sessions.get(tabId)?.values() ?? [])]) {
    await chrome.debugger.sendCommand(
      { tabId, sessionId: child.session_id } as chrome.debugger.DebuggerSession,
      "Target.setAutoAttach",
      options,
    ).catch(() => {});
  }
  return [...(sessions.get(tabId)?.values() ?? [])];
}

/** Forgets a closed tab's sessions. */
export function forgetSessions(tabId: number): void {
  sessions.delete(tabId);
}
