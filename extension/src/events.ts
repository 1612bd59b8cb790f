/**
 * Forwarding of CDP events to the service: only the events the service asked for, per tab,
 * only the params fields it named, with long strings cut and a per-tab rate bound, so a busy
 * page cannot flood the native port.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import {
  EVENT_STRING_MAX,
  EVENTS_PER_SECOND,
  type FromExtension,
  type ObservedEvent,
} from "../../shared/browser_protocol.ts";

/** Deepest nesting kept in a forwarded event. */
const MAX_DEPTH = 6;
/** Most items kept from an array in a forwarded event. */
const MAX_ITEMS = 50;
/** A forwarded event larger than this (serialized) is dropped and counted. */
const MAX_EVENT_CHARS = 64 * 1024;

/** A CDP command the service wants sent whenever the debugger (re)attaches. */
export interface EnableCommand {
  method: string;
  params: Record<string, unknown>;
}

interface Observer {
  /** Event method → kept fields (undefined keeps all). */
  events: Map<string, string[] | undefined>;
  enable: EnableCommand[];
  tokens: number;
  refilledAt: number;
  dropped: number;
}

const observers = new Map<number, Observer>();
let sink: (message: FromExtension) => void = () => {};

/** Where forwarded events go (the native port). */
export function setEventSink(send: (message: FromExtension) => void): void {
  sink = send;
}

/** Sets what a tab forwards and what to enable on attach. */
export function observe(tabId: number, events: ObservedEvent[], enable: EnableCommand[]): void {
  const previous = observers.get(tabId);
  observers.set(tabId, {
    events: new Map(events.map((event) => [event.method, event.fields])),
    enable,
    tokens: previous?.tokens ?? EVENTS_PER_SECOND,
    refilledAt: previous?.refilledAt ?? Date.now(),
    dropped: previous?.dropped ?? 0,
  });
}

/** The commands to replay after attaching to a tab the service observes. */
export function enableCommands(tabId: number): EnableCommand[] {
  return observers.get(tabId)?.enable ?? [];
}

/** Forgets a closed tab. */
export function forget(tabId: number): void {
  observers.delete(tabId);
}

function clip(value: unknown, depth: number): unknown {
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

function project(params: Record<string, unknown>, fields: string[]): Record<string, unknown> {
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

function takeToken(observer: Observer): boolean {
  const now = Date.now();
  observer.tokens = Math.min(
    EVENTS_PER_SECOND,
    observer.tokens + ((now - observer.refilledAt) / 1000) * EVENTS_PER_SECOND,
  );
  observer.refilledAt = now;
  if (observer.tokens < 1) return false;
  observer.tokens -= 1;
  return true;
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  // Events from child sessions (out-of-process frames) are not the tab's own.
  const tabId = source.tabId;
  if (tabId === undefined || (source as { sessionId?: string }).sessionId) return;
  const observer = observers.get(tabId);
  if (!observer || !observer.events.has(method)) return;
  if (!takeToken(observer)) {
    observer.dropped++;
    return;
  }
  const fields = observer.events.get(method);
  const raw = (params ?? {}) as Record<string, unknown>;
  const kept = clip(fields ? project(raw, fields) : raw, 0) as Record<string, unknown>;
  if (JSON.stringify(kept).length > MAX_EVENT_CHARS) {
    observer.dropped++;
    return;
  }
  const dropped = observer.dropped;
  observer.dropped = 0;
  sink({
    type: "cdp_event",
    tab_id: tabId,
    method,
    params: kept,
    ...(dropped > 0 ? { dropped } : {}),
  });
});
