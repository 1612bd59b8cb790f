/**
 * `get_page_text`: the page's readable text, the article or main content first when the page
 * has one, read in Ghostlight's isolated world (so neither the page's scripts nor its
 * Content-Security-Policy can interfere), cut to `max_chars`, secrets redacted, and fenced as
 * untrusted page content.
 *
 * @module
 */

import { type Handler, success } from "./context.ts";
import { fence, originOf } from "./fence.ts";
import { provenance } from "./page/provenance.ts";
import { redactSecrets } from "./page/redact.ts";
import { inMainFrame, tabPages } from "./refs.ts";
import { ownedTab } from "./target.ts";

/** Default cap on the text returned; about 10k tokens. */
export const DEFAULT_MAX_CHARS = 40_000;
const MIN_MAX_CHARS = 100;

interface Readable {
  url: string;
  title: string;
  text: string;
  scope: string;
  /** Characters of the whole page's text, to say when the article is only part of it. */
  whole: number;
}

/** `get_page_text`. */
export const getPageText: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const maxChars = Math.max(
    MIN_MAX_CHARS,
    Math.floor((args.max_chars as number | undefined) ?? DEFAULT_MAX_CHARS),
  );
  const pages = tabPages(context.workspace, target.tabId);
  const page = await inMainFrame<Readable>(target, pages, "__ghostlight.readable()");
  const text = redactSecrets(page.text);
  const truncated = text.length > maxChars;
  const body = truncated ? text.slice(0, maxChars) : text;
  const notes: string[] = [];
  if (truncated) {
    notes.push(
      `[Cut at ${maxChars} of ${text.length} characters. Pass a larger max_chars, or use find ` +
        "or read_page (with ref_id) to reach a part.]",
    );
  }
  if (page.scope !== "whole page" && page.whole > page.text.length + 100) {
    notes.push(
      `[This is the page's ${page.scope}; the whole page has ${page.whole} characters of text, ` +
        "including navigation and sidebars. read_page shows all of it.]",
    );
  }
  const origin = originOf(page.url);
  return success(
    `Text of tab ${target.tabId} (${page.url}, ${page.scope}):\n` +
      fence(context.workspace, origin, `title ${JSON.stringify(page.title)}\n${body}`) +
      (notes.length ? `\n${notes.join("\n")}` : ""),
    {
      tabId: target.tabId,
      url: page.url,
      title: page.title,
      origin,
      scope: page.scope,
      characters: text.length,
      truncated,
      provenance: provenance(context.workspace, page.url),
    },
  );
};
