/**
 * Out-of-process iframes: Chromium runs a cross-site iframe in its own renderer, reachable only
 * through a child CDP session. With flat auto-attach on a tab, Chrome reports each such frame's
 * session in `Target.attachedToTarget`; this module remembers them per tab so the service can
 * address a frame's session (`chrome.debugger.sendCommand({tabId, sessionId}, ...)`).
 *
 * @module
 */

/// <reference types="@types/chrome" />

import { CutOffs } from "./cut_off.ts";
import { type ChildSession, frameListing } from "./frame_listing.ts";

/**
 * How long a listing waits for a frame's renderer to take auto-attach. Chrome answers
 * `Target.setAutoAttach` in a frame's session only once that frame's renderer has (it asks the
 * renderer to report its workers), so a held renderer would hold the listing, and every read of
 * the page with it, until the service's bound cut it off and quarantined the tab.
 */
export const FRAME_ANSWER_MS = 2_000;

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
    inFlight.cut(flightKey(tabId, event.sessionId));
    taking.delete(flightKey(tabId, event.sessionId));
  }
});

/**
 * Chrome never answers a command still running in a child session when that session detaches
 * (its frame removed or navigated to another process): the command would hang until the
 * service's bound and leave the tab quarantined. Each command on a child session is ended here
 * instead, as soon as the session's detach arrives.
 */
const inFlight = new CutOffs<string>();

function flightKey(tabId: number, sessionId: string): string {
  return `${tabId}/${sessionId}`;
}

/** A command cut off because its frame's session detached: the frame's document is gone. */
export class SessionEnded extends Error {
  constructor(method: string) {
    super(`${method}: the frame's session ended (the frame went away) while the command ran`);
  }
}

/**
 * Runs `send` on the child session `sessionId` of the tab, rejecting with
 * {@linkcode SessionEnded} if that session detaches before Chrome answers.
 */
export function untilSessionEnds<T>(
  tabId: number,
  sessionId: string,
  method: string,
  send: () => Promise<T>,
): Promise<T> {
  return inFlight.race(flightKey(tabId, sessionId), send, () => new SessionEnded(method));
}

chrome.debugger.onDetach.addListener((source) => {
  if (source.tabId !== undefined) forgetSessions(source.tabId);
});

/**
 * The tabs whose frames Chrome reported to this worker, each once its auto-attach was turned on
 * afresh here. Chrome reports a frame's session once, when auto-attach first takes the frame, to
 * the worker running then; the tab's attachment outlives a worker Chrome stopped, so a worker
 * started since would never hear of the frames already there (a second `Target.setAutoAttach`
 * reports nothing), and every out-of-process frame of an open page would stay unreadable.
 */
const reported = new Map<number, Promise<void>>();

/**
 * Turns the tab's auto-attach off once in this worker's life, before it is turned on: off detaches
 * the sessions an earlier worker had, and on attaches their frames again and reports them here
 * (on a fresh attachment, off does nothing).
 */
function reportedHere(tabId: number, options: Record<string, unknown>): Promise<void> {
  let off = reported.get(tabId);
  if (!off) {
    off = chrome.debugger.sendCommand({ tabId }, "Target.setAutoAttach", {
      ...options,
      autoAttach: false,
    }).then(() => {});
    const mine = off;
    reported.set(tabId, mine);
    mine.catch(() => {
      if (reported.get(tabId) === mine) reported.delete(tabId);
    });
  }
  return off;
}

/**
 * Each child session's `Target.setAutoAttach` still unanswered, by `tab/session`, and when it was
 * sent: a held renderer answers it once it is free, and a listing meanwhile waits on the same one,
 * only for what is left of its bound, instead of sending another (a page's reads list its frames
 * once per frame, and each would wait the whole bound again).
 */
const taking = new Map<string, { took: Promise<void>; sent: number }>();

/**
 * Turns on auto-attach in a child session (its nested out-of-process frames then attach through
 * it): true once the frame's renderer took it, false when it did not within
 * {@linkcode FRAME_ANSWER_MS} of being sent. A failure (the session went away) counts as taken:
 * nothing holds it.
 */
function autoAttachIn(tabId: number, sessionId: string, options: object): Promise<boolean> {
  const key = flightKey(tabId, sessionId);
  let asked = taking.get(key);
  if (!asked) {
    const took = chrome.debugger.sendCommand(
      { tabId, sessionId } as chrome.debugger.DebuggerSession,
      "Target.setAutoAttach",
      options,
    ).then(() => {}, () => {}).finally(() => taking.delete(key));
    taking.set(key, asked = { took, sent: Date.now() });
  }
  const left = asked.sent + FRAME_ANSWER_MS - Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(resolve, left, false));
  return Promise.race([asked.took.then(() => true), late]).finally(() => clearTimeout(timer));
}

/**
 * Turns on flat auto-attach for the tab (again, harmlessly) and lists its child sessions, those
 * whose renderer did not take it in time marked `held` when `markHeld` (the service asked).
 */
export async function childSessions(tabId: number, markHeld: boolean): Promise<ChildSession[]> {
  const options = { autoAttach: true, waitForDebuggerOnStart: false, flatten: true };
  await reportedHere(tabId, options);
  await chrome.debugger.sendCommand({ tabId }, "Target.setAutoAttach", options);
  // Nested out-of-process frames attach through their parent's session, each frame's renderer
  // asked at once, none waited for beyond the bound.
  const children = [...(sessions.get(tabId)?.values() ?? [])];
  const took = await Promise.all(
    children.map((child) => autoAttachIn(tabId, child.session_id, options)),
  );
  const held = new Set(children.filter((_, i) => !took[i]).map((child) => child.session_id));
  return frameListing([...(sessions.get(tabId)?.values() ?? [])], held, markHeld);
}

/** Forgets a closed tab's sessions. */
export function forgetSessions(tabId: number): void {
  sessions.delete(tabId);
  reported.delete(tabId);
  for (const key of [...taking.keys()]) if (key.startsWith(`${tabId}/`)) taking.delete(key);
}
