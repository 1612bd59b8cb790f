/**
 * `read_page`: the page as a compact accessibility outline with refs, cut to `max_chars` with
 * advice on narrowing, or (`diff`) only what changed since the last read of the tab.
 *
 * @module
 */

import { charBudget } from "../core/budget.ts";
import type { Outcome } from "../../../shared/bridge.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { type Handler, success } from "../core/context.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import {
  collect,
  type Collected,
  frameGuard,
  READ,
  unreadNote,
  withheldNote,
} from "../page/collect.ts";
import {
  biggestSections,
  diffOutlines,
  displayLines,
  remember,
  type Remembered,
  render,
} from "../page/outline.ts";
import { provenance } from "../page/provenance.ts";
import { type TabPages, tabPages } from "../page/frames.ts";
import { ToolError } from "../core/errors.ts";
import { ownedTab } from "../core/target.ts";

/** Default size of a read; about 6k tokens. */
export const DEFAULT_MAX_CHARS = 24_000;
const MIN_MAX_CHARS = 1000;
/** Room kept for the header, the fence and the advice when cutting the outline to max_chars. */
const RESERVED_CHARS = 600;

/** Earlier reads kept per tab for diff, one per scope (filter, depth, ref_id). */
const MAX_SCOPES = 4;

/** A diff against the earlier read, or why the whole outline is more useful. */
function compare(
  before: Remembered | undefined,
  now: Remembered,
): ReturnType<typeof diffOutlines> | { why: string } {
  if (!before) {
    return {
      why: "No earlier read of this tab with the same filter, depth and ref_id, so this is the " +
        "whole outline; diff: true next time shows only changes.",
    };
  }
  if (before.partial) {
    return {
      why: "Your last read of this tab with the same filter, depth and ref_id was cut at " +
        "max_chars (only its first lines were kept), so this is the whole outline; diff: true " +
        "next time shows only changes.",
    };
  }
  if (before.url !== now.url) {
    return { why: "The page navigated since your last read, so this is the whole outline." };
  }
  const diff = diffOutlines(before, now);
  const count = diff.added.length + diff.removed.length + diff.changed.length;
  if (count > Math.max(30, now.lines.length / 2)) {
    return {
      why: "Most of the page changed since your last read (a reload or a new view), so this " +
        "is the whole outline.",
    };
  }
  return diff;
}

/** Keeps `now` as the tab's latest read of its scope; returns the one it replaces. */
function keepRead(pages: TabPages, now: Remembered): Remembered | undefined {
  const before = pages.reads.get(now.scope);
  pages.reads.delete(now.scope);
  pages.reads.set(now.scope, now);
  while (pages.reads.size > MAX_SCOPES) pages.reads.delete(pages.reads.keys().next().value!);
  return before;
}

/** What every answer about one read says about its page. */
interface Page {
  where: string;
  origin: string;
  title: string;
  structured: Record<string, unknown>;
}

/** Page-sourced text inside the workspace's fence, title first, secrets redacted. */
function fenced(workspace: Workspace, page: Page, body: string): string {
  return fence(
    workspace,
    page.origin,
    redactSecrets(`title ${JSON.stringify(page.title)}\n${body}`),
  );
}

function diffAnswer(
  workspace: Workspace,
  page: Page,
  diff: ReturnType<typeof diffOutlines>,
  maxChars: number,
): Outcome {
  const counts = {
    changed: diff.changed.length,
    added: diff.added.length,
    removed: diff.removed.length,
  };
  const all = [...diff.changed, ...diff.added, ...diff.removed];
  if (all.length === 0) {
    return success(`No changes in ${page.where} since your last read_page.`, {
      ...page.structured,
      ...counts,
    });
  }
  const { text, shown } = render(all, maxChars - RESERVED_CHARS);
  const cut = shown < all.length
    ? `\n[${all.length - shown} more changes not shown; read_page without diff for the whole ` +
      "outline.]"
    : "";
  return success(
    `Changes in ${page.where} since your last read_page: ${counts.changed} changed, ` +
      `${counts.added} added, ${counts.removed} removed.\n` + fenced(workspace, page, text) + cut,
    { ...page.structured, ...counts },
  );
}

/** What an empty outline means. */
function emptyNote(outline: Collected, flat: boolean): string {
  if (outline.nodes.length > 0) return "(no line fits in max_chars)";
  return flat
    ? "(no interactive elements; read_page without filter shows the rest, or wait if the page " +
      "is still loading)"
    : "(nothing to outline: the page has no text or named control, or it is still loading, or " +
      "it shows only graphics (an SVG, a canvas); a screenshot shows what is drawn, and a " +
      "coordinate click reaches it)";
}

function outlineAnswer(
  workspace: Workspace,
  page: Page,
  outline: Collected,
  options: {
    flat: boolean;
    maxChars: number;
    depth?: number;
    root?: string;
    note?: string;
    /** Said when the max_chars asked for was out of range. */
    adjusted?: string;
  },
): Outcome {
  const lines = displayLines(outline.nodes, options.flat);
  const header = `${options.flat ? "Interactive elements" : "Outline"} of ${page.where}` +
    (options.root ? `, under ${options.root}` : "") + ":";
  // Role only: names are page text and stay inside the fence.
  const sections = (outline.rest?.sections ?? biggestSections(outline.nodes))
    .map((node) => `ref_id "${node.ref}" (${node.role})`);
  const compose = (budget: number) => {
    const { text, shown, total: sent } = render(lines, budget);
    const total = sent + (outline.rest?.lines ?? 0);
    // A walk stopped once its cut was certain counted only what it walked (decision 0680).
    const atLeast = outline.rest?.walkedToEnd === false ? "at least " : "";
    const notes: string[] = options.note ? [options.note] : [];
    if (options.adjusted) notes.push(options.adjusted);
    // Suggest only a narrowing that was not already passed.
    const shallower = options.depth === undefined ? 2 : options.depth - 1;
    if (shown < total) {
      notes.push(
        `Showing ${shown} of ${atLeast}${total} lines (max_chars ${options.maxChars}` +
          (atLeast ? "; the page past them was not walked" : "") + "). To see the rest, " +
          "narrow the read: " + (sections.length ? `${sections.join(", ")}; ` : "") +
          (options.flat ? "" : 'filter: "interactive" for controls only; ') +
          (shallower >= 1 ? `depth: ${shallower} for fewer levels; ` : "") +
          "or find with a description of what you need.",
      );
    }
    if (outline.omitted > 0) {
      notes.push(`${outline.omitted} more nodes were not read (page too large).`);
    }
    if (outline.cutByDepth > 0) {
      notes.push(
        `${atLeast ? "At least " : ""}${outline.cutByDepth} deeper parts hidden by depth ` +
          `${options.depth}; use ref_id to open one.`,
      );
    }
    const unread = unreadNote(outline.unreadFrames);
    if (unread) notes.push(unread);
    const withheld = withheldNote(outline.withheldFrames);
    if (withheld) notes.push(withheld);
    const full =
      `${header}\n${
        fenced(workspace, page, text === "" ? emptyNote(outline, options.flat) : text)
      }` +
      (notes.length ? `\n${notes.join("\n")}` : "");
    return { full, shown, total };
  };
  // The whole answer, fence and advice included, stays within max_chars.
  let budget = options.maxChars - RESERVED_CHARS;
  let answer = compose(budget);
  for (let tries = 0; answer.full.length > options.maxChars && tries < 4; tries++) {
    budget -= answer.full.length - options.maxChars + 50;
    answer = compose(Math.max(0, budget));
  }
  return success(answer.full, {
    ...page.structured,
    shown: answer.shown,
    truncated: answer.shown < answer.total,
  });
}

/** `read_page`. */
export const readPage: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const pages = tabPages(context.workspace, target.tabId);
  const filter = (args.filter as "interactive" | "all" | undefined) ?? "all";
  const depth = args.depth as number | undefined;
  if (depth !== undefined && (!Number.isInteger(depth) || depth < 0)) {
    throw new ToolError(
      "tool_failure",
      `"depth" must be a whole number of levels, 0 or more, not ${depth}.`,
      `A correct call looks like: {"tabId": ${target.tabId}, "depth": 3}`,
    );
  }
  const { maxChars, adjusted } = charBudget(args.max_chars as number | undefined, {
    name: "read_page",
    tabId: target.tabId,
    least: MIN_MAX_CHARS,
    fallback: DEFAULT_MAX_CHARS,
  });
  const root = args.ref_id as string | undefined;
  const guard = frameGuard(context, READ);
  // A diff compares every line; any other read needs only the lines max_chars shows (0441).
  const cut = args.diff === true ? undefined : { maxChars, flat: filter === "interactive" };
  const outline = await collect(target, pages, { filter, depth, root, guard, cut });
  const now = remember(JSON.stringify({ filter, depth, root }), outline.url, outline.nodes);
  if (outline.rest) now.partial = true;
  const before = keepRead(pages, now);
  const page: Page = {
    where: `tab ${target.tabId} (${fencedUrl(context.workspace, outline.url)})`,
    origin: originOf(outline.url),
    title: outline.title,
    structured: {
      tabId: target.tabId,
      url: displayUrl(outline.url),
      title: outline.title,
      lines: outline.nodes.length + (outline.rest?.nodes ?? 0),
      elements: outline.nodes.filter((node) => node.ref).length + (outline.rest?.elements ?? 0),
      // Lines and elements count only the part walked: the page holds more (decision 0680).
      ...(outline.rest?.walkedToEnd === false ? { countedToEnd: false } : {}),
      provenance: provenance(context.workspace, outline.url),
      ...(outline.withheldFrames.length ? { withheldFrames: outline.withheldFrames } : {}),
    },
  };
  const options = { flat: filter === "interactive", maxChars, depth, root, adjusted };
  if (args.diff !== true) return outlineAnswer(context.workspace, page, outline, options);
  const verdict = compare(before, now);
  if ("why" in verdict) {
    return outlineAnswer(context.workspace, page, outline, { ...options, note: verdict.why });
  }
  return diffAnswer(context.workspace, page, verdict, maxChars);
};
