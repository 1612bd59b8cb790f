/**
 * A small DevTools client for tests that look at what no MCP tool shows: the extension's own
 * pages (the popup, opened in a tab) and the browser's targets. It needs a browser launched with
 * `--remote-debugging` (the ready line names its endpoint).
 *
 * @module
 */

import { assert } from "./assert.ts";
import { ROOT } from "./env.ts";
import { pollUntil } from "./wait.ts";

/** A page attached over the browser's DevTools connection. */
export interface CdpPage {
  /** Evaluates `expression` in the page (promises awaited) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the page's element matching `selector`, at the page's device scale. */
  screenshot(selector: string): Promise<Uint8Array>;
  /**
   * Clicks the middle of the element matching `selector` with the mouse (a trusted click);
   * `between`, when given, runs while the button is held down.
   */
  click(selector: string, options?: { between?: () => Promise<void> }): Promise<void>;
  close(): Promise<void>;
}

/** The browser's DevTools connection. */
export interface Cdp {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<
    Record<string, unknown>
  >;
  /** Opens `url` in a new tab and attaches to it. */
  open(url: string, size: { width: number; height: number; scale: number }): Promise<CdpPage>;
  /** The URLs of the open pages. */
  pages(): Promise<string[]>;
  /**
   * Resolves with the parameters of the next event `method` from the target of `sessionId` (the
   * browser's own without one); ask before causing it.
   */
  nextEvent(method: string, sessionId?: string): Promise<Record<string, unknown>>;
  /** Closes the connection; commands and `nextEvent`s still waiting reject, saying so. */
  close(): void;
}

/**
 * Evaluates `expression` (promises awaited) in the target of `sessionId` and returns its JSON
 * value; a throw there fails naming `who`.
 */
async function evaluateIn<T>(
  send: Cdp["send"],
  sessionId: string,
  expression: string,
  who: string,
): Promise<T> {
  const reply = await send("Runtime.evaluate", {
    expression,
    awaitPromise: true,
    returnByValue: true,
  }, sessionId) as { result: { value: T }; exceptionDetails?: unknown };
  if (reply.exceptionDetails) {
    throw new Error(`the ${who} threw: ${JSON.stringify(reply.exceptionDetails)}`);
  }
  return reply.result.value;
}

/** One of the browser's DevTools targets. */
interface TargetInfo {
  type: string;
  targetId: string;
  url: string;
}

/** The first target `match` accepts; fails naming `what` when there is none. */
async function findTarget(
  cdp: Cdp,
  match: (target: TargetInfo) => boolean,
  what: string,
): Promise<TargetInfo> {
  const { targetInfos } = await cdp.send("Target.getTargets") as { targetInfos: TargetInfo[] };
  const found = targetInfos.find(match);
  if (!found) throw new Error(`no ${what}`);
  return found;
}

/** Attaches to a target over the flat protocol and answers the session's id. */
async function attachTo(cdp: Cdp, target: TargetInfo): Promise<string> {
  const { sessionId } = await cdp.send("Target.attachToTarget", {
    targetId: target.targetId,
    flatten: true,
  }) as { sessionId: string };
  return sessionId;
}

/** Attaches to the extension's running service worker and answers the session's id. */
async function attachToExtension(cdp: Cdp): Promise<string> {
  const worker = await findTarget(
    cdp,
    (target) => target.type === "service_worker" && target.url.startsWith("chrome-extension://"),
    "running service worker of the extension",
  );
  return await attachTo(cdp, worker);
}

/** The page whose URL holds `urlPart`. */
function pageAt(cdp: Cdp, urlPart: string): Promise<TargetInfo> {
  return findTarget(
    cdp,
    (target) => target.type === "page" && target.url.includes(urlPart),
    `page at ${urlPart}`,
  );
}

/** Connects to a browser's DevTools WebSocket. */
export async function connectCdp(endpoint: string): Promise<Cdp> {
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`cannot reach DevTools at ${endpoint}`));
  });
  let nextId = 1;
  const waiting = new Map<
    number,
    { method: string; resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  /** A waiter for an event: handed each event until it takes one, or ended by `close()`. */
  interface Listener {
    deliver(message: Record<string, unknown>): void;
    end(): void;
  }
  const listeners = new Set<Listener>();
  /** Why the connection ended (closed by the test, or by the browser), once it has. */
  let closed: string | undefined;
  const closedError = (what: string) =>
    new Error(`DevTools connection to ${endpoint} ${closed} while ${what}`);
  /** Ends every command and event waiter still waiting: nothing will answer them now. */
  const end = (why: string) => {
    closed ??= why;
    for (const pending of waiting.values()) {
      pending.reject(closedError(`${pending.method} awaited its answer`));
    }
    waiting.clear();
    for (const listener of listeners) listener.end();
    listeners.clear();
  };
  socket.onclose = () => end("was closed by the browser");
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (typeof message.method === "string") {
      for (const listener of [...listeners]) listener.deliver(message);
      return;
    }
    const pending = message.id === undefined ? undefined : waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(JSON.stringify(message.error)));
    else pending.resolve(message.result);
  };
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) => {
    if (closed) return Promise.reject(closedError(`a test sent ${method}`));
    const id = nextId++;
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise<Record<string, unknown>>((resolve, reject) =>
      waiting.set(id, { method, resolve: resolve as (v: unknown) => void, reject })
    );
  };
  return {
    send,
    async open(url, size) {
      // A window of its own, so no agent's tab counts as its opener.
      const { targetId } = await send("Target.createTarget", {
        url: "about:blank",
        newWindow: true,
      }) as {
        targetId: string;
      };
      const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
        sessionId: string;
      };
      await send("Emulation.setDeviceMetricsOverride", {
        width: size.width,
        height: size.height,
        deviceScaleFactor: size.scale,
        mobile: false,
      }, sessionId);
      await send("Page.enable", {}, sessionId);
      await send("Page.navigate", { url }, sessionId);
      const page: CdpPage = {
        evaluate: <T>(expression: string) => evaluateIn<T>(send, sessionId, expression, "page"),
        async screenshot(selector: string): Promise<Uint8Array> {
          const box = await page.evaluate<{ x: number; y: number; width: number; height: number }>(
            `(() => { const r = document.querySelector(${
              JSON.stringify(selector)
            }).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; })()`,
          );
          const { data } = await send("Page.captureScreenshot", {
            format: "png",
            clip: { ...box, scale: 1 },
            captureBeyondViewport: true,
          }, sessionId) as { data: string };
          return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        },
        async click(selector: string, options: { between?: () => Promise<void> } = {}) {
          const { x, y } = await page.evaluate<{ x: number; y: number }>(
            `(() => { const r = document.querySelector(${
              JSON.stringify(selector)
            }).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
          );
          for (const type of ["mousePressed", "mouseReleased"]) {
            if (type === "mouseReleased") await options.between?.();
            await send(
              "Input.dispatchMouseEvent",
              { type, x, y, button: "left", clickCount: 1 },
              sessionId,
            );
          }
        },
        async close() {
          await send("Target.closeTarget", { targetId }).catch(() => {});
        },
      };
      await pollUntil(
        () => page.evaluate<string>("document.readyState"),
        (state) => state === "complete",
        `${url} to load`,
      );
      return page;
    },
    async pages() {
      const { targetInfos } = await send("Target.getTargets") as {
        targetInfos: { type: string; url: string }[];
      };
      return targetInfos.filter((target) => target.type === "page").map((target) => target.url);
    },
    nextEvent(method, sessionId) {
      if (closed) return Promise.reject(closedError(`a test awaited ${method}`));
      return new Promise((resolve, reject) => {
        const listener: Listener = {
          deliver(message) {
            if (message.method !== method || message.sessionId !== sessionId) return;
            listeners.delete(listener);
            resolve(message.params as Record<string, unknown>);
          },
          end: () => reject(closedError(`a test awaited ${method}`)),
        };
        listeners.add(listener);
      });
    },
    close() {
      end("was closed by the test");
      socket.close();
    },
  };
}

/**
 * Stops every service worker of the browser's profile, the extension's among them, as Chrome
 * does to a worker it judges idle: through a page's DevTools session (the browser target has no
 * ServiceWorker domain).
 */
export async function stopServiceWorkers(cdp: Cdp): Promise<void> {
  const page = await findTarget(
    cdp,
    (target) => target.type === "page",
    "page to reach the ServiceWorker domain through",
  );
  const sessionId = await attachTo(cdp, page);
  try {
    await cdp.send("ServiceWorker.enable", {}, sessionId);
    await cdp.send("ServiceWorker.stopAllWorkers", {}, sessionId);
  } finally {
    await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}

/** Closes the page whose URL holds `urlPart`, as the person closing its tab would. */
export async function closePage(cdp: Cdp, urlPart: string): Promise<void> {
  const page = await pageAt(cdp, urlPart);
  await cdp.send("Target.closeTarget", { targetId: page.targetId });
}

/**
 * Crashes the renderer of the page whose URL holds `urlPart` (CDP `Page.crash`), as a renderer
 * that fails or is killed would. Chrome never answers the command, so this returns once it is
 * sent; the test waits on what the crash causes.
 */
export async function crashPage(cdp: Cdp, urlPart: string): Promise<void> {
  const sessionId = await attachTo(cdp, await pageAt(cdp, urlPart));
  cdp.send("Page.crash", {}, sessionId).catch(() => {});
}

/**
 * Evaluates `expression` (promises awaited) in the extension's running service worker and
 * returns its JSON value: how a test reads what only the chrome.* APIs tell, such as tab groups.
 */
export async function evaluateInExtension<T>(cdp: Cdp, expression: string): Promise<T> {
  const sessionId = await attachToExtension(cdp);
  try {
    return await evaluateIn<T>(cdp.send, sessionId, expression, "worker");
  } finally {
    await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}

/** A breakpoint in the extension's service worker, set by {@linkcode breakInExtension}. */
export interface WorkerBreakpoint {
  /** Resolves when the worker's JavaScript stops there, with everything it does after held. */
  hit: Promise<void>;
  /** Removes the breakpoint and lets the worker run on. */
  resume(): Promise<void>;
}

/**
 * Sets a breakpoint in the extension's running service worker on the first line of its bundle
 * (`extension/dist/background.js`, the script the browser runs) that holds `source`: the worker
 * stops there the next time it reaches it, so a command stays inside the extension, dispatched
 * and not yet performed, for as long as the test needs; nothing about it is left to timing.
 */
export async function breakInExtension(cdp: Cdp, source: string): Promise<WorkerBreakpoint> {
  const bundle = await Deno.readTextFile(`${ROOT}/extension/dist/background.js`);
  const lineNumber = bundle.split("\n").findIndex((line) => line.includes(source));
  if (lineNumber < 0) throw new Error(`no line of the extension's bundle holds ${source}`);
  const sessionId = await attachToExtension(cdp);
  const paused = cdp.nextEvent("Debugger.paused", sessionId);
  await cdp.send("Debugger.enable", {}, sessionId);
  const { breakpointId, locations } = await cdp.send("Debugger.setBreakpointByUrl", {
    urlRegex: "/dist/background\\.js$",
    lineNumber,
  }, sessionId) as { breakpointId: string; locations: unknown[] };
  if (locations.length === 0) throw new Error(`the breakpoint at ${source} resolved nowhere`);
  return {
    hit: paused.then(() => {}),
    async resume() {
      await cdp.send("Debugger.removeBreakpoint", { breakpointId }, sessionId);
      await cdp.send("Debugger.resume", {}, sessionId).catch(() => {});
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
    },
  };
}

/** What {@linkcode watchExtension} has seen so far, and how to stop watching. */
export interface WorkerWatch {
  /** The values `record` gave each time the worker passed the line, oldest first. */
  seen(): Promise<unknown[]>;
  /** Forgets what was seen so far. */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Watches the extension's running service worker pass the first line of its bundle that holds
 * `source`, without ever stopping it: a breakpoint there whose condition, evaluated in that
 * line's scope, appends the value of `record` (or skips it when that is `undefined`) to a list in
 * the worker and answers false. At most 1,000 values are kept.
 */
export async function watchExtension(
  cdp: Cdp,
  source: string,
  record: string,
): Promise<WorkerWatch> {
  const bundle = await Deno.readTextFile(`${ROOT}/extension/dist/background.js`);
  const lineNumber = bundle.split("\n").findIndex((line) => line.includes(source));
  if (lineNumber < 0) throw new Error(`no line of the extension's bundle holds ${source}`);
  const sessionId = await attachToExtension(cdp);
  const list = `globalThis[${JSON.stringify(`__watch_${lineNumber}`)}]`;
  await cdp.send("Runtime.evaluate", { expression: `${list} = []; 0` }, sessionId);
  await cdp.send("Debugger.enable", {}, sessionId);
  const { breakpointId, locations } = await cdp.send("Debugger.setBreakpointByUrl", {
    urlRegex: "/dist/background\\.js$",
    lineNumber,
    condition: `(() => { const value = (${record}); if (value !== undefined && ` +
      `${list}.length < 1000) ${list}.push(value); return false; })()`,
  }, sessionId) as { breakpointId: string; locations: unknown[] };
  if (locations.length === 0) throw new Error(`the watch at ${source} resolved nowhere`);
  const read = async (expression: string) =>
    ((await cdp.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)) as {
      result: { value: unknown };
    }).result.value;
  return {
    seen: async () => await read(list) as unknown[],
    clear: async () => void await read(`${list}.length = 0`),
    async stop() {
      await cdp.send("Debugger.removeBreakpoint", { breakpointId }, sessionId).catch(() => {});
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
    },
  };
}

/**
 * Makes the page whose URL holds `urlPart` go to `url` by itself (its script sets
 * `location.href`), through DevTools: no Ghostlight call is involved.
 */
export async function sendPageTo(cdp: Cdp, urlPart: string, url: string): Promise<void> {
  const sessionId = await attachTo(cdp, await pageAt(cdp, urlPart));
  try {
    await evaluateIn(cdp.send, sessionId, `location.href = ${JSON.stringify(url)}; 0`, "page");
  } finally {
    await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}

/**
 * An expression for the extension's worker: the value of `expression` in the isolated world
 * `worldName` of tab `native`'s main frame, asked through the extension's own debugger session
 * (where the page runtime is registered for new documents, so `Page.createIsolatedWorld` answers
 * the world a registration made, and an empty new one without it).
 */
export function inTabWorld(native: number, worldName: string, expression: string): string {
  return `(async () => {
    const target = { tabId: ${native} };
    const { frameTree } = await chrome.debugger.sendCommand(target, "Page.getFrameTree");
    const { executionContextId } = await chrome.debugger.sendCommand(
      target, "Page.createIsolatedWorld", {
        frameId: frameTree.frame.id,
        worldName: ${JSON.stringify(worldName)},
      });
    const { result } = await chrome.debugger.sendCommand(target, "Runtime.evaluate", {
      expression: ${JSON.stringify(expression)},
      contextId: executionContextId,
      returnByValue: true,
    });
    return result.value;
  })()`;
}

/** Types `text` into the focused element of the page at `url`, as a keyboard would insert it. */
export async function typeInto(cdp: Cdp, url: string, text: string): Promise<void> {
  const { targetInfos } = await cdp.send("Target.getTargets") as {
    targetInfos: { targetId: string; url: string }[];
  };
  const target = targetInfos.find((info) => info.url === url);
  assert(target, `a page at ${url}`);
  const { sessionId } = await cdp.send("Target.attachToTarget", {
    targetId: target.targetId,
    flatten: true,
  }) as { sessionId: string };
  await cdp.send("Input.insertText", { text }, sessionId);
  await cdp.send("Target.detachFromTarget", { sessionId });
}
