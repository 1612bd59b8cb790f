/**
 * What a receipt observes in the page around an action: a mutation counter (installed before
 * the first action, kept in this world so the page can neither see nor fake it), the element at
 * the action's point, the focused element, and after the action whether the page settled and
 * which elements changed. Elements are named by the one describer.
 *
 * @module
 */

import { redactedTitle } from "./secrets.ts";
import { type ReceiptElement, receiptElement } from "./describe.ts";

/** The counter behind receipts: mutations seen, when the last came, what they touched. */
interface Counter {
  n: number;
  t: number;
  changed: Element[];
}

/** The page before an action. */
export interface Before {
  url: string;
  title: string;
  n: number;
  el?: ReceiptElement;
  hidden: boolean;
  focus?: ReceiptElement;
}

/** The page once an action's effects settled, or the wait for that ran out. */
export interface After {
  url: string;
  title: string;
  n: number | null;
  rendered: boolean;
  settled: boolean;
  ready: string;
  focus?: ReceiptElement;
  changed: ReceiptElement[];
  hidden: boolean;
}

function counterAt(key: string): Counter | undefined {
  return (globalThis as unknown as Record<string, Counter | undefined>)[key];
}

/** The focused element, looking into shadow roots; null when nothing but the body has focus. */
function focused(): Element | null {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  return active && active !== document.body ? active : null;
}

/**
 * Notes the page before an action, installing the counter under `key` on first use (and
 * keeping up to `keep` changed elements per action); `point` names the element there.
 */
export function observeBefore(
  key: string,
  options: { point: { x: number; y: number } | null; keep: number },
): Before {
  let s = counterAt(key);
  if (!s) {
    const counter: Counter = { n: 0, t: 0, changed: [] };
    new MutationObserver((records) => {
      counter.n += records.length;
      counter.t = performance.now();
      for (const record of records) {
        if (counter.changed.length >= options.keep) break;
        const node = record.target;
        const el = node.nodeType === 1 ? node as Element : node.parentElement;
        if (el) counter.changed.push(el);
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.defineProperty(globalThis, key, { value: counter });
    s = counter;
  }
  s.changed = [];
  const at = options.point ? document.elementFromPoint(options.point.x, options.point.y) : null;
  const active = focused();
  return {
    url: location.href,
    title: redactedTitle(),
    n: s.n,
    el: receiptElement(at) || undefined,
    hidden: document.visibilityState === "hidden",
    focus: active ? receiptElement(active) || undefined : undefined,
  };
}

/**
 * Waits until the page rendered a frame and went `quietMs` without a mutation, at most `maxMs`,
 * then reports it; a page sent to the background reports at once.
 */
export function settle(key: string, options: { quietMs: number; maxMs: number }): Promise<After> {
  return new Promise((resolve) => {
    const s = counterAt(key);
    const start = performance.now();
    let rendered = false;
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        rendered = true;
      })
    );
    const done = (settled: boolean): void => {
      const active = focused();
      const focus = active ? receiptElement(active) : null;
      const seen = new Set<string>();
      const changed: ReceiptElement[] = [];
      for (const el of (s && s.changed) || []) {
        if (changed.length >= 3) break;
        if (
          !el.isConnected || el === document.body || el === document.documentElement ||
          el.closest("head, script, style")
        ) continue;
        const d = receiptElement(el);
        const id = d && d.role + "|" + d.name;
        if (!d || !d.name || seen.has(id!)) continue;
        seen.add(id!);
        changed.push(d);
      }
      resolve({
        url: location.href,
        title: redactedTitle(),
        n: s ? s.n : null,
        rendered,
        settled,
        ready: document.readyState,
        changed,
        hidden: document.hidden,
        ...(focus ? { focus } : {}),
      });
    };
    const check = (): void => {
      const now = performance.now();
      if (rendered && now - Math.max(start, s ? s.t : 0) >= options.quietMs) return done(true);
      if (now - start >= options.maxMs) return done(false);
      setTimeout(check, 25);
    };
    // A page sent to the background (the action opened a tab in front) renders no more
    // frames and its timers slow to one a second: report at once instead.
    if (document.hidden) return done(false);
    document.addEventListener("visibilitychange", () => done(false), { once: true });
    setTimeout(check, 25);
  });
}
