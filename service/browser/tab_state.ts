/**
 * What the service remembers about each observed tab from its CDP events: bounded rings of
 * console messages and network requests, the JavaScript dialog that is open, and waiters for
 * events (loads, dialogs). Events are decoded leniently: a field the browser left out is
 * skipped, never fatal.
 *
 * @module
 */

import {
  CONSOLE_PAUSED_EVENT,
  type EnableCommand,
  NETWORK_PAUSED_EVENT,
  type ObservedEvent,
} from "../../shared/browser_protocol.ts";

/** Console messages kept per tab. */
export const CONSOLE_CAPACITY = 500;
/** Network requests kept per tab. */
export const NETWORK_CAPACITY = 500;
/** Pointer presses remembered per tab (for recordings' click indicators). */
export const PRESS_CAPACITY = 64;

/** A pointer press Ghostlight sent to a tab: when, and where in viewport CSS pixels. */
export interface Press {
  at: number;
  x: number;
  y: number;
}
/** Event waiters allowed per tab at once. */
const MAX_WAITERS = 32;
/** Execution contexts whose origin a tab keeps (each frame has one or two). */
export const MAX_CONTEXTS = 512;
/** Longest console text kept. */
const CONSOLE_TEXT_MAX = 2000;

/** The CDP events the service observes on every tab it touches, with the fields it reads. */
export const OBSERVED_EVENTS: ObservedEvent[] = [
  {
    method: "Runtime.consoleAPICalled",
    fields: ["type", "args", "timestamp", "stackTrace.callFrames", "executionContextId"],
  },
  // Which document each context (and so each console message) belongs to (decision 0301).
  { method: "Runtime.executionContextCreated", fields: ["context.id", "context.origin"] },
  { method: "Runtime.executionContextsCleared", fields: [] },
  { method: "Runtime.exceptionThrown", fields: ["timestamp", "exceptionDetails"] },
  // The page runtime's report of a loaded document's facts (decision 0222), from its world's
  // context (decision 0244).
  { method: "Runtime.bindingCalled", fields: ["name", "payload", "executionContextId"] },
  { method: "Log.entryAdded", fields: ["entry"] },
  {
    method: "Network.requestWillBeSent",
    fields: [
      "requestId",
      "frameId",
      "request.url",
      "request.method",
      "type",
      "wallTime",
      "timestamp",
      "redirectResponse.status",
    ],
  },
  {
    method: "Network.responseReceived",
    fields: ["requestId", "type", "response.status", "response.statusText", "response.mimeType"],
  },
  { method: "Network.loadingFinished", fields: ["requestId", "timestamp", "encodedDataLength"] },
  { method: "Network.loadingFailed", fields: ["requestId", "timestamp", "errorText", "canceled"] },
  { method: "Page.lifecycleEvent", fields: ["frameId", "loaderId", "name"] },
  {
    method: "Page.frameNavigated",
    fields: ["frame.id", "frame.parentId", "frame.loaderId", "frame.url", "type"],
  },
  { method: "Page.frameStoppedLoading", fields: ["frameId"] },
  { method: "Page.navigatedWithinDocument", fields: ["frameId", "url"] },
  { method: "Page.javascriptDialogOpening", fields: ["url", "message", "type"] },
  { method: "Page.javascriptDialogClosed", fields: ["result"] },
];

/** The CDP commands that turn those events on, sent on first touch and after every re-attach. */
export const ENABLE_COMMANDS: EnableCommand[] = [
  { method: "Runtime.enable", params: {} },
  { method: "Log.enable", params: {} },
  // Bounded so that observing a tab never makes Chrome hold large response bodies for us.
  {
    method: "Network.enable",
    params: { maxTotalBufferSize: 1_000_000, maxResourceBufferSize: 200_000 },
  },
  { method: "Page.enable", params: {} },
  { method: "Page.setLifecycleEventsEnabled", params: { enabled: true } },
];

/** A bounded first-in-first-out buffer. */
export class Ring<T> {
  #items: T[] = [];
  /** How many items were evicted since the last clear. */
  evicted = 0;

  constructor(readonly capacity: number) {}

  /** Adds an item, evicting the oldest beyond capacity; returns the evicted item if any. */
  push(item: T): T | undefined {
    this.#items.push(item);
    if (this.#items.length <= this.capacity) return undefined;
    this.evicted++;
    return this.#items.shift();
  }

  /** The items, oldest first. */
  items(): readonly T[] {
    return this.#items;
  }

  /** Empties the ring. */
  clear(): void {
    this.#items = [];
    this.evicted = 0;
  }
}

/** One console message. */
export interface ConsoleEntry {
  /** "log", "info", "warning", "error", "debug", "exception", ... */
  level: string;
  text: string;
  /** Where it came from: "console", "exception", or a browser log source such as "network". */
  source: string;
  url?: string;
  line?: number;
  /**
   * For a message of a script (console, exception): the origin of the document it ran in, or
   * null when the tab did not say which (decision 0301).
   */
  origin?: string | null;
  /** Milliseconds since the epoch. */
  at: number;
}

/** One network request. */
export interface NetworkEntry {
  requestId: string;
  method: string;
  url: string;
  type?: string;
  status?: number;
  statusText?: string;
  mimeType?: string;
  failed?: string;
  /** Milliseconds since the epoch when it started. */
  at: number;
  /** Duration in ms once finished or failed. */
  durationMs?: number;
  bytes?: number;
  /** Monotonic CDP timestamp (s) of the start, for durations. */
  started?: number;
}

/** A JavaScript dialog blocking the tab. */
export interface OpenDialog {
  type: string;
  message: string;
  url: string;
}

/** Most binding calls kept per main-frame document. */
const MAX_DOCUMENT_CALLS = 4;

/** A page calling a binding the service exposed (`Runtime.bindingCalled`). */
export interface BindingCall {
  name: string;
  payload: string;
  /** The execution context that called it: the world the binding was exposed in. */
  contextId: number;
}

/**
 * The main frame's document as the tab's own events tell it: the commit that brought it, and
 * the first binding calls made since (decision 0244). `lossy` once events were dropped since
 * that commit: what came after it may then belong to a later document.
 */
export interface MainDocument {
  frameId: string;
  loaderId: string;
  calls: BindingCall[];
  lossy: boolean;
}

/** A CDP event as the service sees it. */
export interface TabEvent {
  method: string;
  params: Record<string, unknown>;
}

interface Waiter {
  match: (event: TabEvent) => boolean;
  resolve: (event: TabEvent | null) => void;
  /** Its bound, when it has one ({@linkcode TabState.watch}'s have none). */
  timer?: ReturnType<typeof setTimeout>;
  /** Removes the waiter's abort listener, so a long-lived signal does not keep it alive. */
  unlisten: () => void;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === "object" ? value as Json : {};
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A 1-based line number from CDP's 0-based one. */
function lineOf(value: unknown): number | undefined {
  const line = num(value);
  return line === undefined ? undefined : line + 1;
}

function clipText(text: string): string {
  return text.length > CONSOLE_TEXT_MAX ? `${text.slice(0, CONSOLE_TEXT_MAX)}…` : text;
}

/** Renders one console argument (a CDP RemoteObject) the way DevTools would, briefly. */
function renderArg(arg: unknown): string {
  const remote = obj(arg);
  if (remote.type === "string") return String(remote.value);
  if ("value" in remote && remote.type !== "object") return String(remote.value);
  if (remote.unserializableValue !== undefined) return String(remote.unserializableValue);
  if (remote.type === "undefined") return "undefined";
  const preview = obj(remote.preview);
  if (Array.isArray(preview.properties)) {
    const parts = (preview.properties as unknown[]).map((item) => {
      const property = obj(item);
      const value = property.type === "string" ? JSON.stringify(property.value) : property.value;
      return preview.subtype === "array" ? String(value) : `${property.name}: ${value}`;
    });
    const more = preview.overflow === true ? ", …" : "";
    return preview.subtype === "array"
      ? `[${parts.join(", ")}${more}]`
      : `{${parts.join(", ")}${more}}`;
  }
  return str(remote.description) ?? str(remote.className) ?? String(remote.type ?? "?");
}

/** The state of one observed tab. */
export class TabState {
  readonly console = new Ring<ConsoleEntry>(CONSOLE_CAPACITY);
  /** The origin of each execution context the tab reported, newest kept. */
  #contexts = new Map<number, string>();
  readonly network = new Ring<NetworkEntry>(NETWORK_CAPACITY);
  /** Pointer presses sent to the tab, oldest first. */
  readonly presses = new Ring<Press>(PRESS_CAPACITY);
  #requests = new Map<string, NetworkEntry>();
  /** The dialog open now, if any. */
  dialog: OpenDialog | null = null;
  /** Events the extension dropped under its rate bound. */
  droppedEvents = 0;
  /**
   * The times the extension stopped listening to the tab's console because the page logged too
   * fast (decision 0291): since when, while it is not listened to now, and how long in all before.
   */
  consoleUnheard = { since: null as number | null, pauses: 0, ms: 0 };
  /** The same for its network events, which a page sending too fast pauses (decision 0340). */
  networkUnheard = { since: null as number | null, pauses: 0, ms: 0 };
  /** The main frame's document since its last commit the tab reported, if one was seen. */
  mainDocument: MainDocument | null = null;
  #waiters = new Set<Waiter>();
  /** When observation started (ms since the epoch): the buffers hold nothing older. */
  readonly since = Date.now();

  /** The origin of a context the tab reported, or null. */
  #originOf(id: unknown): string | null {
    return typeof id === "number" ? this.#contexts.get(id) ?? null : null;
  }

  /** Applies one event from the browser. */
  apply(event: TabEvent, dropped = 0): void {
    this.droppedEvents += dropped;
    this.#followMainDocument(event, dropped);
    const p = event.params;
    switch (event.method) {
      case "Runtime.consoleAPICalled":
      case "Runtime.executionContextCreated":
      case "Runtime.executionContextsCleared":
      case "Runtime.exceptionThrown":
      case "Log.entryAdded":
        this.#applyConsole(event.method, p);
        break;
      case "Network.requestWillBeSent":
        this.#requestStarted(p);
        break;
      case "Network.responseReceived": {
        const entry = this.#requests.get(String(p.requestId));
        const response = obj(p.response);
        if (entry) {
          entry.status = num(response.status);
          entry.statusText = str(response.statusText) || undefined;
          entry.mimeType = str(response.mimeType) || undefined;
          entry.type = str(p.type) ?? entry.type;
        }
        break;
      }
      case "Network.loadingFinished":
      case "Network.loadingFailed": {
        const entry = this.#requests.get(String(p.requestId));
        if (!entry) break;
        const end = num(p.timestamp);
        if (end !== undefined && entry.started !== undefined) {
          entry.durationMs = Math.round((end - entry.started) * 1000);
        }
        if (event.method === "Network.loadingFailed") {
          entry.failed = p.canceled === true ? "canceled" : str(p.errorText) ?? "failed";
        } else {
          entry.bytes = num(p.encodedDataLength);
        }
        break;
      }
      case "Page.javascriptDialogOpening":
        this.dialog = {
          type: str(p.type) ?? "alert",
          message: clipText(str(p.message) ?? ""),
          url: str(p.url) ?? "",
        };
        break;
      case "Page.javascriptDialogClosed":
        this.dialog = null;
        break;
      case CONSOLE_PAUSED_EVENT:
        unheard(this.consoleUnheard, p.paused === true, num(p.at) ?? Date.now());
        break;
      case NETWORK_PAUSED_EVENT:
        unheard(this.networkUnheard, p.paused === true, num(p.at) ?? Date.now());
        break;
    }
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(event)) this.#finish(waiter, event);
    }
  }

  /** Applies one console event: a message, an exception, a context made or cleared. */
  #applyConsole(method: string, p: Record<string, unknown>): void {
    switch (method) {
      case "Runtime.consoleAPICalled": {
        const args = Array.isArray(p.args) ? p.args : [];
        const frame = obj(
          Array.isArray(obj(p.stackTrace).callFrames)
            ? (obj(p.stackTrace).callFrames as unknown[])[0]
            : undefined,
        );
        this.console.push({
          level: str(p.type) === "warning" ? "warning" : str(p.type) ?? "log",
          text: clipText(args.map(renderArg).join(" ")),
          source: "console",
          url: str(frame.url) || undefined,
          line: lineOf(frame.lineNumber),
          origin: this.#originOf(p.executionContextId),
          at: num(p.timestamp) ?? Date.now(),
        });
        break;
      }
      case "Runtime.executionContextCreated": {
        const context = obj(p.context);
        const id = num(context.id);
        if (id === undefined) break;
        this.#contexts.delete(id);
        this.#contexts.set(id, str(context.origin) ?? "");
        if (this.#contexts.size > MAX_CONTEXTS) {
          this.#contexts.delete(this.#contexts.keys().next().value!);
        }
        break;
      }
      case "Runtime.executionContextsCleared":
        this.#contexts.clear();
        break;
      case "Runtime.exceptionThrown": {
        const details = obj(p.exceptionDetails);
        const description = str(obj(details.exception).description);
        this.console.push({
          level: "error",
          text: clipText(description ?? str(details.text) ?? "Uncaught exception"),
          source: "exception",
          url: str(details.url) || undefined,
          line: lineOf(details.lineNumber),
          origin: this.#originOf(details.executionContextId),
          at: num(p.timestamp) ?? Date.now(),
        });
        break;
      }
      case "Log.entryAdded": {
        const entry = obj(p.entry);
        this.console.push({
          level: str(entry.level) ?? "info",
          text: clipText(str(entry.text) ?? ""),
          source: str(entry.source) ?? "other",
          url: str(entry.url) || undefined,
          at: num(entry.timestamp) ?? Date.now(),
        });
        break;
      }
    }
  }

  /** Keeps {@linkcode mainDocument} by the main frame's commits and the binding calls after them. */
  #followMainDocument(event: TabEvent, dropped: number): void {
    if (dropped > 0 && this.mainDocument) this.mainDocument.lossy = true;
    const p = event.params;
    if (event.method === "Page.frameNavigated") {
      const frame = obj(p.frame);
      if (frame.parentId !== undefined) return;
      const frameId = str(frame.id);
      const loaderId = str(frame.loaderId);
      // A page back from the back/forward cache is an old document: what it said is long past.
      this.mainDocument = frameId && loaderId
        ? { frameId, loaderId, calls: [], lossy: false }
        : null;
      return;
    }
    if (event.method !== "Runtime.bindingCalled") return;
    const calls = this.mainDocument?.calls;
    const name = str(p.name);
    const payload = str(p.payload);
    const contextId = num(p.executionContextId);
    if (
      !calls || calls.length >= MAX_DOCUMENT_CALLS || name === undefined ||
      payload === undefined || contextId === undefined || !Number.isInteger(contextId)
    ) return;
    calls.push({ name, payload, contextId });
  }

  #requestStarted(p: Json): void {
    const id = String(p.requestId ?? "");
    const request = obj(p.request);
    const previous = this.#requests.get(id);
    if (previous && p.redirectResponse !== undefined) {
      previous.status = num(obj(p.redirectResponse).status);
    }
    const wall = num(p.wallTime);
    const entry: NetworkEntry = {
      requestId: id,
      method: str(request.method) ?? "GET",
      url: str(request.url) ?? "",
      type: str(p.type),
      at: wall !== undefined ? Math.round(wall * 1000) : Date.now(),
      started: num(p.timestamp),
    };
    this.#requests.set(id, entry);
    const evicted = this.network.push(entry);
    if (evicted && this.#requests.get(evicted.requestId) === evicted) {
      this.#requests.delete(evicted.requestId);
    }
  }

  /** Empties the network ring. */
  clearNetwork(): void {
    this.network.clear();
    this.#requests.clear();
  }

  /**
   * Resolves with the first event that matches, or null after `timeoutMs` (or when the tab
   * goes away, or `signal` aborts). Bounded: too many waiters at once resolve null at once.
   */
  waitFor(
    match: (event: TabEvent) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<TabEvent | null> {
    if (this.#waiters.size >= MAX_WAITERS || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => this.#finish(waiter, null);
      const waiter: Waiter = {
        match,
        resolve,
        timer: setTimeout(onAbort, timeoutMs),
        unlisten: () => signal?.removeEventListener("abort", onAbort),
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Watches for the first event that matches, with no bound of its own: `stop` ends the watch
   * (the event then resolves null), and the caller must call it once what it races has settled.
   * A watch costs no timer and no abort signal, so one can go with every command (issue 14).
   * Bounded like {@linkcode waitFor}: too many at once resolve null at once.
   */
  watch(match: (event: TabEvent) => boolean): { event: Promise<TabEvent | null>; stop(): void } {
    if (this.#waiters.size >= MAX_WAITERS) return { event: Promise.resolve(null), stop() {} };
    const { promise, resolve } = Promise.withResolvers<TabEvent | null>();
    const waiter: Waiter = { match, resolve, unlisten: () => {} };
    this.#waiters.add(waiter);
    return { event: promise, stop: () => this.#finish(waiter, null) };
  }

  #finish(waiter: Waiter, event: TabEvent | null): void {
    if (!this.#waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    waiter.unlisten();
    waiter.resolve(event);
  }

  /** Ends every waiter: the tab or its browser is gone. */
  close(): void {
    for (const waiter of [...this.#waiters]) this.#finish(waiter, null);
  }
}

/**
 * Notes in `unheard` that the extension stopped (`paused`) or started again listening to a tab's
 * console or network events.
 */
function unheard(
  unheard: { since: number | null; pauses: number; ms: number },
  paused: boolean,
  at: number,
): void {
  if (paused && unheard.since === null) {
    unheard.since = at;
    unheard.pauses++;
  } else if (!paused && unheard.since !== null) {
    unheard.ms += Math.max(0, at - unheard.since);
    unheard.since = null;
  }
}
