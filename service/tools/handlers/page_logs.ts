/**
 * `read_console_messages` and `read_network_requests`: the per-tab rings the service fills
 * from CDP events since it first touched the tab, filtered and rendered one line per entry.
 * Everything in them is page-sourced, so it goes out fenced.
 *
 * @module
 */

import type { ConsoleEntry, NetworkEntry, TabState } from "../../browser/mod.ts";
import { type Handler, success } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { fence, originOf } from "../core/fence.ts";
import { redactSecrets } from "../page/redact.ts";
import { displayUrl, redactUrl } from "../core/redact_url.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
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
function unheardNote(state: TabState): string {
  const { since, pauses, ms } = state.consoleUnheard;
  if (pauses === 0) return "";
  const now = since === null
    ? ""
    : ", and is not listened to now: loading another page or reloading this one listens again";
  const seconds = ((ms + (since === null ? 0 : Date.now() - since)) / 1000).toFixed(1);
  return ` (the page logged too fast: its console was not listened to ${pauses} ` +
    `time${pauses === 1 ? "" : "s"}, ${seconds} s in all${now}; what it logged then was not ` +
    "recorded)";
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
    (part.buffer === "console" ? unheardNote(state) : "") +
    (part.cleared ? "; buffer cleared" : "") + ".";
  if (part.lines.length === 0) {
    return `${head}${part.total === 0 ? emptyHint(state, part.buffer) : ""}`;
  }
  return `${head}\n${fence(workspace, await currentOrigin(target, since), part.lines.join("\n"))}`;
}

function consoleLine(entry: ConsoleEntry): string {
  const where = entry.url
    ? ` (${redactUrl(entry.url).split("/").pop()}${entry.line ? `:${entry.line}` : ""})`
    : "";
  const source = entry.source === "console" ? "" : ` ${entry.source}`;
  return clip(`[${entry.level}${source}] ${redactSecrets(entry.text)}${where}`);
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
  const all = state.console.items();
  // The pattern sees what the answer would show (redacted, cut), so match counts say nothing
  // about a redacted secret, and the regex runs on bounded text.
  const matching = all.filter((entry) =>
    (!args.onlyErrors || ERROR_LEVELS.has(entry.level)) &&
    (!pattern || pattern.test(redactSecrets(entry.text.slice(0, MATCHED_CHARS))) ||
      pattern.test(entry.url ? displayUrl(entry.url) : ""))
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
    lines: shown.map(consoleLine),
    evicted,
    cleared: args.clear === true,
    buffer: "console",
  });
  return success(text, {
    tabId: target.tabId,
    total: matching.length,
    messages: shown.map((entry) => ({
      level: entry.level,
      source: entry.source,
      text: redactSecrets(entry.text),
      ...(entry.url ? { url: displayUrl(entry.url) } : {}),
      ...(entry.line ? { line: entry.line } : {}),
      at: new Date(entry.at).toISOString(),
    })),
    provenance: { pageSourced: true, untrusted: true, sessionNonce: context.workspace.fenceNonce },
  });
};

function networkLine(entry: NetworkEntry): string {
  const status = entry.failed ? `failed (${entry.failed})` : entry.status ?? "pending";
  const extras = [
    entry.type?.toLowerCase(),
    entry.durationMs !== undefined ? `${entry.durationMs}ms` : undefined,
    entry.bytes !== undefined ? `${entry.bytes}B` : undefined,
  ].filter((part) => part !== undefined).join(" ");
  return clip(`${entry.method} ${status} ${redactUrl(entry.url)}${extras ? ` [${extras}]` : ""}`);
}

/** `read_network_requests`. */
export const readNetworkRequests: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const example = `{"tabId": ${target.tabId}, "urlPattern": "/api/", "limit": 20}`;
  const limit = limitOf(args, example);
  const needle = typeof args.urlPattern === "string" ? args.urlPattern : "";
  const looked = await observed(target);
  const state = looked.state;
  const all = state.network.items();
  // Matched against the URL as shown: a redacted value cannot be probed for.
  const matching = needle === ""
    ? [...all]
    : all.filter((entry) => displayUrl(entry.url).includes(needle));
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
    lines: shown.map(networkLine),
    evicted,
    cleared: args.clear === true,
    buffer: "network",
  });
  return success(text, {
    tabId: target.tabId,
    total: matching.length,
    requests: shown.map((entry) => ({
      method: entry.method,
      url: displayUrl(entry.url),
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
