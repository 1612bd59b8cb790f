/**
 * The mechanisms the extension performs for the service: tabs, tab groups and CDP through
 * `chrome.debugger`. No policy lives here; the service decided before the command arrived.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import {
  type EnableCommand,
  type MechanismErrorKind,
  type OperationName,
  type OperationParams,
  type OperationResult,
  Operations,
  type TabInfo,
} from "../../shared/browser_protocol.ts";
import { cdpFailureKind } from "./cdp_words.ts";
import { PageCrashed, untilCrash } from "./crashes.ts";
import { runSequence, type Sendable, type SendOutcome } from "./sequence.ts";
import {
  dialogMark,
  enableCommands,
  enableNotYetSent,
  enableOnAttach,
  forget,
  observe,
  observeLike,
  trackIfAsked,
} from "./events.ts";
import { childSessions, forgetSessions, SessionEnded, untilSessionEnds } from "./frames.ts";
import { groupOf, rememberGroup } from "./groups.ts";
import { attachmentLost, describeTab } from "./locations.ts";
import { clearTabRules, setTabRules } from "./network_rules.ts";
import { placeTransfers, TransferRefused, TransferStore } from "./transfers.ts";
import { notifyQuestions } from "./notifications.ts";

/** A mechanism failure with the kind the service understands. */
export class MechanismError extends Error {
  constructor(
    readonly kind: MechanismErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const CDP_VERSION = "1.3";
/** Tabs with the debugger attached. */
const attached = new Set<number>();
/** Byte payloads arriving in chunks from the service, verified before use. */
const transfers = new TransferStore();

/** Why Chrome last detached the debugger from each tab, to tell a caller cut off by it. */
const detachReasons = new Map<number, `${chrome.debugger.DetachReason}`>();
/**
 * Detach reasons kept: a replaced tab's detach comes after its onReplaced (decision 0219), and no
 * onRemoved follows to forget it, so the oldest go beyond this.
 */
const MAX_DETACH_REASONS = 256;

chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId === undefined) return;
  attached.delete(source.tabId);
  attachmentLost(source.tabId);
  detachReasons.delete(source.tabId);
  detachReasons.set(source.tabId, reason);
  if (detachReasons.size > MAX_DETACH_REASONS) {
    detachReasons.delete(detachReasons.keys().next().value!);
  }
});
/** Forgets all the extension knows of a tab that is gone. */
function tabGone(tabId: number): void {
  attached.delete(tabId);
  detachReasons.delete(tabId);
  forget(tabId);
  forgetSessions(tabId);
  setTabRules(tabId, []).catch(() => {});
}
chrome.tabs.onRemoved.addListener(tabGone);
// A discarded or prerendered tab comes back under a new id: Chrome removes the old one without
// an onRemoved.
chrome.tabs.onReplaced.addListener((_addedTabId, removedTabId) => tabGone(removedTabId));

/**
 * Stops observing a tab, lifts its request filter (it is the person's again) and detaches the
 * debugger from it; true when one was attached.
 */
async function release(tabId: number): Promise<boolean> {
  forget(tabId);
  forgetSessions(tabId);
  await setTabRules(tabId, []).catch(() => {});
  if (!attached.delete(tabId)) return false;
  try {
    await chrome.debugger.detach({ tabId });
    return true;
  } catch {
    // The tab closed or the debugger already went: nothing is left attached.
    return false;
  }
}

/**
 * Releases every tab (the service is gone: nothing should keep debugging the user's tabs or
 * streaming their events to nobody).
 */
export async function releaseAll(): Promise<void> {
  // Nobody is left to use a payload half sent.
  transfers.clear();
  for (const tabId of [...attached]) await release(tabId);
  await clearTabRules().catch(() => {});
}

async function getTab(tabId: number): Promise<chrome.tabs.Tab> {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    throw new MechanismError("no_such_tab", `tab ${tabId} does not exist`);
  }
}

async function createTab(params: OperationParams<"tab.create">): Promise<TabInfo> {
  const groupId = await groupOf(params.group.key);
  let windowId: number | undefined;
  if (groupId !== undefined) windowId = (await chrome.tabGroups.get(groupId)).windowId;
  const tab = await chrome.tabs.create({ url: params.url, active: true, windowId });
  const tabId = tab.id!;
  const joined = await chrome.tabs.group({
    tabIds: [tabId],
    ...(groupId !== undefined ? { groupId } : { createProperties: { windowId: tab.windowId } }),
  });
  if (groupId === undefined) {
    await chrome.tabGroups.update(joined, {
      title: params.group.title,
      color: params.group.color,
    });
    await rememberGroup(params.group.key, joined);
  }
  return describeTab(await getTab(tabId));
}

async function ensureAttached(tabId: number): Promise<void> {
  if (attached.has(tabId)) return;
  // A discarded tab (decision 0219) takes the debugger but answers no command until it is loaded
  // again: restore it, as Chrome does when the person comes back to it (it keeps its id).
  if ((await getTab(tabId)).discarded) await chrome.tabs.reload(tabId);
  detachReasons.delete(tabId);
  try {
    await chrome.debugger.attach({ tabId }, CDP_VERSION);
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (!/already attached/i.test(message)) {
      throw new MechanismError("cdp_error", `cannot attach to tab ${tabId}: ${message}`);
    }
  }
  attached.add(tabId);
  trackIfAsked(tabId);
  await enableObserved(tabId);
}

/**
 * A fresh attachment starts with every domain disabled: turn on what the service observes. The
 * commands go out together (Chrome still runs them in order), so the network is watched without
 * waiting for a busy renderer to answer `Runtime.enable` first.
 */
async function enableObserved(tabId: number): Promise<void> {
  await Promise.all(enableOnAttach(tabId).map((command) => sendBestEffort(tabId, command)));
}

/**
 * Observes a tab that an observed tab just opened (a popup, a target=_blank link) as its opener
 * is observed, from its first moment: the page's first requests happen before a round trip to
 * the service could ask for it. The service gives the tab back (`tab.release`) when it does not
 * adopt it.
 */
export async function followOpened(openerTabId: number, tabId: number): Promise<void> {
  if (!observeLike(openerTabId, tabId) || attached.has(tabId)) return;
  try {
    await chrome.debugger.attach({ tabId }, CDP_VERSION);
  } catch {
    // Already attached (the service asked meanwhile), or the tab is not debuggable: the
    // service's own observe decides.
    return;
  }
  attached.add(tabId);
  // Released while attaching: nothing may stay attached to a tab the service gave back.
  if (!enableCommands(tabId).length) {
    await release(tabId);
    return;
  }
  trackIfAsked(tabId);
  await enableObserved(tabId);
}

/** Sends a command whose failure changes nothing (enabling a domain), unless the page crashed. */
async function sendBestEffort(tabId: number, command: EnableCommand): Promise<void> {
  await untilCrash(
    tabId,
    command.method,
    () => chrome.debugger.sendCommand({ tabId }, command.method, command.params),
  ).catch(() => {});
}

function cdpFailure(tabId: number, method: string, error: unknown): MechanismError {
  // Cut off by a crash, the command is over (decision 0185); refused for one, it never ran.
  if (error instanceof PageCrashed) {
    return new MechanismError(error.running ? "detached" : "cdp_error", error.message);
  }
  // The frame's session went away under the command: its document is gone with it.
  if (error instanceof SessionEnded) return new MechanismError("context_lost", error.message);
  const message = (error as Error).message ?? String(error);
  const kind = cdpFailureKind(message);
  if (kind === "no_such_tab") return new MechanismError(kind, `tab ${tabId} does not exist`);
  return new MechanismError(kind, `${method}: ${message}`);
}

/**
 * Chrome's words for a command refused because the debugger session had already lost its page
 * (the tab swapped its renderer): the command never ran, so sending it again is safe.
 */
const NOT_ATTACHED = /not attached to an active page|debugger is not attached/i;

/**
 * Chrome's words for a session lost while the command ran (the port closed, the tab crashed, the
 * renderer swapped mid-command): the command may have had its effect, so it is never sent again.
 */
const DETACHED_WHILE_HANDLING = /detached while handling/i;

/**
 * The failure of a command whose debugger session ended while it ran, saying why from the
 * browser's side (decision 0166). The command is over: the service tells its caller so, rather
 * than that it may still be happening. (A session ended by the port closing never reaches the
 * service: the result goes nowhere, and the service has told its caller the outcome is unknown.)
 */
async function detachedFailure(tabId: number): Promise<MechanismError> {
  attached.delete(tabId);
  attachmentLost(tabId);
  forgetSessions(tabId);
  const gone = await chrome.tabs.get(tabId).then(() => false, () => true);
  const reason = detachReasons.get(tabId);
  const why = gone
    ? "the tab was closed while the call ran"
    : reason === "canceled_by_user"
    ? "the debugger was taken off the tab while the call ran (the person cancelled it, or " +
      "another debugger took the tab)"
    : reason === "target_closed"
    ? "the tab's page went away while the call ran (it crashed or was replaced)"
    : "the debugger detached from the tab while the call ran";
  return new MechanismError("detached", why);
}

/**
 * Runs `send` on the tab's debugger session. After a navigation to an error page Chrome may
 * swap the tab's renderer and leave the session behind without telling onDetach: a command it
 * refused for that is sent once more on a fresh attachment. A command cut off while it ran is
 * never repeated: it is reported, and the service tells its caller the outcome is unknown. One
 * whose page crashed ends at once, saying so ({@linkcode untilCrash}).
 */
async function withAttachment<T>(
  tabId: number,
  method: string,
  sendOnce: () => Promise<T>,
): Promise<T> {
  await ensureAttached(tabId);
  const send = () => untilCrash(tabId, method, sendOnce);
  try {
    return await send();
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (DETACHED_WHILE_HANDLING.test(message)) throw await detachedFailure(tabId);
    if (!NOT_ATTACHED.test(message)) throw error;
    attached.delete(tabId);
    attachmentLost(tabId);
    forgetSessions(tabId);
    await chrome.debugger.detach({ tabId }).catch(() => {});
    await ensureAttached(tabId);
    return await send();
  }
}

async function sendCdp(params: OperationParams<"cdp">): Promise<Record<string, unknown>> {
  try {
    const result = await withAttachment(
      params.tab_id,
      params.method,
      () =>
        params.session_id
          ? untilSessionEnds(
            params.tab_id,
            params.session_id,
            params.method,
            () =>
              chrome.debugger.sendCommand(
                {
                  tabId: params.tab_id,
                  sessionId: params.session_id,
                } as chrome.debugger.DebuggerSession,
                params.method,
                params.params,
              ),
          )
          : chrome.debugger.sendCommand({ tabId: params.tab_id }, params.method, params.params),
    );
    return (result ?? {}) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof MechanismError) throw error;
    throw cdpFailure(params.tab_id, params.method, error);
  }
}

async function listFrames(
  params: OperationParams<"tab.frames">,
): Promise<OperationResult<"tab.frames">> {
  try {
    return {
      sessions: await withAttachment(
        params.tab_id,
        "Target.setAutoAttach",
        () => childSessions(params.tab_id, params.held ?? false),
      ),
    };
  } catch (error) {
    if (error instanceof MechanismError) throw error;
    throw cdpFailure(params.tab_id, "Target.setAutoAttach", error);
  }
}

async function sendSequence(
  params: OperationParams<"cdp.sequence">,
  ahead?: (results: Record<string, unknown>[]) => void,
): Promise<OperationResult<"cdp.sequence">> {
  const dialogs = dialogMark(params.tab_id);
  await ensureAttached(params.tab_id);
  const send = (command: Sendable): Promise<SendOutcome> =>
    untilCrash(
      params.tab_id,
      command.method,
      () => chrome.debugger.sendCommand({ tabId: params.tab_id }, command.method, command.params),
    )
      .then(
        (result) => ({ ok: true as const, result: (result ?? {}) as Record<string, unknown> }),
        async (error) => ({
          ok: false as const,
          error: DETACHED_WHILE_HANDLING.test((error as Error).message ?? String(error))
            ? await detachedFailure(params.tab_id)
            : cdpFailure(params.tab_id, command.method, error),
        }),
      );
  // A dialog the service heard of before the lead held the lookup (it was open as the sequence
  // started, or opened before the lead's replies were in): the service answered the call without
  // the lead, so the lead and what is aimed by it are withheld.
  const lead = params.lead !== undefined && ahead
    ? {
      count: params.lead,
      send: (results: Record<string, unknown>[]) => {
        const now = dialogMark(params.tab_id);
        if (dialogs.open || now.opened !== dialogs.opened) return false;
        ahead(results);
        return true;
      },
    }
    : undefined;
  return { results: await runSequence(params.commands, params.pipeline ?? false, send, lead) };
}

async function observeTab(params: OperationParams<"tab.observe">): Promise<Record<never, never>> {
  observe(params.tab_id, params.events, params.enable, params.locations ?? false);
  if (attached.has(params.tab_id)) trackIfAsked(params.tab_id);
  if (!attached.has(params.tab_id)) {
    // A discarded tab (decision 0219) is restored by the first command that needs it, not by
    // being observed: the browser freed its memory, and the agent may never come back to it.
    if ((await getTab(params.tab_id)).discarded) return {};
    // Attaching sends the enable commands.
    await ensureAttached(params.tab_id);
    return {};
  }
  // Observation is best effort, as after a re-attach: a domain a page refuses must not make
  // every later command to the tab fail.
  // Only what this attachment has not had: a script registered for new documents twice would
  // run twice in every page.
  for (const command of enableNotYetSent(params.tab_id)) {
    await sendBestEffort(params.tab_id, command);
  }
  return {};
}

async function resizeWindow(
  params: OperationParams<"window.resize">,
): Promise<OperationResult<"window.resize">> {
  const tab = await getTab(params.tab_id);
  let window: chrome.windows.Window;
  try {
    window = await chrome.windows.update(tab.windowId, {
      state: "normal",
      width: params.width,
      height: params.height,
    });
  } catch (error) {
    // Chrome refuses windows mostly off the screen; the service decides what to do instead.
    throw new MechanismError("unsupported", (error as Error).message ?? String(error));
  }
  return { window_id: tab.windowId, width: window.width ?? 0, height: window.height ?? 0 };
}

async function updateGroup(
  params: OperationParams<"group.update">,
): Promise<OperationResult<"group.update">> {
  const groupId = await groupOf(params.key);
  if (groupId === undefined) return { updated: false };
  await chrome.tabGroups.update(groupId, { title: params.title, color: params.color });
  return { updated: true };
}

async function focusTab(params: OperationParams<"tab.focus">): Promise<Record<never, never>> {
  const tab = await getTab(params.tab_id);
  await chrome.tabs.update(params.tab_id, { active: true });
  await chrome.windows.update(tab.windowId, { focused: true });
  return {};
}

/**
 * A transfer refused for its contents or a bound: said as a kind of its own, so the service
 * knows the command that was to use the bytes was not sent without reading this message.
 */
function refusedTransfer(error: unknown): never {
  if (error instanceof TransferRefused) throw new MechanismError("transfer_refused", error.message);
  throw error;
}

/** Sends a CDP command with verified payloads in place of their placeholders. */
async function sendWithTransfers(
  params: OperationParams<"cdp.with_transfers">,
): Promise<Record<string, unknown>> {
  let filled: Record<string, unknown>;
  try {
    filled = placeTransfers(params.params, params.transfers, (ids) => transfers.take(ids));
  } catch (error) {
    refusedTransfer(error);
  }
  const { transfers: _, params: __, ...rest } = params;
  return await sendCdp({ ...rest, params: filled });
}

const IMPLEMENTATIONS: {
  [N in OperationName]: (params: OperationParams<N>) => Promise<OperationResult<N>>;
} = {
  "tab.create": createTab,
  "tab.get": async (params) => describeTab(await getTab(params.tab_id)),
  "tab.close": async (params) => {
    await getTab(params.tab_id);
    await chrome.tabs.remove(params.tab_id);
    return {};
  },
  "tab.release": async (params) => ({ detached: await release(params.tab_id) }),
  "cdp": sendCdp,
  "cdp.sequence": sendSequence,
  "tab.observe": observeTab,
  "window.resize": resizeWindow,
  "tab.frames": listFrames,
  "group.update": updateGroup,
  "tab.focus": focusTab,
  "action.badge": async (params) => {
    await chrome.action.setBadgeText({ text: params.text });
    // Yellow, as the group of an agent that asks: no agent's colour.
    await chrome.action.setBadgeBackgroundColor({ color: "#f9ab00" });
    return {};
  },
  "action.notify": (params) => notifyQuestions(params.open),
  "transfer.chunk": (params) => transfers.add(params).catch(refusedTransfer),
  "transfer.discard": (params) => (transfers.discard(params.transfer_id), Promise.resolve({})),
  "cdp.with_transfers": sendWithTransfers,
  "tab.network_rules": async (params) => {
    await getTab(params.tab_id);
    try {
      await setTabRules(params.tab_id, params.rules);
    } catch (error) {
      throw new MechanismError("unsupported", (error as Error).message ?? String(error));
    }
    return {};
  },
};

/**
 * Validates and performs one operation. `ahead` takes the replies a `cdp.sequence` sends ahead
 * of its result (its `lead`, decision 0239).
 */
export async function perform(
  op: OperationName,
  rawParams: unknown,
  ahead?: (results: Record<string, unknown>[]) => void,
): Promise<unknown> {
  const parsed = Operations[op].params.safeParse(rawParams);
  if (!parsed.success) {
    throw new MechanismError("invalid_params", `bad parameters for ${op}: ${parsed.error.message}`);
  }
  if (op === "cdp.sequence") {
    return await sendSequence(parsed.data as OperationParams<"cdp.sequence">, ahead);
  }
  const run = IMPLEMENTATIONS[op] as (params: unknown) => Promise<unknown>;
  return await run(parsed.data);
}
