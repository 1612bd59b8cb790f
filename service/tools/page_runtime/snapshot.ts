/**
 * The walk behind read_page and find: the DOM (open shadow roots and same-origin iframes
 * included) as a flat list of outline nodes with depths, each element described by the one
 * describer, text runs between them, and the cross-origin frames the service must read itself.
 *
 * @module
 */

import { redactedTitle } from "./secrets.ts";
import { stateOf, valueOf } from "./describe.ts";
import {
  frameDocument,
  isHidden,
  isSvgName,
  rootOf,
  shadowOf,
  viewOf,
  visibilityOf,
} from "./dom.ts";
import { isNamed, nameOf } from "./names.ts";
import { byId, idOf, token } from "./registry.ts";
import type { Snapshot, SnapshotNode, SnapshotOptions } from "./contract.ts";
import { INTERACTIVE, NAME_FROM_CONTENT, SCRIPT_CONTROL, shownRole } from "./contract.ts";
import { roleOf } from "./roles.ts";
import { cutOutline } from "./cut.ts";
import { clean, clip, htmlTextOf, INLINE, SKIP, textOf } from "./text.ts";

/** A placeholder and a link's target, when they add to the name. */
function extrasOf(
  el: Element,
  role: string,
  name: string,
  attributed: boolean,
): { placeholder?: string; href?: string } {
  const out: { placeholder?: string; href?: string } = {};
  if (!attributed) return out;
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

const SVG_NS = "http://www.w3.org/2000/svg";

/** Hints that help `find` rank an element: title, name, id, description, test id. */
function hintsOf(el: Element): string {
  const root = rootOf(el);
  const describedBy = clean(el.getAttribute("aria-describedby")).split(" ")[0];
  const description = describedBy && root.getElementById ? root.getElementById(describedBy) : null;
  return [
    el.getAttribute("title"),
    el.getAttribute("name"),
    el.id,
    description ? textOf(description, 100) : "",
    el.getAttribute("data-testid"),
    // A shape in a drawing is often named by nothing else ("circle", "path").
    el.namespaceURI === SVG_NS ? el.tagName : "",
  ].filter(Boolean).join(" ");
}

/**
 * Whether an element (`tag` its `tagName`) only names another (a label of a control, a legend
 * or caption).
 */
function onlyNames(n: Element, tag: string): boolean {
  return (tag === "LABEL" && !!(n as HTMLLabelElement).control &&
    (n as HTMLLabelElement).control !== n) ||
    ((tag === "LEGEND" || tag === "CAPTION") && !!n.parentElement &&
      n.parentElement.getAttribute("aria-label") === null);
}

/** Most elements of one drawing looked at for shapes that take clicks. */
const MAX_SHAPES_LOOKED_AT = 1000;

/**
 * The role of an element inside a drawing that takes clicks: a link (`<a href>`), its own
 * interactive role, or a script-made control (a click handler in its markup, a tab stop, or a
 * pointer cursor its parent does not have); null for the rest.
 */
function shapeRole(el: Element): string | null {
  if (el.tagName === "a" && (el.hasAttribute("href") || el.hasAttribute("xlink:href"))) {
    return "link";
  }
  const role = el.getAttribute("role");
  if (role && INTERACTIVE.has(role)) return role;
  if (el.hasAttribute("onclick") || Number(el.getAttribute("tabindex") ?? -1) >= 0) {
    return SCRIPT_CONTROL;
  }
  const view = viewOf(el);
  const pointer = (node: Element) => view.getComputedStyle(node).cursor === "pointer";
  return pointer(el) && !(el.parentElement && pointer(el.parentElement)) ? SCRIPT_CONTROL : null;
}

/** Whether an element is a label that names a control outside itself (`<label for>`). */
function standsApart(n: Element, tag: string): boolean {
  const control = tag === "LABEL" ? (n as HTMLLabelElement).control : null;
  return !!control && !n.contains(control);
}

/**
 * A walk that passes over what it need not read (find's exact walk, decision 0440): `holds`
 * says whether an element's subtree may hold what is looked for, and the walk gives up
 * (`exhausted`) once it has entered more than `budget` elements.
 */
export interface Pruning {
  holds(el: Element): boolean;
  budget: number;
}

/** The id of a node not described yet: an element, so it will have a ref (decision 0500). */
const PENDING = -1;
/** The name of a node not described yet that will have one: only its being there counts. */
const UNNAMED_YET = "\u2026";

/**
 * Fills `node` with what the describer says of `el`: ref, name, value, states, extras, hints.
 * `html` says `el` is in an HTML document (its name's text is then read as `htmlTextOf` reads it).
 */
function describeNode(
  node: SnapshotNode,
  el: Element,
  role: string,
  hints: boolean,
  html: boolean,
): void {
  // Read once and handed to each part of the description (decision 0800).
  const tag = el.tagName;
  const attributed = el.hasAttributes();
  const name = clip(nameOf(el, role, html ? htmlTextOf : textOf, tag, attributed), 200);
  node.id = idOf(el);
  node.role = shownRole(role);
  node.name = name;
  delete node.states;
  const value = valueOf(el, role, tag);
  if (value !== null && value !== undefined && value !== "" && value !== name) {
    node.value = clip(value, 200);
  }
  const states = stateOf(el, role, tag, attributed);
  if (states.length) node.states = states;
  const extras = extrasOf(el, role, name, attributed);
  if (extras.placeholder) node.placeholder = extras.placeholder;
  if (extras.href) node.href = extras.href;
  if (hints) {
    const found = hintsOf(el);
    if (found) node.hints = clip(found, 200);
  }
}

/**
 * Whether a frame still shows the empty document every frame starts with while the page its
 * address names is on its way. That page may already run in another process, and even have posted
 * to this one, before this document learns the frame moved on: walked here, the frame would read
 * as empty. The service reads such a frame through the browser, which knows what it shows
 * (decision 0740).
 */
function awaitingItsPage(frame: Element, doc: Document): boolean {
  if (doc.URL !== "about:blank") return false;
  const src = frame.getAttribute("src");
  return !!src && !/^\s*about:/i.test(src);
}

/**
 * Whether a document is an HTML one, which cannot hold CDATA sections: an XML document can, and
 * its type says so.
 */
function isHtml(doc: Document): boolean {
  return doc.contentType === "text/html";
}

/** Most nodes a walk adds; those past it are counted as omitted. */
function nodeLimit(options: SnapshotOptions): number {
  return options.limit || 20000;
}

/** One walk of a document into outline nodes: the nodes so far and the text being gathered. */
class Walker {
  readonly nodes: SnapshotNode[] = [];
  readonly frames: number[] = [];
  omitted = 0;
  cutByDepth = 0;
  /** A pruned walk entered more elements than its budget and stopped. */
  exhausted = false;
  /** The walk had `stopAt` nodes and went no further (decision 0680). */
  stopped = false;
  readonly #stopAt: number;
  #entered = 0;
  readonly #pruning: Pruning | null;
  #text = "";
  #textDepth = 0;
  #textOwner: Element | null = null;
  /** Inside a control: script-made clickables within it are part of it. */
  #underPointer = false;
  readonly #filter: string;
  readonly #maxDepth: number;
  readonly #limit: number;
  readonly #wantHints: boolean;
  /** Describe only what is returned: a read cut in the page (decision 0500). */
  readonly #defer: boolean;
  /** A deferred walk's elements and roles, by node, until each is described. */
  readonly #later: (Element | undefined)[] = [];
  readonly #roles: string[] = [];
  /** Whether the document being walked is an HTML one (see `leafHasWords`). */
  #html = false;
  /** Whether every document walked so far is an HTML one (see `htmlTextOf`). */
  #allHtml = true;

  constructor(options: SnapshotOptions, pruning: Pruning | null = null, stopAt = Infinity) {
    this.#stopAt = stopAt;
    this.#defer = !!options.cut && !pruning;
    this.#pruning = pruning;
    this.#filter = options.filter || "all";
    this.#maxDepth = typeof options.depth === "number" ? options.depth : Infinity;
    this.#limit = nodeLimit(options);
    this.#wantHints = !!options.hints;
  }

  /** Describes node `index` of a deferred walk, once; any other node is left as it is. */
  describe(index: number): void {
    const el = this.#later[index];
    if (!el) return;
    describeNode(this.nodes[index], el, this.#roles[index], this.#wantHints, this.#allHtml);
    this.#later[index] = undefined;
  }

  /** Ends the text run being gathered, as a text node. */
  flushText(): void {
    const value = clean(this.#text);
    this.#text = "";
    if (!value || this.#filter === "interactive") return;
    if (this.#textDepth > this.#maxDepth) {
      this.cutByDepth++;
      return;
    }
    if (this.nodes.length >= this.#limit) {
      this.omitted++;
      return;
    }
    this.nodes.push({
      id: this.#wantHints && this.#textOwner ? idOf(this.#textOwner) : 0,
      depth: this.#textDepth,
      role: "text",
      name: clip(value, 300),
    });
  }

  /**
   * Adds an element's node; null past the limit. A deferred walk (decision 0500) adds only its
   * shape, with the id {@linkcode PENDING}, and {@linkcode describe}s it once it knows the node
   * will be returned.
   */
  #emit(
    el: Element,
    role: string,
    depth: number,
    tag = el.tagName,
    attributed = true,
  ): SnapshotNode | null {
    this.flushText();
    if (this.nodes.length >= this.#limit) {
      this.omitted++;
      return null;
    }
    if (this.#defer && role !== "iframe") {
      // Only the shape: depth, role, whether there is a name, a list item's states.
      const named = (NAME_FROM_CONTENT.has(role) || role === SCRIPT_CONTROL) &&
        isNamed(el, role, tag, attributed, this.#html);
      const node: SnapshotNode = { id: PENDING, depth, role: shownRole(role), name: "" };
      if (named) node.name = UNNAMED_YET;
      if (role === "listitem") {
        const states = stateOf(el, role, tag, attributed);
        if (states.length) node.states = states;
      }
      this.#later[this.nodes.length] = el;
      this.#roles[this.nodes.length] = role;
      this.nodes.push(node);
      return node;
    }
    const node: SnapshotNode = { id: 0, depth, role: "", name: "" };
    describeNode(node, el, role, this.#wantHints, this.#allHtml);
    this.nodes.push(node);
    return node;
  }

  /** Walks what `parent` shows (`tag` its `tagName`, "" for a shadow root or fragment). */
  #walkChildren(parent: Node, depth: number, suppressText: boolean, tag: string): void {
    const shadow = tag === "" ? null : shadowOf(parent as Element, tag);
    const assigned = tag === "SLOT" && !shadow ? (parent as HTMLSlotElement).assignedNodes() : null;
    if (assigned && assigned.length) {
      for (const child of assigned) this.walk(child, depth, suppressText);
      return;
    }
    // The shown children (`shownChildren`) by their sibling links: a NodeList's iterator costs
    // more than the rest of the step on a page of thousands of elements (decision 0500).
    const from = (shadow ?? parent) as ParentNode & Node;
    if (suppressText) {
      // Text here adds nothing, nor does any node but an element: only the elements are stepped
      // through, and a cell's or a button's own text is never handed to the walk (decision 0800).
      // A walk past its stop still says it stopped wherever a node of any kind was left.
      if (this.nodes.length >= this.#stopAt) {
        if (from.firstChild) this.stopped = true;
        return;
      }
      for (let child = from.firstElementChild; child; child = child.nextElementSibling) {
        this.walk(child, depth, true);
        if (this.nodes.length >= this.#stopAt) {
          if (child.nextSibling) this.stopped = true;
          return;
        }
      }
      return;
    }
    for (let child = from.firstChild; child; child = child.nextSibling) {
      this.walk(child, depth, suppressText);
    }
  }

  /** Walks the element `start` (in whatever document) from depth 0. */
  walkFrom(start: Element): void {
    this.#html = isHtml(start.ownerDocument);
    this.#allHtml &&= this.#html;
    this.walk(start, 0, false);
  }

  /** Walks a node and what it shows. */
  walk(n: Node, depth: number, suppressText: boolean): void {
    if (this.nodes.length >= this.#stopAt) {
      this.stopped = true;
      return;
    }
    // Each property read is a call into the browser: each is read once per node (decision 0600).
    const type = n.nodeType;
    if (type === 3) {
      if (suppressText) return;
      if (!this.#text) {
        this.#textDepth = depth;
        this.#textOwner = this.#wantHints
          ? n.parentElement || (n.parentNode && (n.parentNode as ShadowRoot).host) || null
          : null;
      }
      this.#text += (n as Text).data;
      return;
    }
    if (type === 11) {
      this.#walkChildren(n, depth, suppressText, "");
      return;
    }
    if (type !== 1) return;
    const el = n as Element;
    if (this.#pruning) {
      if (this.exhausted) return;
      if (!this.#pruning.holds(el)) return this.#passOver(el);
      if (++this.#entered > this.#pruning.budget) {
        this.exhausted = true;
        return;
      }
    }
    const tag = el.tagName;
    if (isSvgName(tag)) {
      // An icon is part of its control's name; a labelled graphic stands on its own, and the
      // shapes inside a drawing that take clicks are controls of their own.
      if (isHidden(el) || this.#underPointer) return;
      const labelled = el.getAttribute("aria-label") || el.getAttribute("role") === "img";
      const graphic = labelled && depth <= this.#maxDepth && this.#filter !== "interactive"
        ? this.#emit(el, "img", depth)
        : null;
      this.#walkShapes(el, graphic ? depth + 1 : depth);
      return;
    }
    if (SKIP.has(tag)) return;
    // Most rows, cells and buttons of a big table have no attributes: none is looked up.
    const attributed = el.hasAttributes();
    const visibility = visibilityOf(el, attributed);
    if (visibility === "hidden") return;
    const outer = this.#underPointer;
    try {
      this.#walkElement(el, tag, attributed, depth, suppressText, visibility === "invisible");
    } finally {
      this.#underPointer = outer;
    }
  }

  /**
   * Passes over an element a pruned walk need not read, ending the text being gathered where
   * walking it would have: every element it passes over starts its own line (never inline, see
   * `holds`), so only one the walk would skip (hidden, or never page text) leaves the text open.
   */
  #passOver(n: Element): void {
    if (this.#text && !SKIP.has(n.tagName) && visibilityOf(n) !== "hidden") this.flushText();
  }

  /** The element's role, counting script-made controls (a pointer cursor) as clickable. */
  #roleOf(n: Element, tag: string, attributed: boolean): string | null {
    let role = roleOf(n, tag, attributed);
    if (role === "presentation") role = null;
    if (
      !role && !this.#underPointer && tag !== "BR" &&
      viewOf(n).getComputedStyle(n).cursor === "pointer"
    ) role = SCRIPT_CONTROL;
    return role;
  }

  /**
   * Walks an element the walk has read (`tag` its `tagName`, `attributed` whether it has any
   * attributes) and found not hidden (`invisible`: hidden by `visibility` only).
   */
  #walkElement(
    n: Element,
    tag: string,
    attributed: boolean,
    depth: number,
    suppressText: boolean,
    invisible: boolean,
  ): void {
    if (onlyNames(n, tag)) {
      // A label apart from its control (`for`) is a place to click of its own: a click there
      // toggles or focuses the control, and pages style it as the visible switch or box.
      if (standsApart(n, tag) && this.#filter !== "interactive" && depth <= this.#maxDepth) {
        this.#emit(n, "label", depth, tag, attributed);
      }
      this.#walkChildren(n, depth, true, tag);
      return;
    }
    // visibility: hidden hides the element and its text, but a child may be visible again.
    if (invisible) {
      this.flushText();
      this.#walkChildren(n, depth, true, tag);
      return;
    }
    const role = this.#roleOf(n, tag, attributed);
    if (role && (INTERACTIVE.has(role) || role === SCRIPT_CONTROL)) {
      this.#underPointer = true;
    }
    if (!role) {
      this.#walkPlain(n, tag, depth, suppressText);
      return;
    }
    if (depth > this.#maxDepth) {
      this.cutByDepth++;
      this.flushText();
      return;
    }
    const actionable = INTERACTIVE.has(role) || role === SCRIPT_CONTROL || role === "iframe";
    // Inside an element named by its content, only controls add lines: the rest is its name.
    const interesting = actionable || (this.#filter !== "interactive" && !suppressText);
    const node = interesting
      ? this.#emit(n, role, depth, tag, attributed)
      : (this.flushText(), null);
    if (role === "iframe") return this.#walkFrame(n, depth, node);
    if (tag === "SELECT") return this.#walkOptions(n as HTMLSelectElement, depth);
    if (tag === "TEXTAREA" || tag === "INPUT") return;
    const childDepth = node ? depth + 1 : depth;
    const nameFromContent = node &&
      (NAME_FROM_CONTENT.has(role) || role === SCRIPT_CONTROL) &&
      node.name && !(attributed && n.getAttribute("aria-label"));
    this.#walkChildren(
      n,
      childDepth,
      suppressText || !!nameFromContent || role === "textbox",
      tag,
    );
    this.flushText();
  }

  /** An element with no role: its content, in its own paragraph unless it is inline. */
  #walkPlain(n: Element, tag: string, depth: number, suppressText: boolean): void {
    const inline = INLINE.has(tag);
    if (!inline) this.flushText();
    if (tag === "BR") {
      this.#text += " ";
      return;
    }
    this.#walkChildren(n, depth, suppressText, tag);
    if (!inline) this.flushText();
  }

  /**
   * The shapes inside a drawing that take clicks ({@linkcode shapeRole}), each with its own line
   * and ref; what is inside one is part of it. At most {@linkcode MAX_SHAPES_LOOKED_AT} elements
   * of one drawing are looked at (a map or a chart may have thousands).
   */
  #walkShapes(svg: Element, depth: number): void {
    if (depth > this.#maxDepth) return;
    let looked = 0;
    const visit = (parent: Element) => {
      for (let el = parent.firstElementChild; el; el = el.nextElementSibling) {
        if (++looked > MAX_SHAPES_LOOKED_AT) return;
        if (SKIP.has(el.tagName.toUpperCase()) || isHidden(el)) continue;
        const role = shapeRole(el);
        if (role) this.#emit(el, role, depth);
        else visit(el);
      }
    };
    visit(svg);
  }

  /** A frame: a same-origin one is walked in place; another is marked for its own world. */
  #walkFrame(n: Element, depth: number, node: SnapshotNode | null): void {
    const doc = frameDocument(n);
    const rect = n.getBoundingClientRect();
    // Tracking pixels and hidden helper frames hold nothing to read or act on.
    if (rect.width < 3 || rect.height < 3) return;
    if (doc && doc.body && !awaitingItsPage(n, doc)) {
      const outer = this.#html;
      this.#html = isHtml(doc);
      this.#allHtml &&= this.#html;
      this.walk(doc.body, depth + 1, false);
      this.#html = outer;
    } else if (node) {
      node.frame = true;
      this.frames.push(node.id);
    }
  }

  /** A select's first 25 options, then how many more. */
  #walkOptions(n: HTMLSelectElement, depth: number): void {
    if (this.#filter === "interactive") return;
    const options = n.options;
    let count = 0;
    for (const option of options) {
      if (count++ >= 25) {
        this.flushText();
        this.nodes.push({
          id: 0,
          depth: depth + 1,
          role: "text",
          name: "… " + (options.length - 25) +
            " more options (form_input takes any option's label)",
        });
        break;
      }
      this.#emit(option, "option", depth + 1);
    }
  }
}

/** Walks the document (or the element `options.root`) into outline nodes. */
export function snapshot(options: SnapshotOptions): Snapshot {
  const walked = prunedSnapshot(options, null);
  if ("gone" in walked) return walked;
  const { exhausted: _, ...walk } = walked;
  return walk;
}

/**
 * Nodes a cut walk first goes to for each character `max_chars` shows: a display line's nodes
 * draw about 14 characters each on a big table and more on most pages, so the cut is nearly
 * always among them (decision 0680).
 */
const SHOWN_CHARS_PER_NODE = 8;
/** Fewest nodes a cut walk first goes to. */
const FIRST_STOP_NODES = 250;
/** How much further a cut walk goes when the nodes it walked did not hold the cut. */
const STOP_GROWTH = 4;

/** {@linkcode snapshot}, passing over what `pruning` says cannot hold what is looked for. */
export function prunedSnapshot(
  options: SnapshotOptions,
  pruning: Pruning | null,
): Snapshot & { exhausted?: boolean } {
  let start: Element | null = document.body || document.documentElement;
  if (options.root) {
    start = byId(options.root);
    if (!start) return { gone: true };
  }
  const limit = nodeLimit(options);
  // A cut read stops walking once the lines max_chars shows, and the one after, are certain: a
  // page of thousands of rows is walked a tenth of the way instead of to its end (decision 0680).
  let stopAt = options.cut && !pruning
    ? Math.max(FIRST_STOP_NODES, Math.ceil(options.cut.maxChars / SHOWN_CHARS_PER_NODE))
    : Infinity;
  for (;;) {
    const walker = new Walker(options, pruning, stopAt >= limit ? Infinity : stopAt);
    if (start) walker.walkFrom(start);
    walker.flushText();
    const { nodes, frames, omitted, cutByDepth, exhausted, stopped } = walker;
    // A frame the walk could not enter is spliced in by the service: such a read is sent whole.
    const describe = (index: number) => walker.describe(index);
    const cut = options.cut && frames.length === 0
      ? cutOutline(nodes, options.cut, describe)
      : null;
    if (stopped && !cut) {
      // The nodes walked all fit (or hold a frame the service must read): walk further.
      stopAt = frames.length > 0 ? Infinity : stopAt * STOP_GROWTH;
      continue;
    }
    if (!cut) { for (let i = 0; i < nodes.length; i++) walker.describe(i); }
    return {
      token,
      url: location.href,
      title: options.untitled ? "" : redactedTitle(),
      nodes: cut ? cut.sent : nodes,
      frames,
      omitted,
      cutByDepth,
      exhausted,
      ...(cut ? { rest: { ...cut.rest, walkedToEnd: !stopped } } : {}),
    };
  }
}
