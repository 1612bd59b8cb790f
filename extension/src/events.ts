/**
 * Forwarding of CDP events to the service: only the events the service asked for, per tab,
 * only the params fields it named, with long strings cut and a per-tab rate bound, so a busy
 * page cannot flood the native port. A dialog's events are never dropped (decision 0211).
 *
 * @module
 */

/// <reference types="@types/chrome" />

import {
  CONSOLE_EVENTS,
  CONSOLE_PAUSED_EVENT,
  type EnableCommand,
  EVENTS_PER_SECOND,
  type FromExtension,
  NETWORK_PAUSED_EVENT,
  type ObservedEvent,
} from "../../shared/browser_protocol.ts";
import { EnableBook } from "./enable_book.ts";
import {
  clip,
  endPause,
  freshMeter,
  judge,
  madeAt,
  MAX_EVENT_CHARS,
  type Metered,
  newDocument,
  project,
  replayed,
  startPause,
} from "./event_filter.ts";
import { track, untrack } from "./locations.ts";

interface Observer extends Metered {
  /** Whether the tab reports where it stands while the debugger is attached (decision 0190). */
  locations: boolean;
  /** Event method → kept fields (undefined keeps all). */
  events: Map<string, string[] | undefined>;
  dropped: number;
}

const observers = new Map<number, Observer>();
/**
 * Per tab, the JavaScript dialogs forwarded to the service: how many opened, and whether the
 * last one is still open. A sequence's lead is withheld when one was open as it started or
 * opened before its replies were in (decision 0239).
 */
const dialogs = new Map<number, { opened: number; open: boolean }>();

/** Where `tabId`'s forwarded dialogs stand now. */
export function dialogMark(tabId: number): { opened: number; open: boolean } {
  return { ...dialogs.get(tabId) ?? { opened: 0, open: false } };
}
/** What each observed tab sends on attach; the page runtime's registration is held once. */
const enables = new EnableBook();
let sink: (message: FromExtension) => void = () => {};

/** Where forwarded events go (the native port). */
export function setEventSink(send: (message: FromExtension) => void): void {
  sink = send;
}

/**
 * Sets what a tab forwards and what to enable on attach, and whether it reports where it stands
 * (`locations`, decision 0190).
 */
export function observe(
  tabId: number,
  events: ObservedEvent[],
  enable: readonly EnableCommand[],
  locations: boolean,
): void {
  const previous = observers.get(tabId);
  enables.ask(tabId, enable);
  observers.set(tabId, {
    locations,
    events: new Map(events.map((event) => [event.method, event.fields])),
    tokens: previous?.tokens ?? EVENTS_PER_SECOND,
    refilledAt: previous?.refilledAt ?? Date.now(),
    dropped: previous?.dropped ?? 0,
    console: previous?.console ?? freshMeter(Date.now()),
    network: previous?.network ?? freshMeter(Date.now()),
  });
}

/**
 * Observes `tabId` as `openerTabId` is observed (its own rate bound); false when the opener is
 * not observed.
 */
export function observeLike(openerTabId: number, tabId: number): boolean {
  const opener = observers.get(openerTabId);
  if (!opener || observers.has(tabId)) return false;
  enables.askLike(openerTabId, tabId);
  observers.set(tabId, {
    locations: opener.locations,
    events: opener.events,
    tokens: EVENTS_PER_SECOND,
    refilledAt: Date.now(),
    dropped: 0,
    console: freshMeter(Date.now()),
    network: freshMeter(Date.now()),
  });
  return true;
}

/** Starts reporting where `tabId` stands, once attached, if the service asked for it. */
export function trackIfAsked(tabId: number): void {
  if (observers.get(tabId)?.locations) track(tabId);
}

/** The commands to replay after attaching to a tab the service observes. */
export function enableCommands(tabId: number): readonly EnableCommand[] {
  return enables.commands(tabId);
}

/**
 * The enable commands for a fresh attachment to `tabId`: all of them, noted as sent. They turn
 * its console on again, so a pause of it ends here (and starts again if the page still floods).
 */
export function enableOnAttach(tabId: number): EnableCommand[] {
  const observer = observers.get(tabId);
  if (observer && observer.console.pausedAt !== null) heardAgain(tabId, observer);
  if (observer && observer.network.pausedAt !== null) {
    endPause(observer.network, tellPaused(tabId, false, NETWORK_PAUSED_EVENT));
  }
  return enables.attached(tabId);
}

/** Of what `tabId` asks for, what its current attachment has not been sent yet. */
export function enableNotYetSent(tabId: number): EnableCommand[] {
  return enables.notYetSent(tabId);
}

/**
 * Whether `tabId`'s console or network, as `method` is one of its events, is no longer listened
 * to now (decisions 0291, 0340): an answer of the tab need not wait behind such events in its
 * lane (decision 0630).
 */
export function unheard(tabId: number, method: string): boolean {
  const observer = observers.get(tabId);
  if (!observer) return false;
  if (CONSOLE_EVENTS.includes(method)) return observer.console.pausedAt !== null;
  return method.startsWith("Network.") && observer.network.pausedAt !== null;
}

/** Forgets a tab no longer observed (released or closed). */
export function forget(tabId: number): void {
  untrack(tabId);
  observers.delete(tabId);
  dialogs.delete(tabId);
  enables.forget(tabId);
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  // Events from child sessions (out-of-process frames) are not the tab's own.
  const tabId = source.tabId;
  if (tabId === undefined || (source as { sessionId?: string }).sessionId) return;
  const observer = observers.get(tabId);
  if (!observer || !observer.events.has(method)) return;
  const raw = (params ?? {}) as Record<string, unknown>;
  const now = Date.now();
  const ofConsole = CONSOLE_EVENTS.includes(method);
  const ofNetwork = method.startsWith("Network.");
  if (
    (ofConsole && observer.console.pausedAt !== null) ||
    (ofNetwork && observer.network.pausedAt !== null)
  ) {
    // Sent before the pause took effect: not recorded, and counted.
    observer.dropped++;
    return;
  }
  if (replayed(observer.console, method, raw)) return;
  if (observer.console.pausedAt !== null && newDocument(method, raw)) {
    void resumeConsole(tabId, observer);
  }
  if (observer.network.pausedAt !== null && newDocument(method, raw)) {
    void resumeNetwork(tabId, observer);
  }
  const verdict = judge(observer, method, now, madeAt(method, raw) ?? now);
  if (verdict.pause === "console") pauseConsole(tabId, observer);
  if (verdict.pause === "network") pauseNetwork(tabId, observer);
  if (!verdict.forward) {
    observer.dropped++;
    return;
  }
  const fields = observer.events.get(method);
  const kept = clip(fields ? project(raw, fields) : raw, 0) as Record<string, unknown>;
  if (JSON.stringify(kept).length > MAX_EVENT_CHARS) {
    observer.dropped++;
    return;
  }
  const dropped = observer.dropped;
  observer.dropped = 0;
  if (method === "Page.javascriptDialogOpening" || method === "Page.javascriptDialogClosed") {
    const mark = dialogMark(tabId);
    const opening = method === "Page.javascriptDialogOpening";
    dialogs.set(tabId, { opened: mark.opened + (opening ? 1 : 0), open: opening });
  }
  sink({
    type: "cdp_event",
    tab_id: tabId,
    method,
    params: kept,
    ...(dropped > 0 ? { dropped } : {}),
  });
});

/**
 * Stops listening to a tab whose page logs more than its lines can be recorded for long enough
 * ({@linkcode judge}, decision 0630) until its main frame shows a new document (decision 0291): the
 * browser sends every console event to the extension whether it is forwarded or not,
 * and a page logging thousands of lines every few milliseconds left other tabs' commands waiting
 * behind them and grew the browser's memory without bound. `Runtime.disable` and `Log.disable`
 * stop the events at the page; the service is told when listening stopped and started again.
 */
function pauseConsole(tabId: number, observer: Observer): void {
  startPause(observer.console, tellPaused(tabId, true));
  for (const method of ["Runtime.disable", "Log.disable"]) {
    chrome.debugger.sendCommand({ tabId }, method).catch(() => {});
  }
}

/**
 * Listens to a paused tab's console again. The binding registrations go again after
 * `Runtime.enable`: turning the domain off forgets them. What the browser replays of its kept
 * messages is passed by ({@linkcode replayed}).
 */
async function resumeConsole(tabId: number, observer: Observer): Promise<void> {
  heardAgain(tabId, observer);
  const again = enableCommands(tabId).filter((command) =>
    command.method.startsWith("Runtime.") || command.method === "Log.enable"
  );
  for (const command of again) {
    if (observers.get(tabId) !== observer) return;
    await chrome.debugger.sendCommand({ tabId }, command.method, command.params).catch(() => {});
  }
}

/** Ends a pause of `tabId`'s console, and tells the service. */
function heardAgain(tabId: number, observer: Observer): void {
  endPause(observer.console, tellPaused(tabId, false));
}

/**
 * Stops listening to a tab whose page starts requests faster than their events can be recorded,
 * for long enough ({@linkcode judge}, decisions 0340 and 0580), as
 * {@linkcode pauseConsole} does for its console: `Network.disable` stops them at the page until
 * its main frame shows a new document.
 */
function pauseNetwork(tabId: number, observer: Observer): void {
  startPause(observer.network, tellPaused(tabId, true, NETWORK_PAUSED_EVENT));
  chrome.debugger.sendCommand({ tabId }, "Network.disable").catch(() => {});
}

/** Listens to a paused tab's network events again: its `Network.*` enable commands go again. */
async function resumeNetwork(tabId: number, observer: Observer): Promise<void> {
  endPause(observer.network, tellPaused(tabId, false, NETWORK_PAUSED_EVENT));
  const again = enableCommands(tabId).filter((command) => command.method.startsWith("Network."));
  for (const command of again) {
    if (observers.get(tabId) !== observer) return;
    await chrome.debugger.sendCommand({ tabId }, command.method, command.params).catch(() => {});
  }
}

/**
 * Tells the service that `tabId`'s console (or, by `event`, its network) is (`paused`) or is
 * again listened to; returns when.
 */
function tellPaused(tabId: number, paused: boolean, event = CONSOLE_PAUSED_EVENT): number {
  const at = Date.now();
  sink({ type: "cdp_event", tab_id: tabId, method: event, params: { paused, at } });
  return at;
}
