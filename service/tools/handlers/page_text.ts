/**
 * `get_page_text`: the page's readable text, the article or main content first when the page
 * has one, read in Ghostlight's isolated world (so neither the page's scripts nor its
 * Content-Security-Policy can interfere), cut to `max_chars`, secrets redacted, and fenced as
 * untrusted page content.
 *
 * @module
 */

import { charBudget } from "../core/budget.ts";
import { type Handler, success } from "../core/context.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import {
  type Frame,
  type FrameGuard,
  FrameHeld,
  FrameWithheld,
  inFrame,
  MAX_FRAMES,
  MAX_NESTING,
  readVouched,
  runtimeCall,
  type TabPages,
  tabPages,
} from "../page/frames.ts";
import { provenance } from "../page/provenance.ts";
import { ToolError } from "../core/errors.ts";
import { childFrame, frameGuard, READ, UNREAD } from "../page/collect.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";

/** Default cap on the text returned; about 10k tokens. */
export const DEFAULT_MAX_CHARS = 40_000;
const MIN_MAX_CHARS = 100;
/** Text read beyond max_chars, so redaction sees a secret that straddles the cut whole. */
const READ_MARGIN = 2_000;

/** Where the page's text has a cross-origin iframe: `\u0000<element id>\u0000`. */
// deno-lint-ignore no-control-regex -- NUL is the mark because no page text keeps one.
const FRAME_MARK = /\u0000(\d+)\u0000/;

/** Where the text of a frame the policy refuses would have been (inside the fence). */
const WITHHELD_MARK = "[a frame withheld by Ghostlight]";

/** One read of the frames of a page's text. */
interface FramesRead {
  target: TabTarget;
  pages: TabPages;
  guard: FrameGuard;
  limit: number;
  /** Why each frame the policy refused was withheld, in order. */
  withheld: string[];
  /** Why each frame left out for another reason was not read, in order (Ghostlight's words). */
  unread: string[];
  /** Frames this read tried to enter so far (the bound is the read's, as `collect`'s). */
  tried: number;
}

/** The text with each cross-origin iframe's own text put in at its mark. */
async function withFrames(
  run: FramesRead,
  frame: Frame,
  text: string,
  nesting: number,
): Promise<string> {
  const { target, pages, limit } = run;
  const parts = text.split(FRAME_MARK);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    let inner = "";
    if (nesting >= MAX_NESTING) run.unread.push(UNREAD.deep);
    else if (run.tried >= MAX_FRAMES) run.unread.push(UNREAD.many);
    else {
      run.tried++;
      try {
        const child = await childFrame(target, pages, frame, Number(parts[i]), run.guard, {
          read: true,
        });
        const read = await inFrame(
          target,
          pages,
          child,
          runtimeCall("readable", true, limit),
          { read: true },
        );
        inner = await withFrames(run, child, read.text, nesting + 1);
      } catch (error) {
        if (error instanceof ToolError) throw error;
        if (error instanceof FrameWithheld) {
          run.withheld.push(error.refusal.why);
          inner = `\n${WITHHELD_MARK}\n`;
        } else run.unread.push(error instanceof FrameHeld ? UNREAD.held : UNREAD.failed);
      }
    }
    out += inner + parts[i + 1];
  }
  return out.replace(/\n{3,}/g, "\n\n").trim();
}

/** The note on withheld frames, outside the fence. */
function withheldFramesNote(withheld: string[]): string | null {
  if (withheld.length === 0) return null;
  const kinds = [...new Set(withheld)];
  return `[${withheld.length === 1 ? "1 frame was" : `${withheld.length} frames were`} ` +
    `withheld (shown as "${WITHHELD_MARK}"): ${kinds.slice(0, 3).join("; ")}. Nothing of ` +
    `${withheld.length === 1 ? "it" : "them"} is included.]`;
}

/**
 * The note on frames not read for a reason other than the policy, outside the fence: a frame
 * left out without a word would read as a page without it.
 */
function unreadFramesNote(unread: string[]): string | null {
  if (unread.length === 0) return null;
  const kinds = [...new Set(unread)];
  return `[${unread.length === 1 ? "1 frame was" : `${unread.length} frames were`} not read ` +
    `(${kinds.slice(0, 3).join("; ")}): the text leaves ${
      unread.length === 1 ? "it" : "them"
    } out.]`;
}

/** `get_page_text`. */
export const getPageText: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const budget = charBudget(args.max_chars as number | undefined, {
    name: "get_page_text",
    tabId: target.tabId,
    least: MIN_MAX_CHARS,
    fallback: DEFAULT_MAX_CHARS,
  });
  const maxChars = budget.maxChars;
  const adjusted = budget.adjusted ? `[${budget.adjusted}]` : "";
  // Only what can be shown is read and redacted: page text is unbounded and hostile.
  const limit = maxChars + READ_MARGIN;
  const read = runtimeCall("readable", false, limit);
  const pages = tabPages(context.workspace, target.tabId);
  // `readable` answers at once (no promise) and is vouched for: one evaluation.
  const { frame, value } = await readVouched(target, pages, read);
  const page = value!;
  const cutInPage = page.length - page.text.length;
  const frames: FramesRead = {
    target,
    pages,
    guard: frameGuard(context, READ),
    limit,
    withheld: [],
    unread: [],
    tried: 0,
  };
  const merged = await withFrames(frames, frame, page.text, 0);
  const withheld = withheldFramesNote(frames.withheld);
  const unread = unreadFramesNote(frames.unread);
  // Characters of the whole text, as far as it is known (frames are counted up to the cut).
  const total = merged.length + cutInPage;
  const text = redactSecrets(merged.slice(0, limit));
  const cutBefore = total > limit;
  const origin = originOf(page.url);
  const compose = (shown: number) => {
    const notes: string[] = adjusted ? [adjusted] : [];
    if (withheld) notes.push(withheld);
    if (unread) notes.push(unread);
    if (shown < text.length || cutBefore) {
      notes.push(
        `[Cut at ${shown} of ${total} characters. Pass a larger max_chars, or use find ` +
          "or read_page (with ref_id) to reach a part.]",
      );
    }
    if (page.scope !== "whole page" && page.whole > page.length + 100) {
      notes.push(
        `[This is the page's ${page.scope}; the whole page has ${page.whole} characters of ` +
          "text, including navigation and sidebars. read_page shows all of it.]",
      );
    }
    const body = `title ${JSON.stringify(page.title)}\n${text.slice(0, shown)}`;
    return `Text of tab ${target.tabId} (${
      fencedUrl(context.workspace, page.url)
    }, ${page.scope}):\n` +
      fence(context.workspace, origin, body) + (notes.length ? `\n${notes.join("\n")}` : "");
  };
  // The whole answer, fence and notes included, stays within max_chars (the text gets at least
  // MIN_MAX_CHARS of it).
  let answer = compose(text.length);
  let shown = text.length;
  if (answer.length > maxChars) {
    const overhead = compose(0).length;
    shown = Math.min(text.length, Math.max(MIN_MAX_CHARS, maxChars - overhead - 20));
    answer = compose(shown);
  }
  const truncated = shown < text.length || cutBefore;
  return success(
    answer,
    {
      tabId: target.tabId,
      url: displayUrl(page.url),
      title: page.title,
      origin,
      scope: page.scope,
      characters: total,
      truncated,
      provenance: provenance(context.workspace, page.url),
      ...(frames.withheld.length ? { withheldFrames: frames.withheld.length } : {}),
      ...(frames.unread.length ? { unreadFrames: frames.unread.length } : {}),
    },
  );
};
