/**
 * The page's readable text for get_page_text: the article or main content when the page has
 * one, else the whole page, with line breaks where the layout makes them. Cross-origin frames
 * are left as marks for the service to fill in from their own worlds.
 *
 * @module
 */

import type { Readable } from "./contract.ts";
import { redactedTitle } from "./secrets.ts";
import { frameDocument, isElement, isHidden, isText, shownChildren, viewOf } from "./dom.ts";
import { idOf } from "./registry.ts";
import { clip, SKIP } from "./text.ts";

/** Marks where a cross-origin frame's text goes: `\u0000<element number>\u0000`. */
const FRAME_MARK = "\u0000";
const PHRASING: ReadonlySet<string> = new Set([
  "B",
  "I",
  "EM",
  "STRONG",
  "CODE",
  "SMALL",
  "SUB",
  "SUP",
  "ABBR",
  "MARK",
  "TIME",
  "U",
  "S",
  "Q",
  "CITE",
  "DFN",
  "KBD",
  "SAMP",
  "VAR",
  "BDI",
  "BDO",
  "WBR",
  "DATA",
  "FONT",
  "INS",
  "DEL",
]);
const PARAGRAPH =
  /^(P|H[1-6]|UL|OL|DL|TABLE|BLOCKQUOTE|PRE|FIGURE|SECTION|ARTICLE|HEADER|FOOTER|NAV|ASIDE|FORM|FIELDSET)$/;

/**
 * The text of the flat tree (open shadow roots, slots, same-origin iframes), which innerText
 * leaves out, with lines broken where the layout breaks them, as innerText would.
 */
function flatText(root: Node): string {
  const out: string[] = [];
  let line = "";
  const end = (paragraph: boolean): void => {
    const text = line.replace(/\s+/g, " ").trim();
    line = "";
    if (text) out.push(text);
    if (paragraph && out.length && out[out.length - 1] !== "") out.push("");
  };
  const visit = (n: Node): void => {
    if (isText(n)) {
      line += n.data.split(FRAME_MARK).join("");
      return;
    }
    if (n.nodeType === 11) {
      n.childNodes.forEach(visit);
      return;
    }
    if (!isElement(n)) return;
    const tag = n.tagName;
    if (SKIP.has(tag) || tag.toLowerCase() === "svg" || isHidden(n)) return;
    if (tag === "BR") {
      end(false);
      return;
    }
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (tag === "IFRAME" || tag === "FRAME") {
      const doc = frameDocument(n);
      end(true);
      if (doc && doc.body) visit(doc.body);
      // A cross-origin frame is read by the service in its own world and put in at the marker.
      else out.push(FRAME_MARK + idOf(n) + FRAME_MARK);
      end(true);
      return;
    }
    if (tag === "PRE") {
      end(true);
      out.push((n.textContent || "").replace(/\s+$/, ""));
      end(true);
      return;
    }
    const display = PHRASING.has(tag) ? "inline" : viewOf(n).getComputedStyle(n).display;
    const block = !display.startsWith("inline") && display !== "contents";
    const paragraph = block && PARAGRAPH.test(tag);
    if (block) end(paragraph);
    for (const kid of shownChildren(n)) visit(kid);
    if (tag === "TD" || tag === "TH") line += " \t ";
    if (block) end(paragraph);
  };
  visit(root);
  end(false);
  return out.join("\n").replace(/ ?\t ?/g, "\t").replace(/\n{3,}/g, "\n\n").trim();
}

/** Whether the element holds shadow roots or frames, whose text innerText leaves out. */
function hasFlatTreeParts(root: Element): boolean {
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot || el.tagName === "IFRAME" || el.tagName === "FRAME") return true;
  }
  return false;
}

/** An element's readable text. */
function textIn(el: Element): string {
  return hasFlatTreeParts(el)
    ? flatText(el)
    : ((el as HTMLElement).innerText || "").split(FRAME_MARK).join("").replace(/[ \t]+\n/g, "\n")
      .replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * The page's readable text (the article or main content unless `whole`), cut to `limit`
 * characters with its full length, so a huge page costs the service no more than what it will
 * show; the title is clipped too.
 */
export function readable(whole: boolean, limit: number): Readable {
  const cap = (text: string) => text.length > limit ? text.slice(0, limit) : text;
  const title = clip(redactedTitle(), 300);
  const body = document.body || document.documentElement;
  let root = body, scope = "whole page";
  if (whole) {
    const text = textIn(body);
    return {
      url: location.href,
      title,
      text: cap(text),
      length: text.length,
      scope,
      whole: text.length,
    };
  }
  const articles = Array.from(document.querySelectorAll("article")).filter((a) =>
    textIn(a).length >= 200
  );
  const main = document.querySelector("main, [role=main]");
  if (articles.length === 1) {
    root = articles[0];
    scope = "article";
  } else if (main && textIn(main).length >= 200) {
    root = main as HTMLElement;
    scope = "main content";
  } else if (articles.length === 0) {
    const weight = new Map<Element, number>();
    for (const p of document.querySelectorAll("p")) {
      const parent = p.parentElement;
      if (parent) weight.set(parent, (weight.get(parent) || 0) + (p.textContent || "").length);
    }
    let best: Element | null = null, most = 0;
    for (const [el, w] of weight) {
      if (w > most) {
        best = el;
        most = w;
      }
    }
    if (best && most >= 1000 && most >= 0.5 * textIn(body).length) {
      root = best as HTMLElement;
      scope = "main content";
    }
  }
  const text = textIn(root);
  return {
    url: location.href,
    title,
    text: cap(text),
    length: text.length,
    scope,
    whole: root === body ? text.length : textIn(body).length,
  };
}
