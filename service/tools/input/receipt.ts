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
import { fence, originOf } from "../core/fence.ts";
import { runtimeCall } from "../page/in_page.ts";
import { redactSecrets } from "../page/redact.ts";
import { inMainFrame, tabPages } from "../page/refs.ts";
import { cdp, type TabTarget } from "../core/target.ts";
import { displayUrl } from "../core/redact_url.ts";

/** Longest wait for the page to settle after an action. */
const SETTLE_MAX_MS = 600;
/** Mutation-free time that counts as settled. */
const QUIET_MS = 80;
/** Elements a mutation touched, remembered per action (three are reported). */
const MAX_CHANGED_KEPT = 40;
/** How many 50 ms waits for the report of a tab an action opened in front. */
const TAB_REPORT_TRIES = 20;
/** Longest wait for a page an action navigated to. */
const NAVIGATION_WAIT_MS = 5_000;

/** An element as a receipt names it (the page runtime's `receiptElement`). */
export interface Described {
  role: string;
  name: string;
  tag: string;
  disabled?: boolean;
  value?: string;
}

/** What was true before the action. */
export interface Before {
  url: string;
  title: string;
  mutations: number;
  tabSerial: number;
  owned: Set<number>;
  /** The element at the action's point, when it had one. */
  element?: Described;
  /** The focused element before the action. */
  focus?: Described;
}

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
    focus?: Described;
    /** Up to three elements whose content or attributes changed. */
    changedElements?: Described[];
    /** The message of a dialog the action left open. */
    alertOrStatus?: string;
  };
  blockers: Blocker[];
  page: { tabId: number; url: string; origin: string; title: string; renderSerial: number };
  tabDelta?: { opened: { tabId: number; active: boolean }[]; closed: number[]; more: boolean };
  more: boolean;
}

function counterKey(workspace: Workspace): string {
  return `__ghostlight_${workspace.fenceNonce.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/**
 * Evaluates in Ghostlight's isolated world of the main frame: it shares the DOM but not the
 * page's globals, so a hostile page cannot fake what a receipt reports (its own
 * `MutationObserver`, `activeElement` or prototype overrides never run here). A receipt is best
 * effort: anything that fails reads as unknown.
 */
async function evaluateValue<T>(
  workspace: Workspace,
  target: TabTarget,
  expression: string,
): Promise<T | null> {
  try {
    return (await inMainFrame<T>(target, tabPages(workspace, target.tabId), expression)) ?? null;
  } catch {
    return null;
  }
}

/**
 * Notes the page's state before an action and installs the mutation counter; `point` (viewport
 * CSS pixels) names the element there. A tab in the background is brought to the front.
 */
export async function observeBefore(
  workspace: Workspace,
  target: TabTarget,
  point?: { x: number; y: number },
): Promise<Before> {
  const state = await evaluateValue<
    { url: string; title: string; n: number; el?: Described; hidden: boolean; focus?: Described }
  >(
    workspace,
    target,
    runtimeCall("observeBefore", counterKey(workspace), {
      point: point ?? null,
      keep: MAX_CHANGED_KEPT,
    }),
  );
  // A user acts on the tab in front. A background tab also has its timers throttled and its
  // frames paused, which would stall the settle wait after the action.
  if (state?.hidden) await cdp(target, "Page.bringToFront").catch(() => {});
  return {
    url: state?.url ?? "",
    title: state?.title ?? "",
    mutations: state?.n ?? 0,
    tabSerial: target.link.tabChangeSerial,
    owned: new Set(workspace.tabs),
    ...(state?.el ? { element: state.el } : {}),
    ...(state?.focus ? { focus: state.focus } : {}),
  };
}

async function settledState(workspace: Workspace, target: TabTarget) {
  return await evaluateValue<
    {
      url: string;
      title: string;
      n: number | null;
      rendered: boolean;
      settled: boolean;
      ready: string;
      focus?: Described;
      changed: Described[];
      hidden: boolean;
    }
  >(
    workspace,
    target,
    runtimeCall("settle", counterKey(workspace), { quietMs: QUIET_MS, maxMs: SETTLE_MAX_MS }),
  );
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

type Settled = Awaited<ReturnType<typeof settledState>>;

/**
 * The page's state once it is quiet after the action; when the action started a navigation,
 * the new page's (waited for, bounded). Null when a dialog, a closed tab or an unreadable page
 * leaves nothing to read.
 */
async function stateAfter(
  workspace: Workspace,
  target: TabTarget,
  gone: () => boolean,
): Promise<Settled> {
  let state = target.link.tab(target.native).dialog || gone()
    ? null
    : await settledState(workspace, target);
  const deadline = Date.now() + NAVIGATION_WAIT_MS;
  while (
    !target.link.tab(target.native).dialog && !gone() &&
    (state === null || state.ready === "loading") && Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await settledState(workspace, target);
  }
  return state;
}

/** What stands in the way after the action: a dialog, a disabled target, a native popup, no focus. */
function blockersAfter(
  target: TabTarget,
  before: Before,
  action: ActionNote,
  after: { state: Settled; mutations: number },
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
  if (before.element?.tag === "select" && /click/.test(action.action)) {
    blockers.push({
      kind: "native_popup",
      summary: "A select's option list is drawn by the browser, outside the page: clicks and " +
        "screenshots do not reach it.",
      nextStep: "Choose the option with form_input (the select's ref from find, and the " +
        "option's label or value).",
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
  // that tab may still be on its way; wait for it (briefly) so the delta names it.
  const opensTab = () =>
    target.link.tabChangesSince(before.tabSerial).some((change) => change.kind === "opened");
  for (let tries = 0; state?.hidden && !opensTab() && tries < TAB_REPORT_TRIES; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
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

/** Observes the page after an action and builds its receipt. */
export async function observeAfter(
  workspace: Workspace,
  target: TabTarget,
  before: Before,
  action: ActionNote,
): Promise<Receipt> {
  const gone = () =>
    target.link.tabChangesSince(before.tabSerial).some((change) =>
      change.kind === "closed" && change.native === target.native
    );
  const state = await stateAfter(workspace, target, gone);
  const openDialog = target.link.tab(target.native).dialog;
  const url = state?.url ?? before.url;
  const title = state?.title ?? before.title;
  const navigated = url !== before.url;
  const mutations = state?.n === null || state === null || navigated
    ? 0
    : Math.max(0, state.n - before.mutations);
  const blockers = blockersAfter(target, before, action, { state, mutations });
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
      ...(state?.focus ? { focus: clean(state.focus) } : {}),
      ...(state?.changed?.length && !navigated
        ? { changedElements: state.changed.map(clean) }
        : {}),
      ...(openDialog ? { alertOrStatus: redactSecrets(openDialog.message) } : {}),
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
  if (after.urlChanged) facts.push(`Now at ${after.urlChanged}.`);
  else if (after.mutations > 0) {
    facts.push(`${after.mutations} DOM change${after.mutations === 1 ? "" : "s"}.`);
  } else facts.push("No DOM change seen.");
  if (!after.urlChanged && after.renderAdvanced && !after.settled) {
    facts.push("The page was still changing; look again before relying on it.");
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
  const text = facts.join(" ");
  return sourced.length === 0
    ? text
    : `${text}\n${fence(workspace, receipt.page.origin, sourced.join("\n"))}`;
}
