/**
 * Where elements are: boxes in the viewport of the outermost frame this world can reach,
 * whether they are visible and in view, scrolling them into view, and what covers them.
 *
 * @module
 */

import type { Box, FrameShown, FrameUnder } from "./contract.ts";
import { frameDocument, isHidden, viewOf } from "./dom.ts";
import { byId, idOf } from "./registry.ts";

/** The offset of a window's viewport inside the outermost window this world can reach. */
function frameOffset(win: Window): { x: number; y: number } {
  let x = 0, y = 0;
  while (true) {
    let frame: Element | null = null;
    try {
      frame = win.frameElement;
    } catch {
      frame = null;
    }
    if (!frame) break;
    const rect = frame.getBoundingClientRect();
    const style = viewOf(frame).getComputedStyle(frame);
    x += rect.left + frame.clientLeft + parseFloat(style.paddingLeft || "0");
    y += rect.top + frame.clientTop + parseFloat(style.paddingTop || "0");
    win = viewOf(frame);
  }
  return { x, y };
}

/**
 * Whether the user can see the element: it has a size, is not hidden, and is neither
 * `visibility: hidden` nor fully transparent. `rect` saves measuring twice.
 */
export function isVisible(el: Element, rect: DOMRect = el.getBoundingClientRect()): boolean {
  return rect.width > 0 && rect.height > 0 && !isHidden(el) &&
    (typeof el.checkVisibility !== "function" ||
      el.checkVisibility({ visibilityProperty: true, opacityProperty: true }));
}

/** The box of the element with this number, or null when it is gone. */
export function box(id: number): Box | null {
  const el = byId(id);
  if (!el) return null;
  const rect = el.getBoundingClientRect();
  const offset = frameOffset(viewOf(el));
  const view = viewOf(el);
  const x = rect.left + offset.x, y = rect.top + offset.y;
  // In view of its own frame and of the outermost window this world can reach; the service
  // checks the top-level viewport for frames in other origins.
  let outer = view;
  try {
    while (outer.frameElement) outer = viewOf(outer.frameElement);
  } catch {
    // A frame in another origin: its window is as far as this world reaches.
  }
  return {
    x: Math.round(x),
    y: Math.round(y),
    width: Math.round(rect.width),
    height: Math.round(rect.height),
    visible: isVisible(el, rect),
    inViewport: rect.bottom > 0 && rect.right > 0 && rect.top < view.innerHeight &&
      rect.left < view.innerWidth &&
      y + rect.height > 0 && x + rect.width > 0 && y < outer.innerHeight && x < outer.innerWidth,
  };
}

/** The boxes of several elements at once. */
export function boxes(list: number[]): (Box | null)[] {
  return list.map((id) => box(id));
}

/** Where the content of an element (an iframe) starts: inside its border and padding. */
export function contentOrigin(id: number): { x: number; y: number } | null {
  const el = byId(id);
  if (!el) return null;
  const b = box(id)!;
  const style = viewOf(el).getComputedStyle(el);
  return {
    x: b.x + el.clientLeft + parseFloat(style.paddingLeft || "0"),
    y: b.y + el.clientTop + parseFloat(style.paddingTop || "0"),
  };
}

/** Scrolls the element to the centre of the view; its box afterwards. */
export function scrollTo(id: number): Box | null {
  const el = byId(id);
  if (!el) return null;
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return box(id);
}

/**
 * What other element receives a click at the element's centre (its tag and a short label), or
 * null when the element itself does.
 */
export function coveredBy(id: number): string | null {
  const el = byId(id);
  if (!el) return null;
  const rect = el.getBoundingClientRect();
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  // Inside a shadow tree the document only sees the host: ask the element's own root.
  const root = el.getRootNode() as Partial<DocumentOrShadowRoot>;
  const hit = (root.elementFromPoint ? root as DocumentOrShadowRoot : document)
    .elementFromPoint(x, y);
  const within = (outer: Node, inner: Node): boolean => {
    for (
      let node: Node | null = inner;
      node;
      node = node.parentNode || (node as ShadowRoot).host
    ) if (node === outer) return true;
    return false;
  };
  if (!hit || within(el, hit) || within(hit, el)) return null;
  const label = (hit.getAttribute("aria-label") || (hit as HTMLElement).innerText || "").trim()
    .slice(0, 60);
  return hit.tagName.toLowerCase() + (label ? ' "' + label + '"' : "");
}

/** Most same-origin frames followed down from a point. */
const MAX_POINT_NESTING = 8;

/**
 * The frame this world cannot enter (another origin or host) that input at (`x`, `y`) of this
 * world's viewport would land in, or null when it lands in this world's documents. The service
 * decides that frame's host before any pointer input goes there (decision 0270).
 */
export function frameAt(x: number, y: number): FrameUnder | null {
  let doc: Document = document;
  let px = x, py = y;
  for (let depth = 0; depth < MAX_POINT_NESTING; depth++) {
    let el = doc.elementFromPoint(px, py);
    while (el?.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(px, py);
      if (!inner || inner === el) break;
      el = inner;
    }
    if (!el || (el.tagName !== "IFRAME" && el.tagName !== "FRAME")) return null;
    const rect = el.getBoundingClientRect();
    const style = viewOf(el).getComputedStyle(el);
    px -= rect.left + el.clientLeft + parseFloat(style.paddingLeft || "0");
    py -= rect.top + el.clientTop + parseFloat(style.paddingTop || "0");
    const inner = frameDocument(el);
    if (!inner) return { id: idOf(el), x: px, y: py };
    doc = inner;
  }
  return null;
}

/**
 * The frame this world cannot enter that has the focus (keys typed now go into it), or null when
 * the focus is in this world's documents. Its point is unused (0, 0).
 */
export function focusedFrame(): FrameUnder | null {
  let doc: Document = document;
  for (let depth = 0; depth < MAX_POINT_NESTING; depth++) {
    let el = doc.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    if (!el || (el.tagName !== "IFRAME" && el.tagName !== "FRAME")) return null;
    const inner = frameDocument(el);
    if (!inner) return { id: idOf(el), x: 0, y: 0 };
    doc = inner;
  }
  return null;
}

/** Most frames one look lists; a page with more is not listed at all (the service fails closed). */
const MAX_FRAMES_SHOWN = 64;
/** Most elements one look visits. */
const MAX_ELEMENTS_LOOKED_AT = 200_000;

/** The elements that show another document. */
export const FRAME_TAGS = new Set(["IFRAME", "FRAME", "OBJECT", "EMBED"]);

/**
 * Every frame this world cannot enter (another origin or host) with a box in the page, through
 * shadow trees and the same-origin frames this world walks in place: the service decides each on
 * its own host and paints over a refused one in any image of the page (decision 0300). Null when
 * the page has more than the bound of frames or elements, so the service refuses the image.
 */
export function framesShown(): FrameShown[] | null {
  const found: FrameShown[] = [];
  let visited = 0;
  const visit = (doc: Document, dx: number, dy: number, scale: number, depth: number): boolean => {
    const stack: Node[] = [doc];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (++visited > MAX_ELEMENTS_LOOKED_AT) return false;
      const el = node as Element;
      if (node.nodeType === 1 && FRAME_TAGS.has(el.tagName)) {
        const rect = el.getBoundingClientRect();
        if (rect.width > 0 && rect.height > 0) {
          const style = viewOf(el).getComputedStyle(el);
          const own = (el as HTMLElement).offsetWidth > 0
            ? rect.width / (el as HTMLElement).offsetWidth
            : 1;
          const originX = rect.left + (el.clientLeft + parseFloat(style.paddingLeft || "0")) * own;
          const originY = rect.top + (el.clientTop + parseFloat(style.paddingTop || "0")) * own;
          const inner = el.tagName === "IFRAME" || el.tagName === "FRAME"
            ? frameDocument(el)
            : null;
          if (inner) {
            if (depth >= MAX_POINT_NESTING) return false;
            if (!visit(inner, dx + originX * scale, dy + originY * scale, scale * own, depth + 1)) {
              return false;
            }
          } else {
            if (found.length >= MAX_FRAMES_SHOWN) return false;
            found.push({
              id: idOf(el),
              x: dx + rect.left * scale,
              y: dy + rect.top * scale,
              width: rect.width * scale,
              height: rect.height * scale,
              originX: dx + originX * scale,
              originY: dy + originY * scale,
              scale: scale * own,
            });
          }
        }
      }
      if (el.shadowRoot) stack.push(el.shadowRoot);
      for (let child = node.lastChild; child; child = child.previousSibling) {
        if (child.nodeType === 1 || child.nodeType === 9 || child.nodeType === 11) {
          stack.push(child);
        }
      }
    }
    return true;
  };
  return visit(document, 0, 0, 1, 0) ? found : null;
}
