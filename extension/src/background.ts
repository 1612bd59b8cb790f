/**
 * The extension's service worker: connects to the native host, says hello with a persistent
 * browser id, performs the service's commands, and carries the person's requests (popup,
 * keyboard shortcuts) to the service.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import { type FromExtension, ToExtension } from "../../shared/browser_protocol.ts";
import { EXTENSION_FEATURES } from "../../shared/extension_features.ts";
import { PanelRequest } from "../../shared/panel.ts";
import { PersonRequest } from "../../shared/person.ts";
import { setEventSink, unheard } from "./events.ts";
import { setLocationSink, tailOf } from "./locations.ts";
import { forgetPlace, noteTabUrl, placeTab, retryStopped } from "./network_rules.ts";
import { followOpened, MechanismError, perform, releaseAll } from "./operations.ts";
import { abandonAll, askService, settle, SHORTCUTS } from "./person.ts";
import { openPopupOnClick } from "./notifications.ts";
import { type LaneKey, laneOf, Outbox } from "./outbox.ts";

const DEFAULT_HOST = "com.ghostlight.browser";
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
/**
 * The alarm that starts a stopped service worker again (decision 0165): Chrome stops a worker it
 * judges idle, or for memory, or on request, and closes its native port with it; only an
 * extension event starts it again, and with an agent alone in the browser none may come. Chrome
 * fires alarms at most every 30 s, so the browser is back within that.
 */
const WAKE_ALARM = "ghostlight-wake";
const WAKE_PERIOD_MINUTES = 0.5;

interface LaunchConfig {
  host?: string;
  launch_token?: string;
}

/** `browser launch` drops a config.json beside the manifest; a store install has none. */
async function readConfig(): Promise<LaunchConfig> {
  try {
    const response = await fetch(chrome.runtime.getURL("config.json"));
    return response.ok ? await response.json() : {};
  } catch {
    return {};
  }
}

async function browserId(): Promise<string> {
  const stored = await chrome.storage.local.get("browserId");
  if (typeof stored.browserId === "string") return stored.browserId;
  const id = crypto.randomUUID();
  await chrome.storage.local.set({ browserId: id });
  return id;
}

/**
 * This browser run's id: session storage outlives the service worker but not the browser, so a
 * restarted browser (whose tab ids start over) says a new one.
 */
async function browserRun(): Promise<string> {
  const stored = await chrome.storage.session.get("browserRun");
  if (typeof stored.browserRun === "string") return stored.browserRun;
  const run = crypto.randomUUID();
  await chrome.storage.session.set({ browserRun: run });
  return run;
}

let port: chrome.runtime.Port | null = null;
/** Whether the native host says it reaches the service. */
let serviceUp = false;
let retryMs = RETRY_MIN_MS;
/**
 * The commands of the current service link, by id, each with the result it ended with (or will):
 * a command delivered twice is answered again, never performed again. Ids restart with every
 * hello, so the memory does too; it keeps the latest {@linkcode REMEMBERED_COMMANDS}.
 */
let performed = new Map<number, Promise<FromExtension>>();
const REMEMBERED_COMMANDS = 1024;
/**
 * This executor's generation: new each time the service worker starts, so a service that sees a
 * new one knows every command of the old one ended (decision 0161).
 */
const GENERATION = crypto.randomUUID();
/** This worker's hellos so far: the number of the current link. */
let links = 0;
/**
 * The commands of earlier links, by link and id, each with its end: after every hello each is
 * acknowledged once it has ended, so a command cut off with its link is proven over to the
 * service (the latest {@linkcode REMEMBERED_COMMANDS}).
 */
const earlier = new Map<string, { link: number; id: number; ended: Promise<unknown> }>();

/** What waits for the port, per tab, sent in turns (decision 0570). */
const outbox = new Outbox((message) => {
  try {
    port?.postMessage(message);
  } catch {
    // The port closed; onDisconnect reconnects.
  }
}, unheard);

/** Queues `message` in `lane` (by default the tab it names) for the port. */
function send(message: FromExtension, lane: LaneKey = laneOf(message)): void {
  outbox.put(message, lane);
}

/** The tab a command is about, whose lane its answer takes. */
function laneOfCommand(params: Record<string, unknown>): LaneKey {
  return typeof params.tab_id === "number" ? params.tab_id : null;
}

/** Sends to the service when it is reachable; false when it is not. */
function sendToService(message: FromExtension): boolean {
  if (!port || !serviceUp) return false;
  send(message);
  return true;
}

async function sayHello(config: LaunchConfig): Promise<void> {
  const hello: FromExtension = {
    type: "hello",
    browser_id: await browserId(),
    extension_version: chrome.runtime.getManifest().version,
    user_agent: navigator.userAgent.slice(0, 500),
    browser_run: await browserRun(),
    features: [...EXTENSION_FEATURES],
    executor: { generation: GENERATION, link: links + 1 },
    ...(config.launch_token ? { launch_token: config.launch_token } : {}),
  };
  // A new link numbers its commands from 1 again; the old link's are kept to acknowledge.
  for (const [id, result] of performed) {
    earlier.set(`${links}:${id}`, { link: links, id, ended: result });
    if (earlier.size > REMEMBERED_COMMANDS) earlier.delete(earlier.keys().next().value!);
  }
  performed = new Map();
  links++;
  send(hello);
  for (const { link, id, ended } of earlier.values()) {
    ended.then(() => send({ type: "ended", generation: GENERATION, link, id }));
  }
}

async function handle(raw: unknown, config: LaunchConfig): Promise<void> {
  const parsed = ToExtension.safeParse(raw);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === "passed") return outbox.passed(message.frames);
  if (message.type === "relay") {
    // What waits was for the link that ended; a new link begins with its hello.
    outbox.clear();
    serviceUp = message.state === "connected";
    if (serviceUp) await sayHello(config);
    else abandonAll();
    return;
  }
  if (message.type === "person_reply") return settle(message);
  const link = performed;
  let result = link.get(message.id);
  const lane = laneOfCommand(message.params);
  if (result === undefined) {
    // A sequence's lead goes only to the link that sent it, as its result does.
    const ahead = (results: Record<string, unknown>[]) => {
      if (performed === link) send({ type: "sequence_lead", id: message.id, results }, lane);
    };
    result = execute(message.id, message.op, message.params, ahead);
    link.set(message.id, result);
    if (link.size > REMEMBERED_COMMANDS) link.delete(link.keys().next().value!);
  }
  const frame = await result;
  // Only to the link that sent the command: ids start over with every hello, so a result that
  // outlived its link would settle another command of the next one. Its acknowledgement after
  // the next hello says it ended instead.
  if (performed === link) send(frame, lane);
}

/** Performs one command once and words its end as the result frame. */
async function execute(
  id: number,
  op: Parameters<typeof perform>[0],
  params: Parameters<typeof perform>[1],
  ahead: Parameters<typeof perform>[2],
): Promise<FromExtension> {
  let frame: FromExtension;
  try {
    const value = await perform(op, params, ahead);
    frame = { type: "result", id, ok: true, value: value ?? {} };
  } catch (error) {
    const known = error instanceof MechanismError;
    frame = {
      type: "result",
      id,
      ok: false,
      error: {
        kind: known ? error.kind : "internal",
        message: (error as Error).message ?? String(error),
      },
    };
  }
  // Where the command left its tab, when the service asked that tab to report it (decision 0190).
  const tabId = (params as { tab_id?: unknown } | undefined)?.tab_id;
  const tab = typeof tabId === "number" ? await tailOf(tabId) : undefined;
  return tab === undefined ? frame : { ...frame, tab } as FromExtension;
}

async function connect(): Promise<void> {
  const config = await readConfig();
  const next = chrome.runtime.connectNative(config.host ?? DEFAULT_HOST);
  port = next;
  outbox.reset();
  next.onMessage.addListener((message) => {
    retryMs = RETRY_MIN_MS;
    handle(message, config);
  });
  next.onDisconnect.addListener(() => {
    if (port === next) port = null;
    serviceUp = false;
    abandonAll();
    // With the service gone, no tab stays under the debugger or streams events to nobody.
    releaseAll().catch(() => {});
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  });
}

chrome.tabs.onRemoved.addListener((tabId) => {
  forgetPlace(tabId);
  send({ type: "tab_removed", tab_id: tabId });
});
// A new tab's first navigation the request guard stopped before the tab was placed.
chrome.webNavigation.onErrorOccurred.addListener((details) => {
  retryStopped(details).catch(() => {});
});
// A filtered tab's frame begins to load, or lands on, a host: its workers' requests are filtered
// from then on (decision 0337), before the new page's scripts can start one.
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  noteTabUrl(details.tabId, details.url).catch(() => {});
});
chrome.webNavigation.onCommitted.addListener((details) => {
  noteTabUrl(details.tabId, details.url).catch(() => {});
});
// A tab discarded, or swapped for its prerendered page, comes back under a new id, and Chrome says
// only this (no onCreated, no onRemoved). To the service the new tab opened from the old one, which
// is gone: a workspace adopts the tab the person still sees instead of keeping a dead id (decision
// 0219). The messages are those a popup and a close send, so a service of any version follows.
chrome.tabs.onReplaced.addListener((addedTabId, removedTabId) => {
  // The new id keeps what the old one had, past the request guard too.
  placeTab(addedTabId, removedTabId).catch(() => {});
  chrome.tabs.get(addedTabId)
    .then((tab) =>
      send({
        type: "tab_created",
        tab_id: addedTabId,
        active: tab.active,
        opener_tab_id: removedTabId,
      })
    )
    // Closed already: nothing to adopt.
    .catch(() => {})
    .finally(() => send({ type: "tab_removed", tab_id: removedTabId }));
});
chrome.tabs.onCreated.addListener((tab) => {
  if (tab.id === undefined) return;
  // First: until it is placed, the request guard stops every request of the tab (decision 0336).
  placeTab(tab.id, tab.openerTabId).catch(() => {});
  send({
    type: "tab_created",
    tab_id: tab.id,
    active: tab.active,
    ...(tab.openerTabId !== undefined ? { opener_tab_id: tab.openerTabId } : {}),
  });
  // After the report, so the service knows the tab before its first events arrive.
  if (tab.openerTabId !== undefined) followOpened(tab.openerTabId, tab.id).catch(() => {});
});
setEventSink(send);
setLocationSink(send);

// The popup asks through the worker, which holds the only port to the service: only the
// extension's own popup page is heard, never a page or another extension (decision 0360).
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || message?.kind !== "ghostlight-person") return false;
  if (sender.url !== chrome.runtime.getURL("popup.html")) return false;
  const request = PersonRequest.safeParse(message.request);
  if (!request.success) {
    sendResponse({ ok: false, message: "The popup sent a request Ghostlight does not know." });
    return false;
  }
  askService(request.data, sendToService).then(sendResponse);
  return true;
});
// The side panel's prompts to a remote agent, and its Stop (decision 0470): heard only from the
// extension's own panel page, checked, and carried to the service, which decides and relays.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || message?.kind !== "ghostlight-panel") return false;
  if (sender.url !== chrome.runtime.getURL("panel.html")) return false;
  const request = PanelRequest.safeParse(message.request);
  if (!request.success) {
    const why = request.error.issues[0].message;
    sendResponse({
      ok: false,
      message: `The panel sent a request Ghostlight does not take: ${why}`,
    });
    return false;
  }
  askService(request.data, sendToService).then(sendResponse);
  return true;
});
openPopupOnClick();
chrome.commands.onCommand.addListener((command) => {
  const request = SHORTCUTS[command];
  if (request) askService(request, sendToService);
});
// Starting the worker runs this script, which connects below; a running worker is connected
// already, or about to retry.
chrome.alarms.onAlarm.addListener(() => {});
chrome.alarms.get(WAKE_ALARM).then((alarm) => {
  if (!alarm) chrome.alarms.create(WAKE_ALARM, { periodInMinutes: WAKE_PERIOD_MINUTES });
});

connect();
