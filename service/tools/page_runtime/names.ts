/**
 * Accessible names: what a control is called, from `aria-labelledby`, `aria-label`, its labels,
 * its attributes, or the text inside it, following the order browsers use.
 *
 * @module
 */

import { isElement, isSvgName, isText, rootOf } from "./dom.ts";
import { CONTAINER_ROLES, NAME_FROM_CONTENT, SCRIPT_CONTROL } from "./contract.ts";
import { ACTIONABLE } from "./roles.ts";
import { clean, hasText, leafHasWords, SKIP, startsWithWords, textOf } from "./text.ts";

/** Most characters of an element's content gathered for its name. */
const CONTENT_BUDGET = 400;

/** The text of a label without the control inside it. */
function textOfLabel(label: Element, control: Element): string {
  const copy: string[] = [];
  const visit = (n: Node): void => {
    if (n === control) return;
    if (isText(n)) copy.push(n.data);
    else if (
      isElement(n) && !SKIP.has(n.tagName) &&
      !(n.tagName === "SELECT" || n.tagName === "INPUT" || n.tagName === "TEXTAREA")
    ) n.childNodes.forEach(visit);
  };
  visit(label);
  return clean(copy.join(" "));
}

/** The text of the labels of a form control. */
function labelsOf(el: Element): string {
  const texts: string[] = [];
  const labels = (el as HTMLInputElement).labels;
  if (labels) { for (const label of labels) texts.push(textOfLabel(label, el)); }
  else if (el.id) {
    const root = rootOf(el);
    if (root.querySelectorAll) {
      for (const label of root.querySelectorAll<HTMLLabelElement>("label[for]")) {
        if (label.htmlFor === el.id) texts.push(textOfLabel(label, el));
      }
    }
  }
  return clean(texts.join(" "));
}

/**
 * The element's accessible name, given its role. `text` gathers the text of elements the name
 * comes from; {@linkcode isNamed} passes one that only says whether there is any. A walk that
 * has read the element's `tagName` passes it, and `attributed` false when the element has no
 * attributes (`hasAttributes`): no attribute is then looked up.
 */
export function nameOf(
  el: Element,
  role: string | null,
  text: (node: Node, budget: number) => string = textOf,
  tag: string = el.tagName,
  attributed = true,
): string {
  if (!attributed) return unattributedName(el, role, tag, text);
  const labelledby = el.getAttribute("aria-labelledby");
  if (labelledby) {
    const root = rootOf(el);
    const parts = labelledby.split(/\s+/).map((id) => {
      const target = root.getElementById
        ? root.getElementById(id)
        : el.ownerDocument.getElementById(id);
      return target ? text(target, 300) : "";
    });
    const joined = clean(parts.join(" "));
    if (joined) return joined;
  }
  const label = clean(el.getAttribute("aria-label"));
  if (label) return label;
  if (
    tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || tag === "METER" ||
    tag === "PROGRESS" || tag === "OUTPUT"
  ) {
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "INPUT" && (type === "submit" || type === "reset" || type === "button")) {
      return clean((el as HTMLInputElement).value) ||
        (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
    }
    if (tag === "INPUT" && type === "image") return clean(el.getAttribute("alt")) || "Submit";
    const fromLabel = labelsOf(el);
    if (fromLabel) return fromLabel;
    return clean(el.getAttribute("title")) || clean(el.getAttribute("placeholder")) ||
      clean(el.getAttribute("aria-placeholder"));
  }
  if (tag === "IMG" || tag === "AREA") {
    return clean(el.getAttribute("alt")) || clean(el.getAttribute("title"));
  }
  if (isSvgName(tag)) {
    const title = el.querySelector("title");
    return title ? clean(title.textContent) : "";
  }
  if (tag === "FIELDSET") {
    const legend = el.querySelector(":scope > legend");
    if (legend) return text(legend, 200);
  }
  if (tag === "TABLE") {
    const caption = el.querySelector(":scope > caption");
    if (caption) return text(caption, 200);
  }
  if (tag === "IFRAME" || tag === "FRAME") {
    return clean(el.getAttribute("title")) || clean(el.getAttribute("name"));
  }
  // An element with no element inside it holds no control: no query for a cell of plain text.
  if (
    role !== null && CONTAINER_ROLES.has(role) && el.firstElementChild &&
    el.querySelector(ACTIONABLE)
  ) {
    return clean(el.getAttribute("title"));
  }
  if (role !== null && (NAME_FROM_CONTENT.has(role) || role === SCRIPT_CONTROL)) {
    const content = text(el, CONTENT_BUDGET);
    if (content) return content;
  }
  return clean(el.getAttribute("title"));
}

/** Elements {@linkcode nameOf} names by their tag's own rule, before their content. */
const NAMED_BY_TAG: ReadonlySet<string> = new Set([
  "INPUT",
  "TEXTAREA",
  "SELECT",
  "METER",
  "PROGRESS",
  "OUTPUT",
  "IMG",
  "AREA",
  "FIELDSET",
  "TABLE",
  "IFRAME",
  "FRAME",
]);

/**
 * {@linkcode nameOf} of an element without attributes (most rows, cells and buttons of a big
 * table): no `aria-*`, `title`, `alt`, `type` or label `for` can name it, so only what the
 * element holds can, and only where {@linkcode nameOf} would take it from there.
 */
function unattributedName(
  el: Element,
  role: string | null,
  tag: string,
  text: (node: Node, budget: number) => string,
): string {
  // Named by a value, a label, a legend or caption, or a default: the whole rule.
  if (NAMED_BY_TAG.has(tag) || isSvgName(tag)) return nameOf(el, role, text, tag, true);
  if (role === null || !(NAME_FROM_CONTENT.has(role) || role === SCRIPT_CONTROL)) return "";
  // A container of a control is named only by its title, which it has not.
  if (CONTAINER_ROLES.has(role) && el.firstElementChild && el.querySelector(ACTIONABLE)) return "";
  return text(el, CONTENT_BUDGET);
}

/**
 * Whether the element has a name, as {@linkcode nameOf} would give it, without gathering the
 * whole of the text it comes from (decision 0500). The walk passes the `tagName` it read,
 * `attributed` false for an element without attributes, and `html` true when the element is in
 * an HTML document (see {@linkcode leafHasWords}).
 */
export function isNamed(
  el: Element,
  role: string | null,
  tag: string = el.tagName,
  attributed = true,
  html = false,
): boolean {
  // The commonest shape: a cell, button or heading without attributes whose words are its own
  // text (nothing hides it, and a cell that holds no element holds no control).
  if (!attributed && role !== null && NAME_FROM_CONTENT.has(role) && !NAMED_BY_TAG.has(tag)) {
    const leaf = el.firstElementChild === null;
    if (
      leaf
        ? (html && leafHasWords(el, tag, CONTENT_BUDGET)) || startsWithWords(el, tag)
        : !CONTAINER_ROLES.has(role) && startsWithWords(el, tag)
    ) return true;
  }
  return nameOf(el, role, anyText, tag, attributed) !== "";
}

/** A text gatherer that only says whether there is any: "x" or "". */
function anyText(node: Node, budget: number): string {
  return hasText(node, budget) ? "x" : "";
}
