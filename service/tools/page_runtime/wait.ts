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
import { frameDocument, isElement, isText, shownChildren } from "./dom.ts";
import { FRAME_TAGS, isVisible } from "./geometry.ts";
import { clean, SKIP } from "./text.ts";

/** How often a slice looks again. */
const LOOK_EVERY_MS = 50;
/** Most matches counted; the answer only needs to know there are some. */
const MAX_MATCHES = 50;

function folded(text: string | null | undefined): string {
  return clean(text).toLowerCase();
}

/**
 * The documents this world reads in place: the page's and those of the frames it can enter
 * (same host), nested, in document order; the others the service asks in their own worlds.
 */
function documentsShown(): Document[] {
  const docs: Document[] = [];
  const visit = (doc: Document): void => {
    docs.push(doc);
    for (const el of Array.from(doc.querySelectorAll("iframe, frame"))) {
      if (docs.length >= MAX_DOCUMENTS) return;
      const inner = FRAME_TAGS.has(el.tagName) ? frameDocument(el) : null;
      if (inner) visit(inner);
    }
  };
  visit(document);
  return docs;
}

/** Most documents one look reads (the page and its same-host frames). */
const MAX_DOCUMENTS = 24;

/** The text under a node as the page shows it: scripts and styles left out, shadow roots in. */
function shownText(node: Node): string {
  if (isText(node)) return node.data;
  if (isElement(node) && SKIP.has(node.tagName)) return "";
  let text = "";
  for (const child of shownChildren(node)) text += shownText(child);
  return text;
}

/**
 * The elements whose own text holds `needle`, in document order, through open shadow roots,
 * in the page and the frames this world reads in place.
 */
function elementsWithText(needle: string): Element[] {
  const found: Element[] = [];
  for (const doc of documentsShown()) {
    if (found.length >= MAX_MATCHES) break;
    if (doc.body) found.push(...elementsIn(doc.body, needle).slice(0, MAX_MATCHES - found.length));
  }
  return found;
}

/** The elements under `body` whose own text holds `needle`. */
function elementsIn(body: HTMLElement, needle: string): Element[] {
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
  visit(body, null);
  if (found.length > 0) return found;
  // Text split over several elements ("Order <b>confirmed</b>"): the innermost holding it all.
  return innermostHolding(body, needle);
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
  const selected: Element[] = [];
  try {
    for (const doc of documentsShown()) {
      const left = MAX_MATCHES * 4 - selected.length;
      if (left <= 0) break;
      selected.push(...Array.from(doc.querySelectorAll(spec.selector!)).slice(0, left));
    }
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
