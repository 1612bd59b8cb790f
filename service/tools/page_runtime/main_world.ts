/**
 * Functions that run in the page's main world rather than in Ghostlight's world: on an object
 * the agent's script returned (which lives there), or where reading the page must not create
 * Ghostlight's world. The service sends each as source (`deno task build:page` copies them into
 * the generated bundle module), so each must use nothing from its surroundings: no imports, no
 * module constants, only its arguments and the page's globals.
 *
 * @module
 */

import type { MainWorldFunctions, ScrollProbe } from "./contract.ts";

/**
 * Runs on the value of the agent's script (`this`): a bounded, cycle-safe copy that JSON can
 * carry, nodes and other host objects described in a few words.
 */
export function serialize(this: unknown): unknown {
  const seen = new WeakSet<object>();
  let budget = 5000;
  const describeNode = (n: Node): string => {
    if (n.nodeType === 1) {
      const el = n as Element;
      let s = "<" + el.tagName.toLowerCase();
      if (el.id) s += ' id="' + el.id + '"';
      if (typeof el.className === "string" && el.className) {
        s += ' class="' + el.className.slice(0, 80) + '"';
      }
      const text = (el.textContent || "").replace(/\s+/g, " ").trim();
      return s + ">" + (text.length > 80 ? text.slice(0, 80) + "…" : text);
    }
    if (n.nodeType === 3) return "#text " + JSON.stringify((n as Text).data.slice(0, 80));
    return n.nodeName;
  };
  const ser = (v: unknown, depth: number): unknown => {
    if (--budget < 0) return "…";
    if (v === undefined) return "[undefined]";
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
    if (typeof v === "bigint") return v.toString() + "n";
    if (typeof v === "symbol") return v.toString();
    if (typeof v === "function") return "[function " + (v.name || "anonymous") + "]";
    if (typeof Node !== "undefined" && v instanceof Node) return describeNode(v);
    const object = v as Record<string, unknown>;
    if (seen.has(object)) return "[circular]";
    if (depth > 8) return "[…]";
    seen.add(object);
    if (v instanceof Error) return { error: v.name, message: v.message };
    if (v instanceof Date) return isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return v.toString();
    if (v instanceof Map) {
      return {
        "[Map]": Array.from(v.entries()).slice(0, 200).map((
          [k, x],
        ) => [ser(k, depth + 1), ser(x, depth + 1)]),
      };
    }
    if (v instanceof Set) {
      return { "[Set]": Array.from(v).slice(0, 200).map((x) => ser(x, depth + 1)) };
    }
    if (
      Array.isArray(v) || (typeof NodeList !== "undefined" && v instanceof NodeList) ||
      (typeof HTMLCollection !== "undefined" && v instanceof HTMLCollection) ||
      ArrayBuffer.isView(v)
    ) {
      const list = v as ArrayLike<unknown>;
      const items = Array.from(list).slice(0, 500).map((x) => ser(x, depth + 1));
      if (list.length > 500) items.push("… " + (list.length - 500) + " more");
      return items;
    }
    const out: Record<string, unknown> = {};
    let count = 0;
    for (const key in object) {
      if (count++ >= 200) {
        out["…"] = "more keys";
        break;
      }
      try {
        out[key] = ser(object[key], depth + 1);
      } catch {
        out[key] = "[throws]";
      }
    }
    return out;
  };
  return ser(this, 0);
}

/**
 * Where the page and the inner scroller under a point (CSS pixels; the viewport's centre when
 * null) stand, to tell afterwards what a scroll moved.
 */
export function scrollProbe(point: { x: number; y: number } | null): ScrollProbe {
  let el = point
    ? document.elementFromPoint(point.x, point.y)
    : document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  while (el && el !== document.body && el !== document.documentElement) {
    const style = getComputedStyle(el);
    const scrolls = /(auto|scroll)/.test(style.overflowY + style.overflowX) &&
      (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth);
    if (scrolls) break;
    el = el.parentElement;
  }
  const inner = el && el !== document.body && el !== document.documentElement ? el : null;
  const name = inner &&
    (inner.getAttribute("aria-label") || inner.id || inner.tagName.toLowerCase());
  return {
    page: [Math.round(scrollX), Math.round(scrollY)],
    hidden: document.hidden,
    centre: [innerWidth / 2, innerHeight / 2],
    inner: inner
      ? { name: name!, at: [Math.round(inner.scrollLeft), Math.round(inner.scrollTop)] }
      : null,
  };
}

/** Resolves with the page's scroll position once it held still for three frames (≤ 600 ms). */
export function scrollSettled(): Promise<[number, number]> {
  return new Promise((resolve) => {
    const start = performance.now();
    setTimeout(() => resolve([Math.round(scrollX), Math.round(scrollY)]), 700);
    let last = "", still = 0;
    const tick = (): void => {
      const now = scrollX + "," + scrollY;
      still = now === last ? still + 1 : 0;
      last = now;
      if (still >= 3 || performance.now() - start > 600) {
        resolve([Math.round(scrollX), Math.round(scrollY)]);
      } else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Whether the page is hidden (its tab in the background); only used to bring it forward. */
export function pageHidden(): boolean {
  return document.hidden;
}

/** How far the document has loaded: `loading`, `interactive` or `complete`. */
export function readyState(): DocumentReadyState {
  return document.readyState;
}

/** The window's outer size and the page's viewport, in CSS pixels. */
export function windowSize(): [number, number, number, number] {
  return [outerWidth, outerHeight, innerWidth, innerHeight];
}

/**
 * The window's outer size and the page's viewport, as {@linkcode windowSize}, once the viewport
 * is no longer `from` (looked at each frame) or `maxMs` passed: a resize is answered by the
 * browser before the page is laid out at the new size.
 */
export function windowSizeOnceMoved(
  from: [number, number],
  maxMs: number,
): Promise<[number, number, number, number]> {
  return new Promise((resolve) => {
    const done = (): void => resolve([outerWidth, outerHeight, innerWidth, innerHeight]);
    const bound = setTimeout(done, maxMs);
    const look = (): void => {
      if (innerWidth === from[0] && innerHeight === from[1]) requestAnimationFrame(look);
      else {
        clearTimeout(bound);
        done();
      }
    };
    look();
  });
}

/**
 * The document, when the focused element (looking into shadow roots) takes typed text: a text
 * field, a textarea or an editable element; null otherwise (a button, a select, a frame).
 * Evaluated without returning by value, so the service can ask which key listeners it holds.
 */
export function textTarget(): Document | null {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  if (!active || active === document.body) return null;
  const tag = active.tagName;
  const textual = tag === "TEXTAREA" ||
    (tag === "INPUT" &&
      /^(text|search|email|url|tel|password|number)$/.test((active as HTMLInputElement).type)) ||
    (active as HTMLElement).isContentEditable;
  return textual ? document : null;
}

/** The page's window, as an object the service can ask about its listeners. */
export function pageWindow(): Window {
  return window;
}

/** The functions above, held to the contract's `MainWorldFunctions` (never sent: not a function). */
export const CHECKED: MainWorldFunctions = {
  serialize,
  scrollProbe,
  scrollSettled,
  pageHidden,
  readyState,
  windowSize,
  windowSizeOnceMoved,
  textTarget,
  pageWindow,
};
