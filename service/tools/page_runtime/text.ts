/**
 * Text as the user reads it: whitespace folded, cut to a length, and an element's text gathered
 * through shadow roots and slots without the values of secret fields.
 *
 * @module
 */

import { isElement, isSvg, isSvgName, isText, shadowOf } from "./dom.ts";
import { isSecretField } from "./secrets.ts";

/** Elements that flow inside a line of text rather than start one. */
export const INLINE: ReadonlySet<string> = new Set([
  "A",
  "ABBR",
  "B",
  "BDI",
  "BDO",
  "BR",
  "CITE",
  "CODE",
  "DATA",
  "DFN",
  "EM",
  "I",
  "KBD",
  "MARK",
  "Q",
  "S",
  "SAMP",
  "SMALL",
  "SPAN",
  "STRONG",
  "SUB",
  "SUP",
  "TIME",
  "U",
  "VAR",
  "WBR",
  "FONT",
  "LABEL",
  "INS",
  "DEL",
]);

/** Elements whose content is never page text. */
export const SKIP: ReadonlySet<string> = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "HEAD",
  "META",
  "LINK",
  "TITLE",
  "SVG",
  "svg",
  "PATH",
  "path",
]);

/** The text with runs of whitespace made one space, trimmed. */
export function clean(text: string | null | undefined): string {
  // Most attributes asked for are absent: no string to fold.
  return text ? text.replace(/\s+/g, " ").trim() : "";
}

/** The text cut to `n` characters, an ellipsis marking the cut. */
export function clip(text: string, n: number): string {
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

/**
 * The text inside a node, reading shadow roots, slots, image alternatives and the values of
 * inputs that are not secret; it stops gathering once past `budget` characters.
 */
export function textOf(node: Node, budget: number): string {
  // The common case, an element holding one run of text (a cell, a button), without the
  // gathering's closures and child lists: the gathering would take that run whole.
  if (budget >= 1 && isElement(node)) {
    const first = node.firstChild;
    if (
      first && isText(first) && !first.nextSibling && readsChildren(node, node.tagName) &&
      shown(node)
    ) return clean(first.data);
  }
  return clean(gather(node, (out) => out.length > budget));
}

/**
 * Whether {@linkcode textOf} with the same budget finds any text in the node, stopping at the
 * first word: a walk that describes only what it returns still needs to know which elements have
 * a name from their content (decision 0500).
 */
export function hasText(node: Node, budget: number): boolean {
  // The common case, a plain element that starts with a word, without the gathering's closures.
  if (isElement(node) && startsWithWords(node, node.tagName) && shown(node)) return true;
  return NOT_SPACE.test(gather(node, (out) => out.length > budget || NOT_SPACE.test(out)));
}

/**
 * Whether the text {@linkcode gather} takes from an element (`tag` its `tagName`) starts with a
 * word in its first child, leaving aside whether the element itself is hidden: the gathering
 * reads a plain element's children in order, so such an element has text.
 */
export function startsWithWords(el: Element, tag: string): boolean {
  const first = el.firstChild;
  return !!first && isText(first) && NOT_SPACE.test(first.data) && readsChildren(el, tag);
}

/**
 * {@linkcode textOf} of a node in an HTML document: an element that holds no element and whose
 * text is shorter than `budget` is read by its `textContent` (see {@linkcode leafHasWords}: the
 * gathering would take every one of its text nodes, in order, and nothing else), the rest as
 * `textOf` reads it.
 */
export function htmlTextOf(node: Node, budget: number): string {
  if (isElement(node) && node.firstElementChild === null) {
    if (readsChildren(node, node.tagName) && shown(node)) {
      const text = node.textContent ?? "";
      if (text.length < budget) return clean(text);
    }
  }
  return textOf(node, budget);
}

/**
 * Whether {@linkcode hasText} with `budget` finds words in an element of an HTML document that
 * holds no element and has no attributes (`tag` its `tagName`), told from its `textContent`;
 * false when it does not say (no words, or words too far in). Its text then is its text nodes'
 * in order (comments hold none, and an HTML document has no CDATA sections, which the gathering
 * would pass over), and the gathering reads the node holding the first word once the whitespace
 * before it is within `budget`. Stepping to the text node instead hands the walk an object made
 * for it in Ghostlight's world, several times the cost of the string (decision 0800).
 */
export function leafHasWords(el: Element, tag: string, budget: number): boolean {
  if (!readsChildren(el, tag)) return false;
  const at = (el.textContent ?? "").search(NOT_SPACE);
  return at >= 0 && at < budget;
}

/**
 * Whether {@linkcode gather} takes an element's text from its own children in order (`tag` its
 * `tagName`), leaving aside whether it is hidden: not a drawing, a skipped or replaced element, a
 * slot, or a shadow host.
 */
function readsChildren(el: Element, tag: string): boolean {
  return !isSvgName(tag) && !SKIP.has(tag) && !OWN_TEXT.has(tag) && !shadowOf(el, tag);
}

/** Whether {@linkcode gather} reads the element at all: neither `hidden` nor `aria-hidden`. */
function shown(el: Element): boolean {
  return !el.hasAttributes() ||
    (!(el as HTMLElement).hidden && el.getAttribute("aria-hidden") !== "true");
}

/** Elements whose text the gathering takes from elsewhere than their first child. */
const OWN_TEXT: ReadonlySet<string> = new Set(["INPUT", "IMG", "SLOT"]);

const NOT_SPACE = /\S/;

/** The raw text {@linkcode textOf} cleans, gathered until `enough` says so. */
function gather(node: Node, enough: (out: string) => boolean): string {
  let out = "";
  const visit = (n: Node): void => {
    if (enough(out)) return;
    if (isText(n)) {
      out += n.data;
      return;
    }
    if (!isElement(n)) return;
    if (isSvg(n)) {
      const title = n.querySelector("title");
      out += " " + (n.getAttribute("aria-label") || (title ? title.textContent : "")) + " ";
      return;
    }
    if (
      SKIP.has(n.tagName) || n.getAttribute("aria-hidden") === "true" || (n as HTMLElement).hidden
    ) {
      return;
    }
    if (n.tagName === "INPUT") {
      out += " " + (isSecretField(n) ? "" : (n as HTMLInputElement).value) + " ";
      return;
    }
    if (n.tagName === "IMG") {
      out += " " + (n.getAttribute("alt") || "") + " ";
      return;
    }
    if (n.tagName === "SLOT") {
      const nodes = (n as HTMLSlotElement).assignedNodes();
      if (nodes.length) {
        nodes.forEach(visit);
        return;
      }
    }
    if (n.shadowRoot) {
      n.shadowRoot.childNodes.forEach(visit);
      return;
    }
    if (!INLINE.has(n.tagName)) out += " ";
    n.childNodes.forEach(visit);
    if (!INLINE.has(n.tagName)) out += " ";
  };
  visit(node);
  return out;
}
