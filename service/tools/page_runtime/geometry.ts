/**
 * Where elements are: boxes in the viewport of the outermost frame this world can reach,
 * whether they are visible and in view, scrolling them into view, and what covers them.
 *
 * @module
 */

import type { Aim, Box, FrameShown, FrameUnder, Point } from "./contract.ts";
import { frameDocument, isHidden, viewOf } from "./dom.ts";
import { byId, idOf } from "./registry.ts";

/** A CSS transform's linear part, as DOMMatrix names it: (x, y) maps to (ax + cy, bx + dy). */
interface Linear {
  a: number;
  b: number;
  c: number;
  d: number;
}

const IDENTITY: Linear = { a: 1, b: 0, c: 0, d: 1 };

function times(m: Linear, n: Linear): Linear {
  return {
    a: m.a * n.a + m.c * n.b,
    b: m.b * n.a + m.d * n.b,
    c: m.a * n.c + m.c * n.d,
    d: m.b * n.c + m.d * n.d,
  };
}

/** The linear part of one element's own transform (`rotate`, `scale`, then `transform`). */
function ownLinear(el: Element): Linear {
  const style = viewOf(el).getComputedStyle(el);
  let m = IDENTITY;
  const rotate = /^(-?[\d.]+)deg$/.exec(style.rotate || "");
  if (rotate) {
    const r = parseFloat(rotate[1]) * Math.PI / 180;
    m = times(m, { a: Math.cos(r), b: Math.sin(r), c: -Math.sin(r), d: Math.cos(r) });
  }
  if (style.scale && style.scale !== "none") {
    const [sx, sy] = style.scale.split(" ").map(parseFloat);
    if (Number.isFinite(sx)) m = times(m, { a: sx, b: 0, c: 0, d: Number.isFinite(sy) ? sy : sx });
  }
  if (style.transform && style.transform !== "none") {
    try {
      const t = new DOMMatrix(style.transform);
      m = times(m, { a: t.a, b: t.b, c: t.c, d: t.d });
    } catch {
      // A transform DOMMatrix cannot read: taken as none.
    }
  }
  return m;
}

/**
 * The linear part of every transform that applies to the element in its own document: its own
 * and its ancestors' through shadow hosts, the outermost first.
 */
function linearOf(el: Element): Linear {
  let m = IDENTITY;
  for (let node: Node | null = el; node && node.nodeType === 1;) {
    m = times(ownLinear(node as Element), m);
    node = node.parentNode && node.parentNode.nodeType === 11
      ? (node.parentNode as ShadowRoot).host
      : node.parentNode;
  }
  return m;
}

/**
 * How a frame element maps points of the viewport it shows to its own window's viewport: the
 * centre of its border box (where its bounding box's centre is, however it is turned or scaled)
 * and the linear part of the transforms that apply to it. Exact for 2D transforms.
 */
interface FrameMap {
  centre: Point;
  half: Point;
  inset: Point;
  linear: Linear;
}

function frameMap(frame: Element): FrameMap {
  const rect = frame.getBoundingClientRect();
  const style = viewOf(frame).getComputedStyle(frame);
  const html = frame as HTMLElement;
  return {
    centre: { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 },
    half: { x: html.offsetWidth / 2, y: html.offsetHeight / 2 },
    inset: {
      x: frame.clientLeft + parseFloat(style.paddingLeft || "0"),
      y: frame.clientTop + parseFloat(style.paddingTop || "0"),
    },
    linear: linearOf(frame),
  };
}

/** A point of the viewport `frame` shows, in the viewport of the window `frame` is in. */
function outOf(frame: Element, p: Point): Point {
  const { centre, half, inset, linear: m } = frameMap(frame);
  const x = inset.x + p.x - half.x, y = inset.y + p.y - half.y;
  return { x: centre.x + m.a * x + m.c * y, y: centre.y + m.b * x + m.d * y };
}

/** A point of the viewport of the window `frame` is in, in the viewport `frame` shows. */
function into(frame: Element, p: Point): Point | null {
  const { centre, half, inset, linear: m } = frameMap(frame);
  const det = m.a * m.d - m.b * m.c;
  if (Math.abs(det) < 1e-9) return null;
  const x = p.x - centre.x, y = p.y - centre.y;
  return {
    x: (m.d * x - m.c * y) / det + half.x - inset.x,
    y: (-m.b * x + m.a * y) / det + half.y - inset.y,
  };
}

function inView(win: Window, p: Point): boolean {
  return p.x >= 0 && p.y >= 0 && p.x < win.innerWidth && p.y < win.innerHeight;
}

/** The frame element showing `win`, or null at the outermost window this world can reach. */
function frameOf(win: Window): Element | null {
  try {
    return win.frameElement;
  } catch {
    return null;
  }
}

/**
 * Whether an element is drawn in perspective: it or an ancestor in its document has a 3D
 * transform that a perspective makes projective (its own `perspective()`, or its parent's
 * `perspective` property). The linear maps here are exact only without one.
 */
function projective(el: Element): boolean {
  for (let node: Node | null = el; node && node.nodeType === 1;) {
    const element = node as Element;
    const style = viewOf(element).getComputedStyle(element);
    if (style.transform && style.transform !== "none") {
      try {
        const t = new DOMMatrix(style.transform);
        const parent = element.parentElement;
        if (
          !t.is2D && (t.m14 !== 0 || t.m24 !== 0 || t.m34 !== 0 ||
            (parent !== null && viewOf(parent).getComputedStyle(parent).perspective !== "none"))
        ) return true;
      } catch {
        // A transform DOMMatrix cannot read: taken as none, as ownLinear does.
      }
    }
    node = node.parentNode && node.parentNode.nodeType === 11
      ? (node.parentNode as ShadowRoot).host
      : node.parentNode;
  }
  return false;
}

/** Whether a frame on the way from `win` to the outermost reachable window is in perspective. */
function tiltedOnTheWay(win: Window): boolean {
  for (let frame = frameOf(win); frame; frame = frameOf(viewOf(frame))) {
    if (projective(frame)) return true;
  }
  return false;
}

/**
 * A point of `win`'s viewport in the viewport of the outermost window this world can reach, and
 * whether it lies inside every viewport on the way.
 */
function toOuter(win: Window, p: Point): { point: Point; shown: boolean } {
  let shown = inView(win, p);
  for (let frame = frameOf(win); frame; frame = frameOf(win)) {
    p = outOf(frame, p);
    win = viewOf(frame);
    shown = shown && inView(win, p);
  }
  return { point: p, shown };
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
  const view = viewOf(el);
  // Its corners through every frame's transform: the box that holds them, in the outermost
  // window this world can reach (the service checks the top-level viewport for frames in other
  // origins).
  let outer = view;
  while (frameOf(outer)) outer = viewOf(frameOf(outer)!);
  const corners = [[rect.left, rect.top], [rect.right, rect.top], [rect.left, rect.bottom], [
    rect.right,
    rect.bottom,
  ]].map(([x, y]) => toOuter(view, { x, y }).point);
  const xs = corners.map((p) => p.x), ys = corners.map((p) => p.y);
  const x = Math.min(...xs), y = Math.min(...ys);
  const width = Math.max(...xs) - x, height = Math.max(...ys) - y;
  return {
    x: Math.round(x),
    y: Math.round(y),
    width: Math.round(width),
    height: Math.round(height),
    visible: isVisible(el, rect),
    inViewport: rect.bottom > 0 && rect.right > 0 && rect.top < view.innerHeight &&
      rect.left < view.innerWidth &&
      y + height > 0 && x + width > 0 && y < outer.innerHeight && x < outer.innerWidth,
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
  return toOuter(viewOf(el), outOf(el, { x: 0, y: 0 })).point;
}

/** Scrolls the element to the centre of the view; its box afterwards. */
export function scrollTo(id: number): Box | null {
  const el = byId(id);
  if (!el) return null;
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return box(id);
}

/** The outermost window this world can reach. */
function outermost(): Window {
  let win: Window = window;
  for (let frame = frameOf(win); frame; frame = frameOf(win)) win = viewOf(frame);
  return win;
}

/** The deepest element at a point of `root`'s viewport, through open shadow roots. */
function deepAt(root: DocumentOrShadowRoot, p: Point): Element | null {
  let el = root.elementFromPoint(p.x, p.y);
  while (el?.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(p.x, p.y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/** Most same-origin frames followed down from a point. */
const MAX_POINT_NESTING = 8;

/**
 * What input at `p` of the outermost reachable viewport would reach: the deepest element there,
 * followed into same-origin frames through their transforms; a frame this world cannot enter is
 * itself the answer, with the point inside it.
 */
function hitAt(p: Point): { el: Element | null; inner: Point | null } {
  let doc = outermost().document;
  for (let depth = 0; depth < MAX_POINT_NESTING; depth++) {
    const el = deepAt(doc, p);
    if (!el || (el.tagName !== "IFRAME" && el.tagName !== "FRAME")) return { el, inner: null };
    const inner = into(el, p);
    if (!inner) return { el, inner: null };
    const shown = frameDocument(el);
    if (!shown) return { el, inner };
    if (!inView(shown.defaultView!, inner)) return { el, inner: null };
    doc = shown;
    p = inner;
  }
  return { el: null, inner: null };
}

/** Whether `inner` is `outer` or inside it, through shadow hosts. */
function within(outer: Node, inner: Node): boolean {
  for (let node: Node | null = inner; node; node = node.parentNode || (node as ShadowRoot).host) {
    if (node === outer) return true;
  }
  return false;
}

/** Whether input reaching `hit` reaches `el`: it is `el`, inside it, or the list showing an option. */
function reaches(el: Element, hit: Element): boolean {
  if (within(el, hit)) return true;
  // A list box's options are drawn by the list itself: a hit test finds the select.
  return (el.tagName === "OPTION" || el.tagName === "OPTGROUP") && hit.tagName === "SELECT" &&
    within(hit, el);
}

/** An element as a blocker names what input reached: its tag and a short label. */
function named(el: Element): string {
  const label = (el.getAttribute("aria-label") || (el as HTMLElement).innerText || "").trim()
    .slice(0, 60);
  return el.tagName.toLowerCase() + (label ? ' "' + label + '"' : "");
}

/** Most boxes of one element aimed at (a link broken over many lines has one per line). */
const MAX_AIM_RECTS = 16;
/** Points tried across each box, per side, after its centre. */
const AIM_GRID = 5;

/** A rectangle as its edges. */
interface Edges {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * What of its window an element's ancestors let show: the window, cut by every ancestor that
 * clips what overflows it (a scrolled list, a list box's rows), through shadow hosts.
 */
function clipOf(el: Element): Edges {
  const win = viewOf(el);
  const clip = { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight };
  for (let node: Node | null = el.parentNode; node;) {
    if (node.nodeType === 1) {
      const ancestor = node as Element;
      const style = win.getComputedStyle(ancestor);
      const clips = ancestor.tagName === "SELECT" || style.overflowX !== "visible" ||
        style.overflowY !== "visible";
      if (clips && ancestor !== ancestor.ownerDocument.documentElement) {
        const r = ancestor.getBoundingClientRect();
        clip.left = Math.max(clip.left, r.left);
        clip.top = Math.max(clip.top, r.top);
        clip.right = Math.min(clip.right, r.right);
        clip.bottom = Math.min(clip.bottom, r.bottom);
      }
    }
    node = node.nodeType === 11 ? (node as ShadowRoot).host : node.parentNode;
  }
  return clip;
}

/** The points tried in one of an element's boxes, cut to what shows of it: the centre first. */
function candidates(rect: DOMRect, clip: Edges): Point[] {
  const left = Math.max(rect.left, clip.left), top = Math.max(rect.top, clip.top);
  const right = Math.min(rect.right, clip.right), bottom = Math.min(rect.bottom, clip.bottom);
  if (right <= left || bottom <= top) return [];
  const points = [{ x: (left + right) / 2, y: (top + bottom) / 2 }];
  for (let i = 0; i < AIM_GRID; i++) {
    for (let j = 0; j < AIM_GRID; j++) {
      points.push({
        x: left + (right - left) * (j + 0.5) / AIM_GRID,
        y: top + (bottom - top) * (i + 0.5) / AIM_GRID,
      });
    }
  }
  return points;
}

/** Where a pointer aims at an element now, and the element a hit test found there instead. */
type Aimed = Aim & { found: Element | null };

/**
 * Where a pointer action on `el` lands as the page is now: the first point of its own boxes
 * (the centre of each first) that lies inside every viewport on the way up and where a hit test
 * finds the element or something inside it. When none does, the first point in view and what is
 * there instead; `point` null when no part of it is in view. `clipped` false looks in the whole
 * window, not only where its ancestors let it show.
 */
function aimNow(el: Element, clipped = true): Aimed {
  const win = viewOf(el);
  // A frame in perspective maps its points projectively: no point is computed rather than a
  // wrong one that the same wrong map would then confirm (decision 0490).
  if (tiltedOnTheWay(win)) {
    return { point: null, hit: null, around: false, found: null, tilted: true };
  }
  const rects = Array.from(el.getClientRects()).filter((r) => r.width > 0 && r.height > 0)
    .slice(0, MAX_AIM_RECTS);
  const clip = clipped
    ? clipOf(el)
    : { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight };
  let missed: Aimed | null = null;
  for (const rect of rects) {
    for (const p of candidates(rect, clip)) {
      const { point, shown } = toOuter(win, p);
      if (!shown) continue;
      const hit = hitAt(point).el;
      if (hit && reaches(el, hit)) return { point, hit: null, around: false, found: null };
      missed ??= {
        point,
        hit: hit ? named(hit) : "nothing",
        around: hit !== null && within(hit, el),
        found: hit,
      };
    }
  }
  return missed ?? { point: null, hit: null, around: false, found: null };
}

/** Whether the element, or one holding it, stays put when the page scrolls (fixed or sticky). */
function stuck(el: Element): boolean {
  for (let node: Element | null = el; node; node = node.parentElement) {
    const position = viewOf(node).getComputedStyle(node).position;
    if (position === "fixed" || position === "sticky") return true;
  }
  return false;
}

/** Whether scrolling could help a pointer reach the element: none of it in view, or a header on it. */
function scrollHelps(aimed: Aimed): boolean {
  return !aimed.point || (aimed.found !== null && !aimed.around && stuck(aimed.found));
}

/** How an element is scrolled to, in turn, while a pointer aimed at it finds something else. */
const SCROLLS: ScrollLogicalPosition[] = ["center", "end", "start"];

/**
 * Where a pointer action on the element with this number lands. The page is scrolled only when
 * that can help (no part of the element is in view, or a fixed or sticky element lies on it):
 * centred first, then at the end and the start of the view, so a header or footer is scrolled
 * clear; when no way reaches it, it is left centred and the answer says what is hit instead. A
 * page that moves under a target the pointer reaches would invalidate the model's screenshot.
 * `still` never scrolls: where the pointer lands now, with `scrollHelps` when scrolling could
 * help, so the aim changes nothing on the page (a read, decision 0780). Null when the element is
 * gone.
 */
export function aim(id: number, still = false): Aim | null {
  const el = byId(id);
  if (!el) return null;
  let aimed = aimNow(el);
  if (aimed.tilted || !scrollHelps(aimed)) return plain(aimed);
  if (still) return { ...plain(aimed), scrollHelps: true };
  for (const block of SCROLLS) {
    el.scrollIntoView({ block, inline: block, behavior: "instant" });
    aimed = aimNow(el);
    if (aimed.point && !aimed.hit) return plain(aimed);
  }
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  aimed = aimNow(el);
  // A fixed element escapes the ancestors that clip: when nothing of the element shows inside
  // them, the hit test alone decides.
  return plain(aimed.point ? aimed : aimNow(el, false));
}

/** An aim as the runtime answers it (no element: answers cross into the service as JSON). */
function plain({ point, hit, around, tilted }: Aimed): Aim {
  return { point, hit, around, ...(tilted ? { tilted } : {}) };
}

/**
 * What other element receives a click where a pointer aims at the element (its tag and a short
 * label), or null when the element itself does.
 */
export function coveredBy(id: number): string | null {
  const el = byId(id);
  return el ? aimNow(el).hit : null;
}

/**
 * The frame this world cannot enter (another origin or host) that input at (`x`, `y`) of this
 * world's viewport would land in, or null when it lands in this world's documents. The service
 * decides that frame's host before any pointer input goes there (decision 0270).
 */
export function frameAt(x: number, y: number): FrameUnder | null {
  const { el, inner } = hitAt({ x, y });
  if (!el || !inner || (el.tagName !== "IFRAME" && el.tagName !== "FRAME")) return null;
  return frameDocument(el) ? null : { id: idOf(el), x: inner.x, y: inner.y };
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
