/**
 * Small facts about DOM nodes that every part of the page runtime asks: what kind of node it is,
 * which window and root it belongs to, whether it is hidden. Elements from same-origin frames
 * come from other realms, so kinds are told by `nodeType` and `tagName`, never by `instanceof`.
 *
 * @module
 */

/** A root elements are looked up in: a document, a shadow root, or a detached subtree's top. */
export type Root = Node & Partial<Pick<Document, "getElementById" | "querySelectorAll">>;

/** Whether the node is an element. */
export function isElement(node: Node): node is Element {
  return node.nodeType === 1;
}

/** Whether the node is a text node. */
export function isText(node: Node): node is Text {
  return node.nodeType === 3;
}

/** The window the element lives in (its own frame's, not necessarily this world's). */
export function viewOf(el: Element): Window {
  return el.ownerDocument.defaultView!;
}

/** The root the element's ids and labels are looked up in. */
export function rootOf(el: Element): Root {
  return el.getRootNode();
}

/**
 * The document a frame element shows, or null when it is in another origin or on another host
 * (a page that relaxed `document.domain` shares its document with a sibling host): such a frame
 * is read through its own world, where the policy decides its host on its own (decision 0270).
 */
export function frameDocument(el: Element): Document | null {
  let doc: Document | null;
  try {
    doc = (el as HTMLIFrameElement).contentDocument || null;
  } catch {
    return null;
  }
  const host = doc?.location?.hostname ?? "";
  return doc && (host === "" || host === el.ownerDocument.location.hostname) ? doc : null;
}

/** Whether the element is hidden from the user (by attribute, style or an ancestor). */
export function isHidden(el: Element): boolean {
  if ((el as HTMLElement).hidden || el.getAttribute("aria-hidden") === "true") return true;
  if (typeof el.checkVisibility === "function" && !el.checkVisibility()) {
    // display: contents (slots, framework wrappers) has no box of its own but shows its children.
    return viewOf(el).getComputedStyle(el).display !== "contents";
  }
  return false;
}

/**
 * The one options object every visibility look passes: no new object per element, and no
 * prototype, so the browser's reading of the options it does not set ends at the object instead
 * of searching `Object.prototype` for each (a quarter of the look; decision 0600).
 */
const VISIBILITY_PROPERTY: CheckVisibilityOptions = Object.freeze(
  Object.assign(Object.create(null), { visibilityProperty: true }),
);

/**
 * What the walk needs to know of an element's visibility, in one style look for the common case:
 * `hidden` as {@linkcode isHidden} says, `invisible` when only `visibility: hidden` hides it (a
 * child may be visible again), else `shown`. A walk of a page of thousands of rows asked the
 * browser three times per element before (decision 0371). `attributed` false says the element
 * has no attributes (`hasAttributes`), so neither `hidden` nor `aria-hidden` is asked.
 */
export function visibilityOf(el: Element, attributed = true): "hidden" | "invisible" | "shown" {
  if (attributed && ((el as HTMLElement).hidden || el.getAttribute("aria-hidden") === "true")) {
    return "hidden";
  }
  if (typeof el.checkVisibility !== "function") return "shown";
  if (el.checkVisibility(VISIBILITY_PROPERTY)) return "shown";
  if (el.checkVisibility()) return "invisible";
  // display: contents (slots, framework wrappers) has no box of its own but shows its children.
  return viewOf(el).getComputedStyle(el).display === "contents" ? "shown" : "hidden";
}

/**
 * The names of the elements that may have a shadow root: the DOM's valid shadow host names (as
 * `tagName` gives them in an HTML document and in an XML one); a custom element's name holds a
 * hyphen. Any other element cannot have one (`attachShadow` throws, declarative shadow roots
 * are not attached), so its `shadowRoot` need not be asked: on a page of thousands of rows,
 * cells and buttons, a call into the browser per element and walk (decision 0600).
 */
const SHADOW_HOSTS: ReadonlySet<string> = new Set(
  [
    "article",
    "aside",
    "blockquote",
    "body",
    "div",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "main",
    "nav",
    "p",
    "section",
    "span",
  ].flatMap((name) => [name, name.toUpperCase()]),
);

/** Whether an element named `tag` (its `tagName` or `localName`) may have a shadow root. */
export function mayHostShadow(tag: string): boolean {
  return SHADOW_HOSTS.has(tag) || tag.includes("-");
}

/** The element's open shadow root, asked only where there may be one; `tag` its `tagName`. */
export function shadowOf(el: Element, tag: string): ShadowRoot | null {
  return mayHostShadow(tag) ? el.shadowRoot : null;
}

/** The nodes a node shows: its shadow tree's, a slot's assigned ones, or its children. */
export function shownChildren(node: Node): Iterable<Node> {
  const el = node as Element;
  if (el.shadowRoot) return el.shadowRoot.childNodes;
  if (el.tagName === "SLOT") {
    const assigned = (el as HTMLSlotElement).assignedNodes();
    if (assigned.length) return assigned;
  }
  return node.childNodes;
}

/**
 * Whether the element is an SVG image's root, however the document cases its name; asked of
 * every element a walk meets, so without making a lower-case copy of each name.
 */
export function isSvg(el: Element): boolean {
  return isSvgName(el.tagName);
}

/** {@linkcode isSvg} of an element whose `tagName` the caller has read already. */
export function isSvgName(tag: string): boolean {
  // Most three-letter names (DIV, NAV) are told apart by their first letter, with no copy.
  return tag.length === 3 && (tag.charCodeAt(0) | 32) === 115 && tag.toLowerCase() === "svg";
}
