/**
 * The element registry behind refs: every element Ghostlight hands out gets a number that stays
 * its own for as long as the element lives in this world. The token changes with every new world
 * (a navigation, a fresh world), so the service recognises numbers from an older registry as gone.
 *
 * @module
 */

function newToken(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** This registry's token: random, new in every world and each document it follows (`follow`). */
export let token: string = newToken();

const ids = new WeakMap<Element, number>();
const elements = new Map<number, WeakRef<Element>>();
let nextId = 1;
// Dead entries are swept when the registry reaches this size; if most are alive, the next
// sweep waits until it has doubled, so a huge page never sweeps on every new element.
let sweepAt = 200000;

let home: Document | null = null;
let hidden = false;
/** What parts of the runtime bind to the document (observers), bound again to each new one. */
const bindings: (() => void)[] = [];

/**
 * Binds this world to the document it was made for, when the runtime is installed: a world kept
 * alive with its document in the back/forward cache must not act on the page the frame shows now.
 */
export function adopt(): void {
  home = document;
  // Only the browser's own events: a page can dispatch a `pagehide` of its own, and would then
  // have every read that the runtime vouches for go the slow way, and `form_fill` refused. These
  // listeners are the window's, so they stay with a window that takes another document.
  addEventListener("pagehide", (event) => {
    if (event.isTrusted && (event as PageTransitionEvent).persisted) hidden = true;
  });
  addEventListener("pageshow", (event) => {
    if (event.isTrusted) hidden = false;
  });
  // A window that took another document hears its parse end: the observers bind to it then, if
  // no call from the service came first (see `follow`).
  addEventListener("DOMContentLoaded", (event) => {
    if (event.isTrusted) follow();
  }, true);
}

/** Runs `bind` for this world's document now, and again for each document its window takes. */
export function bindToDocument(bind: () => void): void {
  bindings.push(bind);
  bind();
}

/**
 * Moves this world to the document its window shows now, when that is another than the one it
 * was installed in (decision 0720). Chromium keeps a window, and this world with it, when the
 * window's initial blank document is replaced by one of the same origin (the HTML standard's
 * rule, a popup's first page), and runs no new-document script for the new one: this runtime is
 * the new document's, and said "not current" of it for good until it followed. Each call from
 * the service follows first. The token is new, as a new world's would be: the service knows the
 * world as another document's, and makes its record of it again, with the frame's document now.
 */
export function follow(): void {
  if (home === null || home === document) return;
  home = document;
  hidden = false;
  token = newToken();
  for (const bind of bindings) bind();
}

/** Whether the frame still shows this world's document, so its numbers name what is there. */
export function current(): boolean {
  return home === null || (home === document && !hidden);
}

/**
 * `value`, read in this world, with whether the frame still shows this world's document (decision
 * 0246): a read that says so itself needs no look at the frame tree after it.
 */
export function vouch<T>(value: T): { current: boolean; value: T } {
  return { current: current(), value };
}

/** The element's number, minted on first sight. */
export function idOf(el: Element): number {
  let id = ids.get(el);
  if (id === undefined) {
    if (elements.size >= sweepAt) {
      for (const [key, ref] of elements) {
        if (!ref.deref() || !ref.deref()!.isConnected) elements.delete(key);
      }
      sweepAt = Math.max(200000, elements.size * 2);
    }
    id = nextId++;
    ids.set(el, id);
    elements.set(id, new WeakRef(el));
  } else if (!elements.has(id)) {
    // Swept while detached, now back in the page (a recycled list row): the same ref again.
    elements.set(id, new WeakRef(el));
  }
  return id;
}

/** The element behind a number, or null when it is gone or out of the page. */
export function byId(id: number): Element | null {
  const ref = elements.get(id);
  const el = ref && ref.deref();
  if (!el || !el.isConnected) return null;
  return el;
}
