/**
 * The walk behind read_page and find: the DOM (open shadow roots and same-origin iframes
 * included) as a flat list of outline nodes with depths, each element described by the one
 * describer, text runs between them, and the cross-origin frames the service must read itself.
 *
 * @module
 */

import { shownRole, stateOf, valueOf } from "./describe.ts";
import {
  frameDocument,
  isElement,
  isHidden,
  isText,
  rootOf,
  shownChildren,
  viewOf,
} from "./dom.ts";
import { nameOf } from "./names.ts";
import { byId, idOf, token } from "./registry.ts";
import { INTERACTIVE, NAME_FROM_CONTENT, roleOf } from "./roles.ts";
import { clean, clip, INLINE, SKIP, textOf } from "./text.ts";

/** What to walk and how much of it. */
export interface SnapshotOptions {
  /** `interactive` keeps only controls. */
  filter?: string;
  depth?: number;
  limit?: number;
  /** Adds the words find matches on (title, name and id attributes, descriptions). */
  hints?: boolean;
  /** The number of the element to start at, instead of the body. */
  root?: number;
}

/** One line of the outline; `id` 0 for text runs with no element to point at. */
export interface SnapshotNode {
  id: number;
  depth: number;
  role: string;
  name: string;
  value?: string;
  states?: string[];
  placeholder?: string;
  href?: string;
  hints?: string;
  /** A cross-origin frame, to be read in its own world. */
  frame?: boolean;
}

/** The outline of a document, or `gone` when the root element is no longer there. */
export type Snapshot =
  | {
    token: string;
    url: string;
    title: string;
    nodes: SnapshotNode[];
    /** Numbers of the cross-origin frames met. */
    frames: number[];
    /** Nodes left out beyond the limit. */
    omitted: number;
    /** Nodes left out beyond the depth. */
    cutByDepth: number;
  }
  | { gone: true };

/** A placeholder and a link's target, when they add to the name. */
function extrasOf(
  el: Element,
  role: string,
  name: string,
): { placeholder?: string; href?: string } {
  const out: { placeholder?: string; href?: string } = {};
  const placeholder = el.getAttribute("placeholder");
  if (placeholder && clean(placeholder) !== name) out.placeholder = clip(clean(placeholder), 80);
  if (role === "iframe" && (el as HTMLIFrameElement).src) {
    out.href = clip((el as HTMLIFrameElement).src, 120);
  }
  if (role === "link") {
    const href = el.getAttribute("href") || "";
    if (href && !href.startsWith("javascript:")) out.href = clip(href, 120);
  }
  return out;
}

/** Walks the document (or the element `options.root`) into outline nodes. */
export function snapshot(options: SnapshotOptions): Snapshot {
  const filter = options.filter || "all";
  const maxDepth = typeof options.depth === "number" ? options.depth : Infinity;
  const limit = options.limit || 20000;
  const wantHints = !!options.hints;
  const nodes: SnapshotNode[] = [];
  const frames: number[] = [];
  let omitted = 0;
  let cutByDepth = 0;
  let text = "";
  let textDepth = 0;
  let textOwner: Element | null = null;
  let underPointer = false;
  const flushText = (): void => {
    const value = clean(text);
    text = "";
    if (!value || filter === "interactive") return;
    if (textDepth > maxDepth) {
      cutByDepth++;
      return;
    }
    if (nodes.length >= limit) {
      omitted++;
      return;
    }
    nodes.push({
      id: wantHints && textOwner ? idOf(textOwner) : 0,
      depth: textDepth,
      role: "text",
      name: clip(value, 300),
    });
  };
  const emit = (el: Element, role: string, depth: number): SnapshotNode | null => {
    flushText();
    if (nodes.length >= limit) {
      omitted++;
      return null;
    }
    const name = clip(nameOf(el, role), 200);
    const node: SnapshotNode = { id: idOf(el), depth, role: shownRole(role), name };
    const value = valueOf(el, role);
    if (value !== null && value !== undefined && value !== "" && value !== name) {
      node.value = clip(value, 200);
    }
    const states = stateOf(el, role);
    if (states.length) node.states = states;
    const extras = extrasOf(el, role, name);
    if (extras.placeholder) node.placeholder = extras.placeholder;
    if (extras.href) node.href = extras.href;
    if (wantHints) {
      const root = rootOf(el);
      const describedBy = clean(el.getAttribute("aria-describedby")).split(" ")[0];
      const description = describedBy && root.getElementById
        ? root.getElementById(describedBy)
        : null;
      const hints = [
        el.getAttribute("title"),
        el.getAttribute("name"),
        el.id,
        description ? textOf(description, 100) : "",
        el.getAttribute("data-testid"),
      ].filter(Boolean).join(" ");
      if (hints) node.hints = clip(hints, 200);
    }
    nodes.push(node);
    return node;
  };
  const walkChildren = (parent: Node, depth: number, suppressText: boolean): void => {
    for (const child of shownChildren(parent)) walk(child, depth, suppressText);
  };
  const walk = (n: Node, depth: number, suppressText: boolean): void => {
    if (isText(n)) {
      if (suppressText) return;
      if (!text) {
        textDepth = depth;
        textOwner = n.parentElement || (n.parentNode && (n.parentNode as ShadowRoot).host) ||
          null;
      }
      text += n.data;
      return;
    }
    if (n.nodeType === 11) {
      walkChildren(n, depth, suppressText);
      return;
    }
    if (!isElement(n)) return;
    if (n.tagName.toLowerCase() === "svg") {
      // An icon is part of its control's name; a labelled graphic stands on its own.
      if (
        !isHidden(n) && !underPointer &&
        (n.getAttribute("aria-label") || n.getAttribute("role") === "img")
      ) {
        if (depth <= maxDepth && filter !== "interactive") emit(n, "img", depth);
      }
      return;
    }
    if (SKIP.has(n.tagName) || isHidden(n)) return;
    const outer = underPointer;
    try {
      walkElement(n, depth, suppressText);
    } finally {
      underPointer = outer;
    }
  };
  const walkElement = (n: Element, depth: number, suppressText: boolean): void => {
    if (
      (n.tagName === "LABEL" && (n as HTMLLabelElement).control &&
        (n as HTMLLabelElement).control !== n) ||
      ((n.tagName === "LEGEND" || n.tagName === "CAPTION") && n.parentElement &&
        n.parentElement.getAttribute("aria-label") === null)
    ) {
      walkChildren(n, depth, true);
      return;
    }
    // visibility: hidden hides the element and its text, but a child may be visible again.
    if (
      typeof n.checkVisibility === "function" && n.checkVisibility() &&
      !n.checkVisibility({ visibilityProperty: true })
    ) {
      flushText();
      walkChildren(n, depth, true);
      return;
    }
    let role = roleOf(n);
    if (role === "presentation") role = null;
    // Script-made controls (a div with a click listener) show themselves by a pointer cursor.
    if (
      !role && !underPointer && n.tagName !== "BR" &&
      viewOf(n).getComputedStyle(n).cursor === "pointer"
    ) role = "generic-clickable";
    if (role && (INTERACTIVE.has(role) || role === "generic-clickable")) underPointer = true;
    if (!role) {
      if (!INLINE.has(n.tagName)) flushText();
      if (n.tagName === "BR") {
        text += " ";
        return;
      }
      walkChildren(n, depth, suppressText);
      if (!INLINE.has(n.tagName)) flushText();
      return;
    }
    if (depth > maxDepth) {
      cutByDepth++;
      flushText();
      return;
    }
    const actionable = INTERACTIVE.has(role) || role === "generic-clickable" || role === "iframe";
    // Inside an element named by its content, only controls add lines: the rest is its name.
    const interesting = actionable || (filter !== "interactive" && !suppressText);
    const node = interesting ? emit(n, role, depth) : (flushText(), null);
    if (role === "iframe") {
      const doc = frameDocument(n);
      const rect = n.getBoundingClientRect();
      // Tracking pixels and hidden helper frames hold nothing to read or act on.
      if (rect.width < 3 || rect.height < 3) return;
      if (doc && doc.body) walk(doc.body, depth + 1, false);
      else if (node) {
        node.frame = true;
        frames.push(node.id);
      }
      return;
    }
    if (n.tagName === "SELECT") {
      if (filter === "interactive") return;
      const options = (n as HTMLSelectElement).options;
      let count = 0;
      for (const option of options) {
        if (count++ >= 25) {
          flushText();
          nodes.push({
            id: 0,
            depth: depth + 1,
            role: "text",
            name: "… " + (options.length - 25) +
              " more options (form_input takes any option's label)",
          });
          break;
        }
        emit(option, "option", depth + 1);
      }
      return;
    }
    if (n.tagName === "TEXTAREA" || n.tagName === "INPUT") return;
    const childDepth = node ? depth + 1 : depth;
    const nameFromContent = node && (NAME_FROM_CONTENT.has(role) || role === "generic-clickable") &&
      node.name && !n.getAttribute("aria-label");
    walkChildren(n, childDepth, suppressText || !!nameFromContent || role === "textbox");
    flushText();
  };
  let start: Element | null = document.body || document.documentElement;
  if (options.root) {
    start = byId(options.root);
    if (!start) return { gone: true };
  }
  if (start) walk(start, 0, false);
  flushText();
  return { token, url: location.href, title: document.title, nodes, frames, omitted, cutByDepth };
}
