/**
 * Receipts: what an action targeted and how surely, and what was observed after it — URL or
 * title change, DOM mutations, whether rendering advanced, the focused field, blockers such as
 * a dialog or a disabled element, and the tabs it opened or closed. Page-sourced strings are
 * fenced as untrusted.
 *
 * @module
 */

import type { Workspace } from "../../workspace/mod.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import type { ReceiptElement } from "../page_runtime/contract.ts";
import {
  type Command,
  knownMain,
  type LeadingRead,
  leadingRead,
  readKnownWorld,
  readMainFrame,
  type RuntimeAnswer,
  type RuntimeCall,
  runtimeCall,
  tabPages,
  trailingRead,
} from "../page/frames.ts";
import { cdp, type TabTarget } from "../core/target.ts";
import type { NavigationWatch } from "./send.ts";
import { broughtToFront } from "./front.ts";
import { log } from "../../log/mod.ts";
import type { PageFacts } from "../page/landed_facts.ts";
import { expectScale } from "../page/screenshot.ts";

/**
 * Longest wait for a mutation burst the action started to end: a page that never goes quiet is
 * answered by then, its receipt saying it was still busy.
 */
export const SETTLE_MAX_MS = 600;
/** Mutation-free time that ends a burst. */
const QUIET_MS = 50;
/** Elements a mutation touched, remembered per action (three are reported). */
const MAX_CHANGED_KEPT = 40;
/** Longest wait for the browser's report of a tab an action opened in front. */
const TAB_REPORT_MS = 1_000;

/** An element as a receipt names it (the page runtime's `receiptElement`). */
export type Described = ReceiptElement;

/** What was true before the action. */
export interface Before {
  url: string;
  title: string;
  mutations: number;
  tabSerial: number;
  owned: Set<number>;
  /** The main frame and the document it showed. */
  frame: { frameId: string; loaderId: string };
  /** The element at the action's point, when it had one. */
  element?: Described;
  /** The focused element before the action. */
  focus?: Described;
}

/** The page before an action as the page runtime reports it (`observeBefore`). */
export type BeforeState = RuntimeAnswer<"observeBefore">;

/** How the action found its target. */
export type Assurance = "semantic" | "ref" | "coordinate" | "none";

/** A blocker the agent must deal with. */
export interface Blocker {
  kind: string;
  summary: string;
  nextStep: string;
}

/** The receipt of one action. */
export interface Receipt {
  action: string;
  targetAssurance: Assurance;
  target?: Described & { ref?: string; x?: number; y?: number };
  observedAfter: {
    urlChanged?: string;
    titleChanged?: string;
    mutations: number;
    renderAdvanced: boolean;
    settled: boolean;
    /** The settle wait ran out while the page was still changing. */
    stillBusy?: true;
    /**
     * The action led to another page whose document was ready when it was answered, but whose
     * images or other resources were still loading (decision 0245).
     */
    stillLoading?: true;
    focus?: Described;
    /** Up to three elements whose content or attributes changed. */
    changedElements?: Described[];
    /** The message of a dialog the action left open. */
    alertOrStatus?: string;
    /**
     * The field for which the browser refused to submit a form during the action (its own
     * validation), and the message it gives; only when the page stayed (decision 0247).
     */
    invalidField?: Described & { message: string };
  };
  blockers: Blocker[];
  page: { tabId: number; url: string; origin: string; title: string; renderSerial: number };
  tabDelta?: { opened: { tabId: number; active: boolean }[]; closed: number[]; more: boolean };
  more: boolean;
}

/** What an answer says of a page whose document is ready while its resources still load. */
export const STILL_LOADING = "Its document is ready; some resources are still loading.";

/** The name of the workspace's mutation counter in the page's Ghostlight world. */
export function counterKey(workspace: Workspace): string {
  return `__ghostlight_${workspace.fenceNonce.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/** How many changed elements the page keeps per action. */
export const CHANGED_KEPT = MAX_CHANGED_KEPT;

/**
 * Turns the page's report from before an action into {@linkcode Before}. A tab in the background
 * is brought to the front: a user acts on the tab in front, and a background tab also has its
 * timers throttled and its frames paused, which would stall the settle wait after the action.
 */
export async function noteBefore(
  workspace: Workspace,
  target: TabTarget,
  state: BeforeState | null,
  frame: { frameId: string; loaderId: string },
): Promise<Before> {
  if (state?.hidden) {
    await cdp(target, "Page.bringToFront").catch(() => {});
    broughtToFront(target);
  }
  return {
    url: state?.url ?? "",
    title: state?.title ?? "",
    mutations: state?.n ?? 0,
    tabSerial: target.link.tabChangeSerial,
    owned: new Set(workspace.tabs),
    frame: { frameId: frame.frameId, loaderId: frame.loaderId },
    ...(state?.el ? { element: state.el } : {}),
    ...(state?.focus ? { focus: state.focus } : {}),
  };
}

/**
 * Notes the page's state before an action and installs the mutation counter, in one round trip
 * to the page's Ghostlight world (isolated: it shares the DOM but not the page's globals, so a
 * hostile page cannot fake what a receipt reports). `point` (viewport CSS pixels) names the
 * element there; `beside` are commands sent in the same round trip, their replies returned (none
 * when they failed).
 */
export async function observeBefore(
  workspace: Workspace,
  target: TabTarget,
  options: { point?: { x: number; y: number }; beside?: Command[] } = {},
): Promise<Before & { beside: Record<string, unknown>[] }> {
  const readWith = (beside: Command[]) =>
    readMainFrame<BeforeState>(
      target,
      tabPages(workspace, target.tabId),
      beforeCall(workspace, options.point ?? null),
      beside,
      // It answers without a promise: the read (and the type question beside it) go out at once.
      { synchronous: true },
    );
  // Commands beside the read that fail (or that an older extension refuses) must not cost the
  // receipt its "before": the read is made again alone, and their replies are then missing.
  const beside = options.beside ?? [];
  const read = await readWith(beside).catch(() =>
    beside.length > 0 ? readWith([]).catch(() => null) : null
  );
  const before = await noteBefore(
    workspace,
    target,
    read?.value ?? null,
    read ?? { frameId: "", loaderId: "" },
  );
  return { ...before, beside: read?.beside ?? [] };
}

/** The page runtime's note of the page before an action (the element at `point`, if any). */
function beforeCall(
  workspace: Workspace,
  point: { x: number; y: number } | null,
): RuntimeCall<BeforeState> {
  return runtimeCall("observeBefore", counterKey(workspace), { point, keep: MAX_CHANGED_KEPT });
}

/**
 * {@linkcode observeBefore} as the read that opens an action's page program (decision 0241):
 * the program's steps after it go out only when the page is in front and the frame still shows
 * the known world's document. Null when no main-frame world is known: the caller observes in a
 * round trip of its own.
 */
export function leadBefore(workspace: Workspace, target: TabTarget): {
  read: LeadingRead<BeforeState>;
  /** The page before the action from the lead's replies; null when nothing was sent. */
  found(
    lookup: Record<string, unknown>,
    look: Record<string, unknown>,
    tabSerial: number,
  ): Promise<Before | null>;
} | null {
  const world = knownMain(target, tabPages(workspace, target.tabId));
  const read = world && leadingRead<BeforeState>(world, beforeCall(workspace, null));
  if (!read) return null;
  const owned = new Set(workspace.tabs);
  return {
    read,
    async found(lookup, look, tabSerial) {
      const answer = read.answer(lookup, look);
      // The same rule as the extension's: a page in the background was not acted on.
      if (!answer || answer.value?.hidden !== false) return null;
      const before = await noteBefore(workspace, target, answer.value, answer);
      return { ...before, tabSerial, owned };
    },
  };
}

/**
 * The page after an action as the page runtime reports it (`settle`); whether its document is
 * still shown is the read's to check, and a new document's own report has no say in it.
 */
type AfterState = Omit<RuntimeAnswer<"settle">, "current">;

/** The page's state after an action as read, and the document it was read in. */
export type SettleRead = { state: AfterState | null; loaderId: string } | null;

function settleExpression(
  workspace: Workspace,
  maxMs: number,
  presses = 0,
): RuntimeCall<AfterState> {
  return runtimeCall("settle", counterKey(workspace), {
    quietMs: QUIET_MS,
    maxMs,
    ...(presses > 0 ? { presses } : {}),
  });
}

/**
 * The settle read as the step at the end of the input's own message (decision 0212): sent only
 * after every input command replied, and one round trip fewer. A reply does not say the page
 * heard the event: with `presses` (the input presses and releases a mouse button that many times)
 * the read first waits, within its bound, for the last release to reach the page, and says when
 * the press or the release never did (decisions 0390, 0660). Null, and the settle read is a trip
 * of its own after the input, when no main-frame world is known to read in.
 */
export function settleStep(
  workspace: Workspace,
  target: TabTarget,
  input: { presses: number },
): { command: Command; read(reply: Record<string, unknown>): SettleRead } | null {
  const world = knownMain(target, tabPages(workspace, target.tabId));
  const expression = settleExpression(workspace, SETTLE_MAX_MS, input.presses);
  const read = world && trailingRead<AfterState>(world, expression);
  if (!read) return null;
  return {
    command: read.command,
    read(reply) {
      const answer = read.answer(reply);
      return answer && { state: answer.value, loaderId: answer.loaderId };
    },
  };
}

/**
 * Reads the page once it settled (`maxMs` 0: as it is now); null when it cannot be read. With
 * `racing` (a navigation may be under way) a world that is no longer current is not made again.
 */
async function settledState(
  workspace: Workspace,
  target: TabTarget,
  options: { maxMs: number; racing?: boolean },
): Promise<SettleRead> {
  const pages = tabPages(workspace, target.tabId);
  const expression = settleExpression(workspace, options.maxMs);
  try {
    const read = options.racing
      ? await readKnownWorld<AfterState>(target, pages, expression)
      : await readMainFrame<AfterState>(target, pages, expression);
    return read && { state: read.value, loaderId: read.loaderId };
  } catch {
    return null;
  }
}

/** An element description with secret-looking names and values replaced. */
function clean(element: Described): Described {
  return {
    ...element,
    name: redactSecrets(element.name),
    ...(element.value !== undefined ? { value: redactSecrets(element.value) } : {}),
  };
}

function dialogBlocker(target: TabTarget): Blocker | null {
  const dialog = target.link.tab(target.native).dialog;
  if (!dialog) return null;
  return {
    kind: "dialog",
    summary: `A JavaScript ${dialog.type} dialog is open and blocks the page.`,
    nextStep: `The page is frozen until it is answered. ${howToAnswer(dialog.type, target.tabId)}`,
  };
}

/** What an action says about itself to its receipt. */
export interface ActionNote {
  action: string;
  assurance: Assurance;
  ref?: string;
  x?: number;
  y?: number;
  /** What the ref resolver said the target is (surer than the element at the point). */
  element?: Described;
  /** Blockers found before acting (an overlay on the target). */
  blockers?: Blocker[];
}

type Settled = AfterState | null;

/**
 * The page's state once what the action caused is over: a frame rendered and any mutation burst
 * ended (bounded by {@linkcode SETTLE_MAX_MS}); when the action started a navigation, the new
 * page's as its runtime reported it at its first frame or its load, whichever came first
 * (waited for on the browser's events, bounded by `NAVIGATION_WAIT_MS`; decision 0245),
 * or, for a document whose runtime does not report, read once it reached DOMContentLoaded. The
 * old page's answer is not awaited once the browser reports the main frame loading another
 * document: a page being left may not answer until it is gone. Null when a dialog, a closed tab
 * or an unreadable page leaves nothing to read.
 */
async function stateAfter(
  workspace: Workspace,
  target: TabTarget,
  after: {
    before: Before;
    watch: NavigationWatch;
    gone: () => boolean;
    first?: SettleRead | "leaving";
  },
): Promise<Settled> {
  const { before, watch, gone } = after;
  const blocked = () => target.link.tab(target.native).dialog !== null || gone();
  if (blocked()) return null;
  const leaving = watch.leaving.then(() => "leaving" as const);
  const read = await Promise.race([
    after.first !== undefined
      ? after.first
      : settledState(workspace, target, { maxMs: SETTLE_MAX_MS, racing: true }),
    leaving,
  ]);
  const first = read === "leaving" ? null : read;
  const state = first?.state ?? null;
  const known = before.frame.loaderId !== "";
  const left = read === "leaving" || watch.started || state?.navigating !== undefined ||
    (known && (first === null || first.loaderId !== before.frame.loaderId));
  if (!left || blocked()) return state;
  const waitedFrom = Date.now();
  let waitedOut = false;
  // Where the action led, as the new document reports itself at its first frame or its load
  // (decisions 0240, 0245); a document whose runtime will not report (restored from the
  // back/forward cache, or events were lost) is read once it reached DOMContentLoaded.
  let answered = false;
  const reported = watch.landed.then((facts) => {
    if (facts?.view) expectScale(target, facts.view);
    return facts ? landedState(facts) : null;
  });
  const loaded = (async (): Promise<Settled> => {
    const arrived = await watch.arrived();
    waitedOut = !arrived;
    if (answered || blocked()) return null;
    if (arrived && watch.willReport()) {
      const state = await reported;
      if (state || answered || blocked()) return state;
    }
    return (await settledState(workspace, target, { maxMs: 0 }))?.state ?? null;
  })();
  const found = await Promise.race([loaded, reported.then((state) => state ?? loaded)]);
  answered = true;
  // A receipt that waited out the whole bound for a navigation that never came (issue 28's
  // flat ~5 s clicks had this length; decision 0495): the log says why it thought the page was
  // being left.
  if (waitedOut) {
    const why = read === "leaving"
      ? "the page was reported leaving"
      : state?.navigating !== undefined
      ? "the page reported a navigation to another document"
      : first
      ? "the settle read came from another document"
      : watch.started
      ? "a document request started"
      : "the settle read missed";
    log("warn", `an action's receipt waited ${Date.now() - waitedFrom} ms for a page: ${why}`);
  }
  return blocked() ? state : found ?? state;
}

/**
 * The page after an action that navigated, as its new document reported itself at its first frame
 * or its load (decision 0245): the same facts a read there would give, with nothing counted as
 * changed (it is another document).
 */
function landedState(facts: PageFacts): AfterState {
  return {
    url: facts.url,
    title: facts.title,
    n: null,
    rendered: false,
    settled: true,
    ready: facts.ready,
    ...(facts.focus ? { focus: facts.focus } : {}),
    changed: [],
    hidden: false,
  };
}

/** What stands in the way after the action: a dialog, a disabled target, a native popup, no focus. */
function blockersAfter(
  target: TabTarget,
  before: Before,
  action: ActionNote,
  after: { state: Settled; mutations: number; navigated: boolean },
): Blocker[] {
  const blockers: Blocker[] = [...action.blockers ?? []];
  const dialog = dialogBlocker(target);
  if (dialog) blockers.push(dialog);
  if (before.element?.disabled || action.element?.disabled) {
    blockers.push({
      kind: "disabled",
      summary: "The element at that point is disabled, so the action may have done nothing.",
      nextStep: "Complete what the form requires first, then try again.",
    });
  }
  // A list box (multiple, or several rows) draws its options in the page: a click reaches them.
  const dropdown = before.element?.tag === "select" && before.element.role !== "listbox";
  if (dropdown && /click/.test(action.action)) {
    blockers.push({
      kind: "native_popup",
      summary: "A select's option list is drawn by the browser, outside the page: clicks and " +
        "screenshots do not reach it.",
      nextStep: "Choose the option with form_input (the select's ref from find, and the " +
        "option's label or value).",
    });
  }
  if (after.state?.pressLost) {
    blockers.push({
      kind: "press_lost",
      summary: "No mouse press reached the page's window: the browser dropped it (as it can on " +
        "a busy machine), or the page stopped it before anything of Ghostlight's could see it.",
      nextStep: "Look at the page (find or screenshot) before trying the action again.",
    });
  }
  if (after.state?.releaseLost) {
    blockers.push({
      kind: "release_lost",
      summary: `The mouse press reached the page's window, but its release had not within ` +
        `${SETTLE_MAX_MS} ms: the click may not have happened (the browser dropped the release, ` +
        "or the page stopped it first).",
      nextStep: "Look at the page (find or screenshot) before trying the action again.",
    });
  }
  // Only an action that can submit a form: a page that validates as the user types (its own
  // checkValidity calls fire the same event) must not turn every keystroke into a refusal.
  if (after.state?.refused && !after.navigated && /click|^key$/.test(action.action)) {
    blockers.push({
      kind: "invalid_form",
      summary: "The form was not submitted: a field failed the form's own checks (named below).",
      nextStep: "Correct that field (form_input with its ref), then submit again.",
    });
  }
  if (
    action.action === "type" && !before.focus && !after.state?.focus && after.mutations === 0
  ) {
    blockers.push({
      kind: "no_focus",
      summary: "Nothing had focus, so the typed text went nowhere.",
      nextStep: "Click the field first (left_click on it or its ref), then type again.",
    });
  }
  return blockers;
}

/** The workspace's tabs the action opened or closed. */
async function tabDeltaAfter(
  workspace: Workspace,
  target: TabTarget,
  before: Before,
  state: Settled,
): Promise<Receipt["tabDelta"]> {
  // The page went to the background: a tab opened in front of it. The browser's report of
  // that tab may still be on its way; wait for it (bounded) so the delta names it.
  if (state?.hidden) {
    await target.link.tabChangeAfter(
      before.tabSerial,
      (change) => change.kind === "opened",
      TAB_REPORT_MS,
    );
  }
  const changes = target.link.tabChangesSince(before.tabSerial);
  const opened = changes.filter((change) =>
    change.kind === "opened" && workspace.tabs.has(target.link.compose(change.native))
  ).map((change) => ({
    tabId: target.link.compose(change.native),
    active: change.active ?? false,
  }));
  const closed = changes.filter((change) =>
    change.kind === "closed" && before.owned.has(target.link.compose(change.native))
  ).map((change) => target.link.compose(change.native));
  return opened.length > 0 || closed.length > 0 ? { opened, closed, more: false } : undefined;
}

/**
 * Observes the page after an action (its navigation watched by `watch`) and builds its receipt.
 * `first` is the settle read when it travelled with the input ({@linkcode settleStep}), or
 * "leaving" when the page was being left before it answered.
 */
export async function observeAfter(
  workspace: Workspace,
  target: TabTarget,
  before: Before,
  action: ActionNote & { watch: NavigationWatch; first?: SettleRead | "leaving" },
): Promise<Receipt> {
  const gone = () =>
    target.link.tabChangesSince(before.tabSerial).some((change) =>
      change.kind === "closed" && change.native === target.native
    );
  // The reads that lose a race in stateAfter (to the page's leaving, to the new page's own
  // report) are not awaited: once the receipt is known they send nothing more to the tab, where
  // they would run during the agent's next calls (decision 0760).
  const over = new AbortController();
  let state: Settled;
  try {
    state = await stateAfter(workspace, { ...target, signal: over.signal }, {
      before,
      watch: action.watch,
      gone,
      first: action.first,
    });
  } finally {
    over.abort();
    action.watch.stop();
  }
  const openDialog = target.link.tab(target.native).dialog;
  const url = state?.url ?? before.url;
  const title = state?.title ?? before.title;
  const navigated = url !== before.url;
  const mutations = state?.n === null || state === null || navigated
    ? 0
    : Math.max(0, state.n - before.mutations);
  const blockers = blockersAfter(target, before, action, { state, mutations, navigated });
  const tabDelta = await tabDeltaAfter(workspace, target, before, state);
  return {
    action: action.action,
    targetAssurance: action.assurance,
    ...(before.element || action.ref || action.x !== undefined
      ? {
        target: {
          ...clean(action.element ?? before.element ?? { role: "", name: "", tag: "" }),
          ...(action.ref ? { ref: action.ref } : {}),
          ...(action.x !== undefined ? { x: action.x, y: action.y } : {}),
        },
      }
      : {}),
    observedAfter: {
      ...(navigated ? { urlChanged: displayUrl(url) } : {}),
      ...(title !== before.title ? { titleChanged: title } : {}),
      mutations,
      renderAdvanced: state?.rendered ?? false,
      settled: state?.settled ?? false,
      ...(state?.busy && !navigated ? { stillBusy: true as const } : {}),
      ...(navigated && state && state.ready !== "complete" ? { stillLoading: true as const } : {}),
      ...(state?.focus ? { focus: clean(state.focus) } : {}),
      ...(state?.changed?.length && !navigated
        ? { changedElements: state.changed.map(clean) }
        : {}),
      ...(openDialog ? { alertOrStatus: redactSecrets(openDialog.message) } : {}),
      ...(state?.refused && !navigated
        ? {
          invalidField: { ...clean(state.refused), message: redactSecrets(state.refused.message) },
        }
        : {}),
    },
    blockers,
    page: {
      tabId: target.tabId,
      url: displayUrl(url),
      origin: originOf(url),
      title,
      renderSerial: state?.n ?? 0,
    },
    ...(tabDelta ? { tabDelta } : {}),
    more: false,
  };
}

function quote(element: Described): string {
  const name = element.name ? ` "${element.name}"` : "";
  const value = element.value !== undefined && element.value !== ""
    ? ` holding "${element.value}"`
    : "";
  return `${element.role || element.tag}${name}${value}${element.disabled ? " (disabled)" : ""}`;
}

/**
 * The receipt as short text: mechanical facts plainly, page-sourced strings (names, values,
 * titles) inside the workspace's untrusted fence.
 */
export function renderReceipt(workspace: Workspace, receipt: Receipt, lead: string): string {
  const after = receipt.observedAfter;
  const facts: string[] = [lead];
  if (after.urlChanged) {
    facts.push(`Now at ${fencedUrl(workspace, after.urlChanged)}.`);
    if (after.stillLoading) facts.push(STILL_LOADING);
  } else if (after.mutations > 0) {
    facts.push(`${after.mutations} DOM change${after.mutations === 1 ? "" : "s"}.`);
  } else facts.push("No DOM change seen.");
  if (!after.urlChanged && after.stillBusy) {
    facts.push(
      `The page was still busy (it did not go quiet within ${SETTLE_MAX_MS} ms); look again ` +
        "before relying on it.",
    );
  }
  const delta = receipt.tabDelta;
  if (delta?.opened.length) {
    facts.push(
      `Opened tab ${delta.opened.map((tab) => tab.tabId).join(", ")} (yours now; pass its tabId).`,
    );
  }
  if (delta?.closed.length) facts.push(`Closed tab ${delta.closed.join(", ")}.`);
  for (const blocker of receipt.blockers) facts.push(`${blocker.summary} ${blocker.nextStep}`);
  const sourced: string[] = [];
  if (receipt.target && (receipt.target.role || receipt.target.name)) {
    sourced.push(`target: ${quote(receipt.target)}`);
  }
  const focus = after.focus && quote(after.focus);
  if (focus && !(receipt.target && quote(receipt.target) === focus)) {
    sourced.push(`focused: ${focus}`);
  }
  for (const element of after.changedElements ?? []) sourced.push(`changed: ${quote(element)}`);
  if (after.titleChanged !== undefined) sourced.push(`title: "${after.titleChanged}"`);
  if (after.alertOrStatus !== undefined) sourced.push(`dialog says: "${after.alertOrStatus}"`);
  if (after.invalidField) {
    sourced.push(`invalid: ${quote(after.invalidField)}: "${after.invalidField.message}"`);
  }
  const text = facts.join(" ");
  return sourced.length === 0
    ? text
    : `${text}\n${fence(workspace, receipt.page.origin, sourced.join("\n"))}`;
}
