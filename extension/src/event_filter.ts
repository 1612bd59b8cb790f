/**
 * The pure part of event forwarding: keeping only named fields of an event, clipping what is
 * left, and the per-tab token bucket. No Chrome API here, so it is tested on its own.
 *
 * @module
 */

import {
  CONSOLE_EVENTS,
  EVENT_STRING_MAX,
  EVENTS_PER_SECOND,
  NEVER_DROPPED_EVENTS,
} from "../../shared/browser_protocol.ts";

/** Deepest nesting kept in a forwarded event. */
const MAX_DEPTH = 6;
/** Most items kept from an array in a forwarded event. */
const MAX_ITEMS = 50;
/** A forwarded event larger than this (serialized) is dropped and counted. */
export const MAX_EVENT_CHARS = 64 * 1024;

/** A token bucket refilled at a rate per second (EVENTS_PER_SECOND unless said), holding at most that many. */
export interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** Cuts long strings, deep nesting and long arrays. */
export function clip(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > EVENT_STRING_MAX ? `${value.slice(0, EVENT_STRING_MAX)}…` : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => clip(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = clip(item, depth + 1);
  return out;
}

/** Keeps only the dotted paths `fields` of `params`. */
export function project(
  params: Record<string, unknown>,
  fields: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of fields) {
    const parts = path.split(".");
    let from: unknown = params;
    for (const part of parts) {
      from = from !== null && typeof from === "object"
        ? (from as Record<string, unknown>)[part]
        : undefined;
    }
    if (from === undefined) continue;
    let into = out;
    for (const part of parts.slice(0, -1)) {
      into = (into[part] ??= {}) as Record<string, unknown>;
    }
    into[parts.at(-1)!] = from;
  }
  return out;
}

/** Takes one token if there is one (refilling first); false means drop the event. */
export function takeToken(
  observer: Bucket,
  now: number,
  perSecond: number = EVENTS_PER_SECOND,
): boolean {
  observer.tokens = Math.min(
    perSecond,
    observer.tokens + ((now - observer.refilledAt) / 1000) * perSecond,
  );
  observer.refilledAt = now;
  if (observer.tokens < 1) return false;
  observer.tokens -= 1;
  return true;
}

/** Whether an event of `method` is forwarded now: a dialog's always, others for a token. */
export function admit(observer: Bucket, method: string, now: number): boolean {
  return NEVER_DROPPED_EVENTS.includes(method) || takeToken(observer, now);
}

/**
 * Requests a tab's events can be recorded for, per second: each takes three of the rate bound's
 * events (sent; answered; finished or failed).
 */
export const RECORDED_REQUESTS_PER_SECOND = EVENTS_PER_SECOND / 3;

/**
 * How one kind of a tab's events is judged to flood (decisions 0291, 0340, 0580, 0630): by what
 * the page makes, not by what happens to be dropped. Each event the meter counts fills a level by
 * one; the level drains at `drainPerSecond`, what the rate bound can record of that kind; at
 * `limit` the kind is paused. The drops depend on how much else the tab sends and how fast the
 * service reads: a page slowed by a busy processor dropped too few within any one second to be
 * paused, however long it flooded.
 */
export interface FloodRule {
  drainPerSecond: number;
  limit: number;
}

/**
 * Console events a tab may log beyond what the rate bound records before its console is paused
 * (decision 0630): a burst of 700 at once is, as under the old rule (a full bucket of 200, then 500
 * dropped within a second), so a storm is paused no later in the worker's order of events, and
 * every event the worker takes before the pause is one more of the storm's already on its way; a
 * page logging thousands of lines a second is paused within a second, the same page starved of the
 * processor within a few, a burst of a few hundred lines never.
 */
export const FLOOD_LINES = 700;
/**
 * Requests a tab may start beyond what its events can be recorded for before its network is
 * paused (decision 0580): about a second of a page starting a thousand requests a second, a few
 * seconds of the same page starved of the processor, never a page's load of a few hundred.
 */
export const FLOOD_REQUESTS = 1_000;

/** A tab's console: every console event counts, drained at the whole rate bound. */
export const CONSOLE_FLOOD: FloodRule = { drainPerSecond: EVENTS_PER_SECOND, limit: FLOOD_LINES };
/**
 * A tab's network: only the requests it starts count (each `Network.requestWillBeSent`, whatever
 * becomes of its events). Metering every `Network.*` event also paused the network of a tab that
 * only flooded its console (decision 0340), whose console read was then cut off.
 */
export const NETWORK_FLOOD: FloodRule = {
  drainPerSecond: RECORDED_REQUESTS_PER_SECOND,
  limit: FLOOD_REQUESTS,
};

/** Where one kind of a tab's listening stands: its console's, or its network's. */
export interface FloodMeter {
  /** What the tab made beyond what can be recorded, as its {@linkcode FloodRule} counts, at `at`. */
  level: number;
  at: number;
  /** While paused: since when. */
  pausedAt: number | null;
  /** When listening last started again, 0 when it never stopped. */
  resumedAt: number;
}

/** A meter for a tab that has not flooded. */
export function freshMeter(now: number): FloodMeter {
  return { level: 0, at: now, pausedAt: null, resumedAt: 0 };
}

/**
 * Counts one event of the kind `meter` judges (forwarded or not); true when the level has reached
 * the rule's limit, and the kind should be paused.
 */
export function floods(meter: FloodMeter, rule: FloodRule, now: number): boolean {
  const drained = (Math.max(0, now - meter.at) / 1000) * rule.drainPerSecond;
  meter.level = Math.max(0, meter.level - drained) + 1;
  meter.at = Math.max(meter.at, now);
  return meter.level >= rule.limit;
}

/** A tab's rate bound and the meters that pause its console and its network. */
export interface Metered extends Bucket {
  /** Whether the tab's console floods, and whether it is listened to now (decisions 0291, 0630). */
  console: FloodMeter;
  /** The same for its network, by the requests it starts (decisions 0340, 0580). */
  network: FloodMeter;
}

/** What becomes of one event a tab sent: forwarded or not, and what it pauses. */
export interface Verdict {
  forward: boolean;
  pause: "console" | "network" | null;
}

/**
 * Judges one event of a tab whose console or network (as the event is) is listened to: a request
 * it starts may flood the network, a console event the console ({@linkcode floods}), each metered
 * at `made`, when the page made it ({@linkcode madeAt}); otherwise it takes a token of the rate
 * bound, which is the worker's, at `now`. The event that starts a pause is not forwarded.
 */
export function judge(tab: Metered, method: string, now: number, made = now): Verdict {
  if (method === "Network.requestWillBeSent" && floods(tab.network, NETWORK_FLOOD, made)) {
    return { forward: false, pause: "network" };
  }
  if (CONSOLE_EVENTS.includes(method) && floods(tab.console, CONSOLE_FLOOD, made)) {
    return { forward: false, pause: "console" };
  }
  return { forward: admit(tab, method, now), pause: null };
}

/**
 * When the page logged a console event or started a request, by the browser's stamp on the event
 * (ms since the epoch); undefined for other events, or one without a stamp. A flood is metered by
 * it, not by when the worker got round to the event: a worker starved of the processor takes the
 * flood's events more slowly than the page made them, and by its own clock a page logging
 * thousands of lines a second looked like one logging a few hundred.
 */
export function madeAt(method: string, params: Record<string, unknown>): number | undefined {
  if (method === "Network.requestWillBeSent") {
    return typeof params.wallTime === "number" ? params.wallTime * 1_000 : undefined;
  }
  if (!CONSOLE_EVENTS.includes(method)) return undefined;
  const entry = method === "Log.entryAdded"
    ? params.entry as Record<string, unknown> | undefined
    : params;
  return typeof entry?.timestamp === "number" ? entry.timestamp : undefined;
}

/** Starts a pause. */
export function startPause(meter: FloodMeter, now: number): void {
  meter.pausedAt = now;
}

/** Ends a pause: the kind is listened to again since `now`, and metered afresh. */
export function endPause(meter: FloodMeter, now: number): void {
  Object.assign(meter, freshMeter(now), { resumedAt: now });
}

/**
 * Whether an event shows the tab's main frame on a new document: the document that flooded is
 * gone, and its console is listened to again.
 */
export function newDocument(method: string, params: Record<string, unknown>): boolean {
  const frame = params.frame as Record<string, unknown> | undefined;
  return method === "Page.frameNavigated" && frame !== undefined && frame.parentId === undefined;
}

/**
 * Whether a console event is one the browser replays as its console is listened to again: the
 * messages it kept from before (its own timestamp is older than the listening), already recorded
 * or logged while nobody listened.
 */
export function replayed(
  meter: FloodMeter,
  method: string,
  params: Record<string, unknown>,
): boolean {
  if (!CONSOLE_EVENTS.includes(method) || meter.resumedAt === 0) return false;
  const at = madeAt(method, params);
  return at !== undefined && at < meter.resumedAt;
}
