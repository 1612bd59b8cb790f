/**
 * `read_console_messages` and `read_network_requests`: the per-tab rings the service fills
 * from CDP events since it first touched the tab, filtered and rendered one line per entry.
 * Everything in them is page-sourced, so it goes out fenced.
 *
 * @module
 */

import type { ConsoleEntry, NetworkEntry, TabState } from "../../browser/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { displayUrl, fence, originOf, redactSecrets, redactUrl } from "../core/safe_text.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { inMainFrame, runtimeCall, tabPages } from "../page/frames.ts";
import { READ } from "../page/collect.ts";
import {
  keepDigests,
  MODULI,
  randomBase,
  redactByDigests,
  redactUrlByDigests,
  type SecretDigest,
} from "../page/secret_digest.ts";
import type { Workspace } from "../../workspace/mod.ts";

/** Entries returned when `limit` is absent. */
const DEFAULT_LIMIT = 100;
/** Longest line returned per entry. */
const LINE_MAX = 300;
const ERROR_LEVELS = new Set(["error", "assert"]);
/** Characters of an entry's text a pattern is tried on (a little more than a line shows). */
const MATCHED_CHARS = 1_000;
/** Longest pattern accepted: the model's regex runs on the service's only thread. */
const MAX_PATTERN_CHARS = 200;
/** A quantified group that itself holds a quantifier, as in `(a+)+`: catastrophic backtracking. */
const NESTED_QUANTIFIER = /\([^()]*[+*}][^()]*\)\s*[+*{]/;

function clip(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > LINE_MAX ? `${flat.slice(0, LINE_MAX)}…` : flat;
}

function limitOf(args: Record<string, unknown>, example: string): number {
  const raw = args.limit as number | undefined;
  if (raw === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(raw) || raw < 1) {
    throw new ToolError(
      "tool_failure",
      `limit must be a positive number, not ${raw}.`,
      `Call ${example}.`,
    );
  }
  return Math.floor(raw);
}

/**
 * Starts observation if this is the first touch (a no-op CDP command) and returns the state,
 * with the browser's location serial before that command.
 */
async function observed(target: TabTarget): Promise<{ state: TabState; since: number }> {
  const since = target.link.locationSerial;
  await target.link.call("cdp", {
    tab_id: target.native,
    method: "Page.getNavigationHistory",
    params: {},
  }).catch(() => {});
  return { state: target.link.tab(target.native), since };
}

/**
 * The origin of the page in the tab now: as the extension said it after this call's command,
 * when it did (decision 0190), else as the browser says.
 */
async function currentOrigin(target: TabTarget, since: number): Promise<string> {
  const info = await target.link.tabSince(target.native, since).catch(() => null);
  return originOf(info?.url ?? "");
}

/** When each tab's console and network buffers were last cleared (ms since the epoch). */
const clearedAt = new WeakMap<TabState, { console?: number; network?: number }>();

function noteCleared(state: TabState, buffer: "console" | "network"): void {
  const times = clearedAt.get(state) ?? {};
  times[buffer] = Date.now();
  clearedAt.set(state, times);
}

function emptyHint(state: TabState, buffer: "console" | "network"): string {
  const cleared = clearedAt.get(state)?.[buffer];
  if (cleared !== undefined) {
    return ` The buffer was cleared at ${new Date(cleared).toISOString()}; nothing was recorded ` +
      "since.";
  }
  return Date.now() - state.since < 2_000
    ? " Ghostlight started listening to this tab just now; act on or reload the page, then read again."
    : "";
}

/**
 * What the answer says of the times the console was not listened to because the page logged too
 * fast (decision 0291): what the page logged then was never recorded, and nobody knows how much.
 */
function unheardNote(state: TabState, buffer: "console" | "network"): string {
  const { since, pauses, ms } = buffer === "console" ? state.consoleUnheard : state.networkUnheard;
  if (pauses === 0) return "";
  const now = since === null
    ? ""
    : ", and is not listened to now: loading another page or reloading this one listens again";
  const seconds = ((ms + (since === null ? 0 : Date.now() - since)) / 1000).toFixed(1);
  const [did, what, done] = buffer === "console"
    ? ["logged", "its console", "what it logged"]
    : ["sent requests", "its network", "the requests it sent"];
  return ` (the page ${did} too fast: ${what} was not listened to ${pauses} ` +
    `time${pauses === 1 ? "" : "s"}, ${seconds} s in all${now}; ${done} then ` +
    `${buffer === "console" ? "was" : "were"} not recorded)`;
}

/** The answer's text: a count line, then the entries inside the untrusted fence. */
async function listing(
  workspace: Workspace,
  target: TabTarget,
  { state, since }: { state: TabState; since: number },
  part: {
    noun: string;
    filter: string;
    total: number;
    matching: number;
    lines: string[];
    evicted: number;
    cleared: boolean;
    buffer: "console" | "network";
  },
): Promise<string> {
  const head = `${part.matching} ${part.noun}${part.matching === 1 ? "" : "s"}${part.filter} ` +
    `in tab ${target.tabId}` +
    (part.lines.length < part.matching ? `, showing the newest ${part.lines.length}` : "") +
    (part.evicted > 0 ? ` (${part.evicted} older ones were dropped)` : "") +
    (state.droppedEvents > 0
      ? ` (the page sent events too fast: ${state.droppedEvents} were not recorded)`
      : "") +
    unheardNote(state, part.buffer) +
    (part.cleared ? "; buffer cleared" : "") + ".";
  if (part.lines.length === 0) {
    return `${head}${part.total === 0 ? emptyHint(state, part.buffer) : ""}`;
  }
  return `${head}\n${fence(workspace, await currentOrigin(target, since), part.lines.join("\n"))}`;
}

/** Most digests kept per tab (2 per value), newest kept: each costs every redaction a look. */
const MAX_KEPT_DIGESTS = 512;

/**
 * What a tab's secret fields have held, as digests (decision 0282): under one base the service
 * keeps for the tab, so digests from each read add up, across the page's own navigations too,
 * and the values never leave the page.
 */
interface KeptSecrets {
  base: number;
  digests: SecretDigest[];
  /** When the page last told its secrets; null before it ever did. */
  lookedAt: number | null;
}

const keptSecrets = new WeakMap<TabState, KeptSecrets>();

/** How this answer hides the page's secret field values in text and URLs. */
interface Hider {
  text(entry: { text: string; at: number }): string;
  url(entry: { url: string; at: number }): string;
}

/** Said instead of an entry the page's secret fields could not be checked against. */
const UNCHECKED = "[withheld: logged after the page last said which values are secret]";

/**
 * Asks the page for the digests of its secret field values (those it holds and those it held)
 * and adds them to what the tab keeps. Entries are redacted with all of them; when the page
 * cannot be asked now (a dialog holds it), entries since it last could are withheld: a value
 * typed since then is unknown (fail closed).
 */
async function pageSecrets(workspace: Workspace, target: TabTarget, state: TabState) {
  const kept = keptSecrets.get(state) ?? { base: randomBase(), digests: [], lookedAt: null };
  keptSecrets.set(state, kept);
  const asked = Date.now();
  let fresh = false;
  // A dialog freezes the page: asking it would only wait for the read's timeout.
  if (!state.dialog) {
    try {
      const now = await inMainFrame(
        target,
        tabPages(workspace, target.tabId),
        runtimeCall("secretDigests", kept.base, MODULI),
        { synchronous: true },
      );
      keepDigests(kept.digests, now, MAX_KEPT_DIGESTS);
      kept.lookedAt = asked;
      fresh = true;
    } catch {
      // The page cannot be asked: what it said before still hides what it held then.
    }
  }
  const checked = (at: number) => fresh || (kept.lookedAt !== null && at <= kept.lookedAt);
  const hider: Hider = {
    text: (entry) =>
      checked(entry.at)
        ? redactSecrets(redactByDigests(entry.text, kept.digests, kept.base))
        : UNCHECKED,
    url: (entry) =>
      checked(entry.at)
        ? redactUrlByDigests(displayUrl(entry.url), kept.digests, kept.base)
        : UNCHECKED,
  };
  return hider;
}

function consoleLine(entry: ConsoleEntry, hide: Hider): string {
  const where = entry.url
    ? ` (${hide.url({ url: redactUrl(entry.url), at: entry.at }).split("/").pop()}${
      entry.line ? `:${entry.line}` : ""
    })`
    : "";
  const source = entry.source === "console" ? "" : ` ${entry.source}`;
  return clip(`[${entry.level}${source}] ${hide.text(entry)}${where}`);
}

/** `read_console_messages`. */
export const readConsoleMessages: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const example = `{"tabId": ${target.tabId}, "pattern": "error|warn", "limit": 20}`;
  let pattern: RegExp | null = null;
  if (typeof args.pattern === "string" && args.pattern !== "") {
    if (args.pattern.length > MAX_PATTERN_CHARS || NESTED_QUANTIFIER.test(args.pattern)) {
      throw new ToolError(
        "tool_failure",
        `pattern must be at most ${MAX_PATTERN_CHARS} characters, without a quantified group ` +
          "that holds a quantifier (like (a+)+).",
        `Use a plain alternation, e.g. ${example}.`,
      );
    }
    try {
      pattern = new RegExp(args.pattern, "i");
    } catch (error) {
      throw new ToolError(
        "tool_failure",
        `pattern is not a valid regular expression: ${(error as Error).message}.`,
        `Escape special characters, e.g. ${example}.`,
      );
    }
  }
  const limit = limitOf(args, example);
  const looked = await observed(target);
  const state = looked.state;
  const hide = await pageSecrets(context.workspace, target, state);
  // A message of a frame the call may not read is not shown, matched or counted (decision 0301).
  const frameWhy = withheldMessages(context);
  const withheld = new Map<string, number>();
  const all = state.console.items().filter((entry) => {
    const why = frameWhy(entry);
    if (why !== null) withheld.set(why, (withheld.get(why) ?? 0) + 1);
    return why === null;
  });
  // The pattern sees what the answer would show (redacted, cut), so match counts say nothing
  // about a redacted secret, and the regex runs on bounded text.
  const matching = all.filter((entry) =>
    (!args.onlyErrors || ERROR_LEVELS.has(entry.level)) &&
    (!pattern ||
      pattern.test(hide.text({ text: entry.text.slice(0, MATCHED_CHARS), at: entry.at })) ||
      pattern.test(entry.url ? hide.url({ url: entry.url, at: entry.at }) : ""))
  );
  const shown = matching.slice(-limit);
  const evicted = state.console.evicted;
  if (args.clear === true) {
    state.console.clear();
    noteCleared(state, "console");
  }
  const text = await listing(context.workspace, target, looked, {
    noun: "console message",
    filter: pattern || args.onlyErrors ? ` matching, of ${all.length},` : "",
    total: all.length,
    matching: matching.length,
    lines: shown.map((entry) => consoleLine(entry, hide)),
    evicted,
    cleared: args.clear === true,
    buffer: "console",
  });
  const note = withheldConsoleNote(withheld);
  return success(note === null ? text : `${text}\n${note}`, {
    tabId: target.tabId,
    total: matching.length,
    ...(withheld.size > 0
      ? { withheldMessages: [...withheld.values()].reduce((a, b) => a + b) }
      : {}),
    messages: shown.map((entry) => ({
      level: entry.level,
      source: entry.source,
      text: hide.text(entry),
      ...(entry.url ? { url: hide.url({ url: entry.url, at: entry.at }) } : {}),
      ...(entry.line ? { line: entry.line } : {}),
      at: new Date(entry.at).toISOString(),
    })),
    provenance: { pageSourced: true, untrusted: true, sessionNonce: context.workspace.fenceNonce },
  });
};

/** Why a message whose document is not known is withheld. */
const UNKNOWN_DOCUMENT = "a document the tab did not name";

/**
 * Why each console message is withheld, or null when it is shown: a script's message is decided
 * on the origin of the document it ran in, a browser's message (a failed load) on its address,
 * each asked once. A script's message whose document the tab did not name is withheld (fail
 * closed).
 */
function withheldMessages(context: ToolContext): (entry: ConsoleEntry) => string | null {
  const known = new Map<string, string | null>();
  return (entry) => {
    const script = entry.source === "console" || entry.source === "exception";
    const where = script ? entry.origin : entry.url;
    if (where === undefined) return null;
    if (where === null || where === "") return UNKNOWN_DOCUMENT;
    let why = known.get(where);
    if (why === undefined) {
      why = context.policy.refusal(where, READ)?.why ?? null;
      known.set(where, why);
    }
    return why;
  };
}

/** The note, outside the fence, on console messages withheld by where they came from. */
function withheldConsoleNote(withheld: Map<string, number>): string | null {
  if (withheld.size === 0) return null;
  const count = [...withheld.values()].reduce((a, b) => a + b);
  const whys = [...withheld.keys()].slice(0, 3).join("; ");
  return `${count} console message${count === 1 ? " was" : "s were"} withheld, neither shown ` +
    `nor matched: ${count === 1 ? "it comes" : "they come"} from a frame showing ${whys}.`;
}

function networkLine(entry: NetworkEntry, hide: Hider, withheld: boolean): string {
  const status = entry.failed ? `failed (${entry.failed})` : entry.status ?? "pending";
  const extras = [
    entry.type?.toLowerCase(),
    entry.durationMs !== undefined ? `${entry.durationMs}ms` : undefined,
    entry.bytes !== undefined ? `${entry.bytes}B` : undefined,
  ].filter((part) => part !== undefined).join(" ");
  const url = withheld ? WITHHELD_URL : hide.url(entry);
  return clip(`${entry.method} ${status} ${url}${extras ? ` [${extras}]` : ""}`);
}

/** What stands for the address of a request to a site the policy refuses to read (0270). */
const WITHHELD_URL = "(withheld: a site this call may not read)";

/**
 * Whether each request's address is withheld: its site is one the policy refuses to read (a
 * sacred frame's own requests), asked once per address.
 */
function withheldUrls(context: ToolContext): (entry: NetworkEntry) => boolean {
  const known = new Map<string, boolean>();
  return (entry) => {
    let withheld = known.get(entry.url);
    if (withheld === undefined) {
      withheld = context.policy.refusal(entry.url, ["read"]) !== null;
      known.set(entry.url, withheld);
    }
    return withheld;
  };
}

/** `read_network_requests`. */
export const readNetworkRequests: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const example = `{"tabId": ${target.tabId}, "urlPattern": "/api/", "limit": 20}`;
  const limit = limitOf(args, example);
  const needle = typeof args.urlPattern === "string" ? args.urlPattern : "";
  const looked = await observed(target);
  const state = looked.state;
  const hide = await pageSecrets(context.workspace, target, state);
  const all = state.network.items();
  const withheld = withheldUrls(context);
  // Matched against the URL as shown: a redacted or withheld value cannot be probed for.
  const matching = needle === ""
    ? [...all]
    : all.filter((entry) => !withheld(entry) && hide.url(entry).includes(needle));
  const shown = matching.slice(-limit);
  const evicted = state.network.evicted;
  if (args.clear === true) {
    state.clearNetwork();
    noteCleared(state, "network");
  }
  const text = await listing(context.workspace, target, looked, {
    noun: "request",
    filter: needle ? ` with "${needle}" in the URL, of ${all.length},` : "",
    total: all.length,
    matching: matching.length,
    lines: shown.map((entry) => networkLine(entry, hide, withheld(entry))),
    evicted,
    cleared: args.clear === true,
    buffer: "network",
  });
  return success(text, {
    tabId: target.tabId,
    total: matching.length,
    requests: shown.map((entry) => ({
      method: entry.method,
      url: withheld(entry) ? WITHHELD_URL : hide.url(entry),
      ...(entry.type ? { type: entry.type } : {}),
      ...(entry.status !== undefined ? { status: entry.status } : {}),
      ...(entry.failed ? { failed: entry.failed } : {}),
      ...(entry.mimeType ? { mimeType: entry.mimeType } : {}),
      ...(entry.durationMs !== undefined ? { durationMs: entry.durationMs } : {}),
      at: new Date(entry.at).toISOString(),
    })),
    provenance: { pageSourced: true, untrusted: true, sessionNonce: context.workspace.fenceNonce },
  });
};
