/**
 * What `wait_for` and `act_on`'s `expect` look at in the page: whether elements matching a
 * selector and/or holding a text are present or visible, and whether the page has gone quiet.
 * Each check watches for at most one short slice and then answers, so the service decides when
 * to ask again and a cancelled wait simply asks no more.
 *
 * @module
 */

import type { WaitCheck, WaitSpec } from "./contract.ts";
import { receiptElement } from "./describe.ts";
import { isElement, isText, shownChildren } from "./dom.ts";
import { isVisible } from "./geometry.ts";
import { clean, SKIP } from "./text.ts";

/** How often a slice looks again. */
const LOOK_EVERY_MS = 50;
/** Most matches counted; the answer only needs to know there are some. */
const MAX_MATCHES = 50;

function folded(text: string | null | undefined): string {
  return clean(text).toLowerCase();
}

/** The text under a node as the page shows it: scripts and styles left out, shadow roots in. */
function shownText(node: Node): string {
  if (isText(node)) return node.data;
  if (isElement(node) && SKIP.has(node.tagName)) return "";
  let text = "";
  for (const child of shownChildren(node)) text += shownText(child);
  return text;
}

/** The elements whose own text holds `needle`, in document order, through open shadow roots. */
function elementsWithText(needle: string): Element[] {
  const found: Element[] = [];
  const visit = (node: Node, parent: Element | null): void => {
    if (found.length >= MAX_MATCHES) return;
    if (isText(node)) {
      if (parent && folded(node.data).includes(needle) && !found.includes(parent)) {
        found.push(parent);
      }
      return;
    }
    if (isElement(node) && SKIP.has(node.tagName)) return;
    const owner = isElement(node) ? node : parent;
    for (const child of shownChildren(node)) visit(child, owner);
  };
  if (document.body) visit(document.body, null);
  if (found.length > 0 || !document.body) return found;
  // Text split over several elements ("Order <b>confirmed</b>"): the innermost holding it all.
  return innermostHolding(document.body, needle);
}

function innermostHolding(root: Element, needle: string): Element[] {
  if (!folded(shownText(root)).includes(needle)) return [];
  const inner = Array.from(root.children)
    .filter((child) => !SKIP.has(child.tagName))
    .flatMap((child) => innermostHolding(child, needle));
  return inner.length > 0 ? inner.slice(0, MAX_MATCHES) : [root];
}

/** The elements the spec names, or null for a selector the browser cannot parse. */
function matches(spec: WaitSpec): Element[] | null {
  const needle = spec.text === undefined ? "" : folded(spec.text);
  if (spec.selector === undefined) return elementsWithText(needle);
  let selected: Element[];
  try {
    selected = Array.from(document.querySelectorAll(spec.selector)).slice(0, MAX_MATCHES * 4);
  } catch {
    return null;
  }
  return needle === ""
    ? selected
    : selected.filter((el) =>
      folded((el as HTMLElement).innerText ?? el.textContent)
        .includes(needle)
    );
}

/** Whether the spec holds now. */
function look(spec: WaitSpec): WaitCheck {
  const found = matches(spec);
  if (found === null) return { error: "bad_selector" };
  const shown = found.filter((el) => isVisible(el));
  const met = spec.state === "present"
    ? found.length > 0
    : spec.state === "visible"
    ? shown.length > 0
    : shown.length === 0;
  const first = receiptElement(shown[0] ?? found[0] ?? null);
  return {
    met,
    present: found.length,
    visible: shown.length,
    ...(first ? { first } : {}),
  };
}

/** Checks the spec now and keeps looking for up to `sliceMs`; answers once it holds. */
export function waitCheck(spec: WaitSpec, sliceMs: number): Promise<WaitCheck> {
  return new Promise((resolve) => {
    const start = performance.now();
    const tick = (): void => {
      const now = look(spec);
      if ("error" in now || now.met || performance.now() - start >= sliceMs) resolve(now);
      else setTimeout(tick, LOOK_EVERY_MS);
    };
    tick();
  });
}

/**
 * Watches the document's mutations for up to `sliceMs` and answers as soon as it has been quiet
 * for `quietMs`: `quiet` says whether it was, `mutations` how many it saw.
 */
export function quietCheck(
  quietMs: number,
  sliceMs: number,
): Promise<{ quiet: boolean; mutations: number }> {
  return new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    let mutations = 0;
    const observer = new MutationObserver((records) => {
      mutations += records.length;
      last = performance.now();
    });
    observer.observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    const tick = (): void => {
      const now = performance.now();
      const quiet = now - last >= quietMs;
      if (quiet || now - start >= sliceMs) {
        observer.disconnect();
        resolve({ quiet, mutations });
      } else setTimeout(tick, LOOK_EVERY_MS);
    };
    setTimeout(tick, LOOK_EVERY_MS);
  });
}
