/**
 * `navigate`: load a URL or move through history in an owned tab, then wait for the load.
 * Loads are recognised by the tab's CDP lifecycle events, with a readyState poll as fallback;
 * a leave-page prompt is dismissed (and reported) unless `force` accepts it.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { log } from "../../log/mod.ts";
import type { TabState } from "../../browser/mod.ts";
import { pageAfterEffect } from "../page/after_dialog.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import { normalizeUrl } from "../core/url.ts";
import type { PageFacts } from "../page/landed_facts.ts";
import { expectScale } from "../page/screenshot.ts";
import {
  LANDED_GRACE_MS,
  LOAD_NOTES,
  LOAD_TIMEOUT_MS,
  type LoadState,
  LoadWatch,
  waitForLoad,
} from "../input/load_watch.ts";
import { cdp, ownedTab, type TabTarget } from "../core/target.ts";

/**
 * Dialogs open before a forced navigation that it answers one after the other; a page that opens
 * yet another after these is looping, and the navigation is not sent (decision 0345).
 */
const DIALOGS_ANSWERED_BEFORE_LEAVING = 3;
/**
 * How long after a forced navigation answered a dialog the page may open another for its dialogs
 * to count as still coming (a loop opens the next within milliseconds; this leaves room for a
 * loaded machine).
 */
const DIALOG_QUIET_MS = 1_000;

/** How often a navigation the browser stopped before it left its page is sent (decision 0210). */
const SENDS_WHEN_STOPPED = 2;

/** A tab's history as `Page.getNavigationHistory` gives it. */
export interface History {
  currentIndex: number;
  entries: { id: number; url: string; title: string }[];
}

/**
 * Runs a navigation command while answering a leave-page prompt it raises: accepted with
 * `force`, otherwise dismissed, in which case the page stays and the call fails clearly.
 */
async function throughPrompts<T>(
  target: TabTarget,
  state: TabState,
  force: boolean,
  command: () => Promise<T>,
  onPrompt: () => void = () => {},
): Promise<T> {
  const stop = new AbortController();
  let refused = false;
  const watch = (async () => {
    while (!stop.signal.aborted) {
      // Only the page being left asks to stay: the new page's own alert, opened as it loads
      // before the navigation's answer is read, is no leave-page prompt and stays for the agent.
      const event = await state.waitFor(
        (e) => e.method === "Page.javascriptDialogOpening" && e.params.type === "beforeunload",
        LOAD_TIMEOUT_MS,
        stop.signal,
      );
      if (!event) return;
      onPrompt();
      refused = !force;
      await cdp(target, "Page.handleJavaScriptDialog", { accept: force }).catch(() => {});
    }
  })();
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await command();
  } catch (error) {
    failure = error;
  }
  stop.abort();
  await watch;
  if (refused) {
    throw new ToolError(
      "tool_failure",
      "The page asked to stay (a leave-page prompt), so the tab did not navigate.",
      "Call navigate again with force: true to leave anyway (unsaved input is lost).",
    );
  }
  if (failure !== undefined) throw failure;
  return result as T;
}

/**
 * Answers a dialog already open before navigating, or explains why navigation cannot start.
 * With `force` it answers the dialogs the page opens one after another, up to
 * {@linkcode DIALOGS_ANSWERED_BEFORE_LEAVING}, until none follows within
 * {@linkcode DIALOG_QUIET_MS}; a page whose dialogs keep coming is not navigated (decision 0345).
 */
async function clearOpenDialog(target: TabTarget, state: TabState, force: boolean) {
  let dialog = state.dialog;
  if (!dialog) return;
  if (!force) {
    throw new ToolError(
      "tool_failure",
      `A JavaScript ${dialog.type} dialog is open in this tab and blocks navigation.`,
      `${howToAnswer(dialog.type, target.tabId)} Or call navigate with force: true to dismiss ` +
        "it and go.",
    );
  }
  for (let answered = 0; dialog; answered++) {
    if (answered === DIALOGS_ANSWERED_BEFORE_LEAVING) throw heldByDialogs(target, dialog.type);
    // Listening before the answer: the page's next dialog can open as this one closes.
    const next = state.watch((event) => event.method === "Page.javascriptDialogOpening");
    try {
      // The dialog may be gone already (the page closed it, or the person answered it).
      await cdp(target, "Page.handleJavaScriptDialog", { accept: dialog.type === "beforeunload" })
        .catch(() => {});
      // The quiet time counts from the answer's reply: on a loaded machine the round trip
      // itself can take longer than a looping page needs to open the next dialog.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const reopened = await Promise.race([
        next.event,
        new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), DIALOG_QUIET_MS)),
      ]);
      clearTimeout(timer);
      dialog = reopened === null ? null : state.dialog;
    } finally {
      next.stop();
    }
  }
}

/**
 * The answer for a page that holds its tab with dialog after dialog: its script never lets go of
 * the page's renderer, so no navigation can replace it (decision 0345); closing the tab always
 * works.
 */
function heldByDialogs(target: TabTarget, type: string): ToolError {
  return new ToolError(
    "tool_failure",
    `The tab did not leave the page it was on: that page opens a JavaScript ${type} dialog ` +
      `again as each is answered (${DIALOGS_ANSWERED_BEFORE_LEAVING} were answered), and while ` +
      "its script runs no new page can replace it, so navigate was not sent.",
    `A page that will not let go can always be closed: tab_control {"action": "close", ` +
      `"tabId": ${target.tabId}}, then open a new tab.`,
  );
}

/**
 * Moves back or forward in the tab's history; returns the URL of the entry it goes to. Fails
 * when the page asks to stay (and `force` is not set) or the browser drops the move.
 */
export async function goThroughHistory(
  target: TabTarget,
  state: TabState,
  move: { raw: "back" | "forward"; force: boolean; history: History },
  watch: LoadWatch,
): Promise<string> {
  const { history, raw } = move;
  const entry = history.entries[history.currentIndex + (raw === "back" ? -1 : 1)];
  if (!entry) {
    throw new ToolError(
      "tool_failure",
      `There is no page to go ${raw} to in this tab's history.`,
      'Navigate to a URL instead: {"url": "https://example.com", "tabId": 123}.',
    );
  }
  watch.expected = null;
  // Named before the move is sent, so that the main frame's stop is known for what it is.
  const tree = await cdp(target, "Page.getFrameTree") as { frameTree: { frame: { id: string } } };
  watch.mainFrame = tree.frameTree.frame.id;
  await throughPrompts(target, state, move.force, async () => {
    await cdp(target, "Page.navigateToHistoryEntry", { entryId: entry.id });
    // Chrome answers as the move starts, and a busy page may ask to stay after that: the
    // prompt is answered here until the move commits or ends (a load, a move within the
    // document, a restore, or the main frame's stop).
    await Promise.race([watch.commit, watch.event]);
  });
  await moveArrived(target, move, watch);
  return entry.url;
}

/**
 * After a history move whose main frame stopped loading before anything committed: when the
 * tab's history still stands on the entry it stood on, the browser dropped the move (as it drops
 * a navigation sent while the page gets over a refused prompt, decision 0210), and the call
 * says so at once instead of answering with the page the tab never left.
 */
async function moveArrived(
  target: TabTarget,
  move: { raw: "back" | "forward"; history: History },
  watch: LoadWatch,
): Promise<void> {
  if (!watch.stoppedEarly) return;
  const { history, raw } = move;
  const now = await cdp(target, "Page.getNavigationHistory") as unknown as History;
  if (now.entries[now.currentIndex]?.id !== history.entries[history.currentIndex]?.id) return;
  throw new ToolError(
    "tool_failure",
    `The browser stopped the move ${raw} before the tab left its page, so the tab did not move.`,
    `Read the page (get_page_text) to see where the tab is, then call navigate with "${raw}" ` +
      "again; with force: true if the page asks to stay.",
  );
}

/**
 * Whether a `Page.navigate` reply says the browser stopped the navigation before it left the
 * page: aborted, not a download, with no leave-page prompt and no request for a document seen.
 * Chrome does this, without a prompt, to a navigation that arrives while the page is still
 * getting over a prompt refused just before (decision 0210): nothing was loaded or sent, so the
 * tab is where it was and the navigation can be asked for again.
 */
export function stoppedBeforeLeaving(
  reply: Record<string, unknown>,
  seen: { prompted: boolean; requested: boolean },
): boolean {
  return reply.errorText === "net::ERR_ABORTED" && reply.isDownload !== true &&
    !seen.prompted && !seen.requested;
}

/** Starts loading `requested` in the tab; a URL that cannot be loaded is refused here. */
export async function goToUrl(
  target: TabTarget,
  state: TabState,
  go: { requested: string; force: boolean },
  watch: LoadWatch,
): Promise<void> {
  const { requested } = go;
  const navigateOnce = async () => {
    watch.requested = false;
    let prompted = false;
    const reply = await throughPrompts(target, state, go.force, () => {
      return cdp(target, "Page.navigate", { url: requested }, { timeoutMs: LOAD_TIMEOUT_MS });
    }, () => prompted = true);
    return {
      reply,
      stopped: stoppedBeforeLeaving(reply, { prompted, requested: watch.requested }),
    };
  };
  let { reply, stopped } = await navigateOnce();
  // A second attempt meets the page settled, and its prompt (if any) is answered above.
  for (let sends = 1; stopped && sends < SENDS_WHEN_STOPPED; sends++) {
    log("info", `navigate: tab ${target.tabId}: stopped before leaving its page, sent once more`);
    ({ reply, stopped } = await navigateOnce());
  }
  if (stopped) {
    throw new ToolError(
      "tool_failure",
      `The browser stopped the navigation to ${requested} before the tab left its page ` +
        "(net::ERR_ABORTED, twice, with no leave-page prompt), so the tab did not navigate.",
      "Read the page (get_page_text) to see where the tab is, then call navigate again; with " +
        "force: true if the page asks to stay.",
    );
  }
  if (reply.errorText === "net::ERR_ABORTED" && reply.isDownload !== true && !watch.committed) {
    throw new ToolError(
      "tool_failure",
      `The navigation to ${requested} was stopped before a new page arrived ` +
        "(net::ERR_ABORTED), so the tab stayed on its page.",
      "Read the page (get_page_text) to see where the tab is. A server that answers 204 No " +
        "Content, or a navigation the page starts itself, stops one this way; call navigate " +
        "again if the page should have loaded.",
    );
  }
  if (typeof reply.errorText === "string" && reply.errorText !== "") {
    // Chrome shows its own error page in the tab for a load that failed: the page the tab was
    // on is gone from it, and reads and scripts now meet that error page.
    throw new ToolError(
      "tool_failure",
      `Could not load ${requested}: ${reply.errorText}. The tab now shows the browser's error ` +
        "page in place of the page it was on.",
      `${LOAD_FAILURES[reply.errorText] ?? LOAD_FAILURE} Navigate back to return to the page ` +
        "before.",
    );
  }
  // No loader id: a same-document navigation (only the fragment changed); nothing to load.
  watch.expected = typeof reply.loaderId === "string" ? reply.loaderId : undefined;
}

/** What to do about a load that failed, for the errors whose cause is known. */
const LOAD_FAILURES: Record<string, string> = {
  "net::ERR_NAME_NOT_RESOLVED": "The host name does not resolve: check its spelling.",
  "net::ERR_CONNECTION_REFUSED": "Nothing answers at that address and port: check the port, " +
    "or whether the server is running.",
  "net::ERR_UNSAFE_PORT": "Chrome never connects to that port (it is on the browser's list of " +
    "unsafe ports); the server must listen on another one.",
  "net::ERR_CERT_AUTHORITY_INVALID": "The site's certificate is not trusted by the browser.",
};

/** What to do about a load that failed for another reason. */
const LOAD_FAILURE = "Check the address; the site may be down or unreachable from this machine.";

/** What a navigation found, for its answer. */
interface Landing {
  raw: string;
  requested: string;
  load: LoadState;
  /** Console entries from before the navigation: not this page's. */
  earlier: Set<unknown>;
  /** What the loaded document's runtime reported at its load, when it did. */
  facts: PageFacts | null;
}

/** The answer: where the tab landed, how far it loaded, and what is in the way. */
async function landingReport(
  context: ToolContext,
  target: TabTarget,
  state: TabState,
  landing: Landing,
): Promise<Outcome> {
  const { raw, requested, load } = landing;
  // The URL, the title and the HTTP status of the document that loaded (0 when unknown, e.g.
  // about:blank, history, or a dialog that froze the page): as the document reported them at its
  // load when it did, since a page that has just loaded answers a question only once it has laid
  // itself out (decision 0222); otherwise one evaluation. With a dialog open the page cannot be
  // asked; the browser still knows where the tab is.
  const page = (!state.dialog && landing.facts) || await pageAfterEffect(context.workspace, target);
  const status = state.dialog ? 0 : page.status ?? 0;
  const origin = originOf(page.url);
  const redirected = page.url !== requested && raw !== "back" && raw !== "forward";
  // A landing URL can carry credentials (an OAuth code, a session token): never show them.
  const landed = displayUrl(page.url);
  // Only what this navigation brought: entries already buffered belong to earlier pages.
  const errors = state.console.items()
    .filter((entry) => entry.level === "error" && !landing.earlier.has(entry)).length;
  const notes = [
    redirected ? ` (redirected from ${fencedUrl(context.workspace, requested)})` : "",
    status >= 400 ? ` The server answered HTTP ${status}: this is its error page.` : "",
    LOAD_NOTES[load],
    state.dialog
      ? ` A JavaScript ${state.dialog.type} dialog opened while it loaded and freezes the page. ` +
        howToAnswer(state.dialog.type, target.tabId)
      : "",
    errors > 0
      ? ` The page logged ${errors} console error${errors === 1 ? "" : "s"} ` +
        "(read_console_messages with onlyErrors: true)."
      : "",
  ].join("");
  const dialogSays = state.dialog ? `\ndialog says: "${redactSecrets(state.dialog.message)}"` : "";
  return success(
    `Tab ${target.tabId} is at ${fencedUrl(context.workspace, page.url)}${notes}\n${
      fence(context.workspace, origin, `title: ${page.title}${dialogSays}`)
    }`,
    {
      tabId: target.tabId,
      url: landed,
      title: page.title,
      origin,
      loaded: load === "complete",
      readyState: load,
      ...(status > 0 ? { status } : {}),
      ...(redirected ? { requestedUrl: displayUrl(requested) } : {}),
    },
  );
}

/**
 * A navigation that loads a document but never saw the main frame commit one, with a dialog open
 * now, did not leave the page it was on: the page holds its renderer with the dialog (a page that
 * opens one again as each is answered, issue 26), so the new document could not replace it.
 * Answered as that, never as a landing on the old page's URL "redirected from" the requested one.
 */
function stayedBehindDialog(
  target: TabTarget,
  state: TabState,
  navigation: { moved: boolean; sent: string | null | undefined; committed: boolean },
): void {
  const dialog = state.dialog;
  if (!dialog || navigation.moved || typeof navigation.sent !== "string") return;
  if (navigation.committed) return;
  throw new ToolError(
    "tool_failure",
    `The tab did not leave the page it was on: a JavaScript ${dialog.type} dialog of that page ` +
      "is open and holds it, so the new page could not replace it when this answer was given " +
      "(a page that opens a dialog again as each is answered keeps doing so).",
    `${howToAnswer(dialog.type, target.tabId)} A page that will not let go can always be closed: ` +
      `tab_control {"action": "close", "tabId": ${target.tabId}}.`,
  );
}

/** `navigate`. */
export const navigate: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const raw = (args.url as string).trim();
  const force = args.force === true;
  const moves = raw === "back" || raw === "forward";
  // Observation first (its events are what the wait below needs); the history only for a move
  // through it. Both work even while a dialog is open.
  const history = moves
    ? await cdp(target, "Page.getNavigationHistory") as unknown as History
    : await target.link.observe(target.native);
  const state = target.link.tab(target.native);
  await clearOpenDialog(target, state, force);
  const earlier = new Set<unknown>(state.console.items());
  const watch = new LoadWatch(state);
  let requested: string;
  let load: LoadState;
  let facts: PageFacts | null = null;
  // However the navigation ends, its load waiter goes: a tab has few of them (32), and a
  // leaked one would hold its place until the load timeout.
  try {
    if (moves) {
      requested = await goThroughHistory(target, state, {
        raw,
        force,
        history: history as History,
      }, watch);
    } else {
      requested = normalizeUrl(raw);
      await goToUrl(target, state, { requested, force }, watch);
    }
    if (watch.expected === undefined) watch.stop.abort();
    load = watch.expected === undefined && !moves ? "complete" : await waitForLoad(target, {
      done: () => watch.done(),
      committed: () => watch.committed,
      blocked: () => state.dialog !== null,
    }, watch.event);
    if (load === "complete") facts = await watch.landedFacts(LANDED_GRACE_MS);
    if (facts?.view) expectScale(target, facts.view);
  } finally {
    watch.stop.abort();
  }
  stayedBehindDialog(target, state, {
    moved: moves,
    sent: watch.expected,
    committed: watch.committed,
  });
  return await landingReport(context, target, state, {
    raw,
    requested,
    load,
    earlier,
    facts,
  });
};
