/**
 * `read_page`: the page as a compact accessibility outline with refs, cut to `max_chars` with
 * advice on narrowing, or (`diff`) only what changed since the last read of the tab.
 *
 * @module
 */

import { type Handler, success } from "./context.ts";
import { fence, originOf } from "./fence.ts";
import { collect } from "./page/collect.ts";
import {
  biggestSections,
  diffOutlines,
  displayLines,
  lineOf,
  remember,
  type Remembered,
  render,
} from "./page/outline.ts";
import { provenance } from "./page/provenance.ts";
import { redactSecrets } from "./page/redact.ts";
import { tabPages } from "./refs.ts";
import { ToolError } from "./errors.ts";
import { ownedTab } from "./target.ts";

/** Default size of a read; about 6k tokens. */
export const DEFAULT_MAX_CHARS = 24_000;
const MIN_MAX_CHARS = 1000;

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
  const maxChars = Math.max(
    MIN_MAX_CHARS,
    Math.floor((args.max_chars as number | undefined) ?? DEFAULT_MAX_CHARS),
  );
  const root = args.ref_id as string | undefined;
  const outline = await collect(target, pages, { filter, depth, root });
  const flat = filter === "interactive";
  const scope = JSON.stringify({ filter, depth, root });
  const now = remember(scope, outline.url, outline.nodes);
  const before = pages.reads.get(scope);
  pages.reads.delete(scope);
  pages.reads.set(scope, now);
  while (pages.reads.size > MAX_SCOPES) pages.reads.delete(pages.reads.keys().next().value!);
  const origin = originOf(outline.url);
  const where = `tab ${target.tabId} (${outline.url})`;
  const titled = (body: string) => `title ${JSON.stringify(outline.title)}\n${body}`;
  const elements = outline.nodes.filter((node) => node.ref).length;
  const structured = {
    tabId: target.tabId,
    url: outline.url,
    title: outline.title,
    lines: outline.nodes.length,
    elements,
    provenance: provenance(context.workspace, outline.url),
  };

  let whole = "";
  if (args.diff === true) {
    const verdict = compare(before, now);
    if ("why" in verdict) {
      whole = verdict.why;
    } else {
      const { added, removed, changed } = verdict;
      const counts = { changed: changed.length, added: added.length, removed: removed.length };
      const all = [...changed, ...added, ...removed];
      if (all.length === 0) {
        return success(`No changes in ${where} since your last read_page.`, {
          ...structured,
          ...counts,
        });
      }
      let body = "";
      let shown = 0;
      for (const line of all) {
        if (body.length + line.length + 1 > maxChars - 600) break;
        body += (shown ? "\n" : "") + line;
        shown++;
      }
      const cut = shown < all.length
        ? `\n[${all.length - shown} more changes not shown; read_page without diff for the whole ` +
          "outline.]"
        : "";
      return success(
        `Changes in ${where} since your last read_page: ${counts.changed} changed, ` +
          `${counts.added} added, ${counts.removed} removed.\n` +
          fence(context.workspace, origin, redactSecrets(titled(body))) + cut,
        { ...structured, ...counts },
      );
    }
  }

  const lines = displayLines(outline.nodes, flat);
  const header = `${flat ? "Interactive elements" : "Outline"} of ${where}` +
    (root ? `, under ${root}` : "") + ":";
  const compose = (budget: number) => {
    const { text, shown, total } = render(lines, budget);
    const notes: string[] = [];
    if (whole) notes.push(whole);
    if (shown < total) {
      const sections = biggestSections(outline.nodes)
        .map((node) =>
          `ref_id "${node.ref}" (${lineOf({ ...node, ref: undefined }).slice(0, 50)})`
        );
      notes.push(
        `Showing ${shown} of ${total} lines (max_chars ${maxChars}). To see the rest, narrow the read: ` +
          (sections.length ? `${sections.join(", ")}; ` : "") +
          (flat ? "" : 'filter: "interactive" for controls only; ') +
          "depth: 2 for the top levels; or find with a description of what you need.",
      );
    }
    if (outline.omitted > 0) {
      notes.push(`${outline.omitted} more nodes were not read (page too large).`);
    }
    if (outline.cutByDepth > 0) {
      notes.push(
        `${outline.cutByDepth} deeper parts hidden by depth ${depth}; use ref_id to open one.`,
      );
    }
    if (outline.unreadFrames.length) {
      notes.push(`Frames not read: ${outline.unreadFrames.slice(0, 5).join("; ")}.`);
    }
    const body = text === "" ? "(nothing matched)" : redactSecrets(text);
    const full = `${header}\n${fence(context.workspace, origin, titled(body))}` +
      (notes.length ? `\n${notes.join("\n")}` : "");
    return { full, shown, total };
  };
  // The whole answer, fence and advice included, stays within max_chars.
  let budget = maxChars - 600;
  let answer = compose(budget);
  for (let tries = 0; answer.full.length > maxChars && tries < 4; tries++) {
    budget -= answer.full.length - maxChars + 50;
    answer = compose(Math.max(0, budget));
  }
  return success(answer.full, {
    ...structured,
    shown: answer.shown,
    truncated: answer.shown < answer.total,
  });
};
