/**
 * `get_page_text`: the page's readable text, main content first, fenced as untrusted.
 *
 * @module
 */

import { type Handler, success } from "./context.ts";
import { fence, originOf } from "./fence.ts";
import { evaluate, ownedTab } from "./target.ts";

const DEFAULT_MAX_CHARS = 40_000;

/** Runs in the page: picks the main content when there is a substantial one, else the body. */
const EXTRACT = `(() => {
  const main = document.querySelector("article, main, [role=main]");
  const body = document.body;
  const useMain = main && main.innerText.trim().length >= 200;
  const root = useMain ? main : body;
  const text = (root ? root.innerText : "").replace(/[ \\t]+\\n/g, "\\n").replace(/\\n{3,}/g, "\\n\\n").trim();
  return { url: location.href, title: document.title, text, scope: useMain ? "main content" : "whole page" };
})()`;

/** `get_page_text`. */
export const getPageText: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const maxChars = Math.max(
    100,
    Math.floor((args.max_chars as number | undefined) ?? DEFAULT_MAX_CHARS),
  );
  const page = await evaluate<{ url: string; title: string; text: string; scope: string }>(
    target,
    EXTRACT,
  );
  const truncated = page.text.length > maxChars;
  const body = truncated ? page.text.slice(0, maxChars) : page.text;
  const tail = truncated
    ? `\n[Cut at ${maxChars} of ${page.text.length} characters. Pass a larger max_chars, or use find or read_page to reach a part.]`
    : "";
  const origin = originOf(page.url);
  return success(
    `Text of "${page.title}" (${page.url}, ${page.scope}):\n${
      fence(context.workspace, origin, body)
    }${tail}`,
    {
      tabId: target.tabId,
      url: page.url,
      title: page.title,
      origin,
      characters: page.text.length,
      truncated,
    },
  );
};
