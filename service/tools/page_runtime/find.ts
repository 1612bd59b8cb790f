/**
 * `find`'s walk with its ranking done in the page: the document is walked as `read_page` walks it,
 * but only the nodes that could rank among the best come back, with the frames the service must
 * read itself. On a page of thousands of rows that is a few kilobytes instead of the whole
 * outline (decision 0234).
 *
 * A query that names an element exactly is looked for first without reading what cannot hold
 * it: only the subtrees whose text has every one of its words are walked, so on the 3,000-row
 * page one row is read instead of all of them (decision 0440).
 *
 * @module
 */

import {
  type Exact,
  exactOf,
  type FindSpec,
  folded,
  isExact,
  rank,
  roleWords,
} from "../page/rank.ts";
import type { Snapshot, SnapshotNode } from "./contract.ts";
import { frameDocument, mayHostShadow } from "./dom.ts";
import { box } from "./geometry.ts";
import { prunedSnapshot, snapshot } from "./snapshot.ts";
import { INLINE } from "./text.ts";

/**
 * Elements whose name may come from somewhere other than the text inside them (an attribute, a
 * label elsewhere, a field's value, an image's text, a frame's or a slot's content): the exact
 * walk always enters them and what holds them. By local name, and by the attributes they carry.
 */
const NAMED_OTHERWISE_TAGS: ReadonlySet<string> = new Set([
  "input",
  "textarea",
  "select",
  "meter",
  "progress",
  "output",
  "img",
  "area",
  "svg",
  "iframe",
  "frame",
  "slot",
]);
const NAMED_OTHERWISE_ATTRIBUTES = [
  "aria-label",
  "aria-labelledby",
  "title",
  "alt",
  "placeholder",
  "aria-placeholder",
] as const;

/**
 * Whether an element's name may come from elsewhere than its text (see the sets above); `tag` its
 * `localName`, read once by the caller (each read is a call into the browser).
 */
function namedElsewhere(el: Element, tag: string): boolean {
  if (NAMED_OTHERWISE_TAGS.has(tag)) return true;
  // Most elements carry no attribute at all: one question for them.
  if (!el.hasAttributes()) return false;
  for (const name of NAMED_OTHERWISE_ATTRIBUTES) if (el.hasAttribute(name)) return true;
  return false;
}

/**
 * Elements the exact walk enters whatever their text: inline ones (their text joins the line
 * around them) and the ones that only name another (walking them ends no line).
 */
const ALWAYS_ENTERED: ReadonlySet<string> = new Set([...INLINE, "LEGEND", "CAPTION"]);

/** Most elements the exact walk enters before it gives way to the whole walk. */
export const EXACT_WALK_BUDGET = 2_000;

/** Most documents and shadow roots looked through for elements named otherwise. */
const MAX_ROOTS = 1_000;

/**
 * What the observer of the marks below is told of: elements added or removed and attributes
 * changed. Which of those change the marks is asked of each record ({@linkcode changesMarks}): an
 * attribute filter would miss a naming attribute set with a namespace, which `hasAttribute` still
 * reads, and a text node replaced (a clock's tick) changes no mark.
 */
const WATCHED: MutationObserverInit = { childList: true, subtree: true, attributes: true };

const NAMING_ATTRIBUTES: ReadonlySet<string> = new Set(NAMED_OTHERWISE_ATTRIBUTES);

/** Whether a change the observer saw can change the marks: an element came or went, or a name. */
function changesMarks(record: MutationRecord): boolean {
  if (record.type === "attributes") return NAMING_ATTRIBUTES.has(record.attributeName ?? "");
  for (const node of record.addedNodes) if (node.nodeType === 1) return true;
  for (const node of record.removedNodes) if (node.nodeType === 1) return true;
  return false;
}

/**
 * The last pass's marks, kept while nothing they were made from has changed (decision 0770): no
 * element added or removed and none of the naming attributes changed in any root the pass walked
 * (one observer watches them all), no element that could take a shadow root given one since (no
 * change to the page's elements says so), and each frame still showing the document it showed.
 * A find straight after a read or another find on an unchanged page skips the pass.
 */
interface Pass {
  marked: Set<Element>;
  document: Document;
  observer: MutationObserver;
  /** Ends the listeners for frames' loads on every root walked. */
  listening: AbortController;
  /** The elements without a shadow root that could be given one. */
  hostless: Element[];
  /** Each frame element the pass met, with the document it showed (null: not ours to read). */
  frames: [Element, Document | null][];
}

let lastPass: Pass | null = null;

/**
 * Forgets the last pass: a page that changed, or a frame that loaded another document, keeps no
 * element of it alive through the marks.
 */
function forget(): void {
  if (lastPass) stopWatching(lastPass);
  lastPass = null;
}

/** Ends what watches the page for `pass`: its observer and its listeners. */
function stopWatching(pass: Pass): void {
  pass.observer.disconnect();
  pass.listening.abort();
}

/** Whether the last pass's marks still hold for the page as it is now. */
function stillHolds(pass: Pass): boolean {
  if (pass.document !== document || pass.observer.takeRecords().some(changesMarks)) return false;
  for (const el of pass.hostless) if (el.shadowRoot) return false;
  for (const [el, doc] of pass.frames) if (frameDocument(el) !== doc) return false;
  return true;
}

/**
 * The elements named otherwise ({@linkcode namedElsewhere}) and every open shadow root's host,
 * in this document, its shadow roots and its same-origin frames, with all that holds them. One
 * pass over each root's elements answers both (decision 0540), kept while the page is unchanged.
 */
function namedOtherwise(): Set<Element> {
  if (lastPass && stillHolds(lastPass)) return lastPass.marked;
  forget();
  const pass: Pass = {
    marked: new Set(),
    document,
    observer: new MutationObserver((records) => {
      if (records.some(changesMarks)) forget();
    }),
    listening: new AbortController(),
    hostless: [],
    frames: [],
  };
  try {
    walkForMarks(pass);
  } catch (error) {
    stopWatching(pass);
    throw error;
  }
  lastPass = pass;
  return pass.marked;
}

/** The pass itself, filling `pass`. */
function walkForMarks(pass: Pass): void {
  const { marked, hostless, frames, observer } = pass;
  const mark = (el: Element) => {
    for (let at: Element | null = el; at && !marked.has(at); at = at.parentElement) {
      marked.add(at);
    }
  };
  // A frame's load (its own, not bubbling out of shadow trees) says it may show another
  // document: the marks, and whatever of the old document they hold, are let go at once.
  const frameLoaded = (event: Event) => {
    const tag = (event.target as Element).localName;
    if (tag === "iframe" || tag === "frame") forget();
  };
  const roots: (Document | ShadowRoot)[] = [document];
  for (let i = 0; i < roots.length && i < MAX_ROOTS; i++) {
    const root = roots[i];
    observer.observe(root, WATCHED);
    root.addEventListener("load", frameLoaded, { capture: true, signal: pass.listening.signal });
    const doc = root.nodeType === 9 ? root as Document : root.ownerDocument!;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node as Element;
      const tag = el.localName;
      const host = mayHostShadow(tag);
      const shadow = host ? el.shadowRoot : null;
      if (shadow) roots.push(shadow);
      else if (host) hostless.push(el);
      if (!shadow && !namedElsewhere(el, tag)) continue;
      mark(el);
      if (tag !== "iframe" && tag !== "frame") continue;
      const inner = frameDocument(el);
      frames.push([el, inner]);
      if (inner) roots.push(inner);
    }
  }
}

/**
 * The exact walk: the nodes named exactly as the query asks, with the frame nodes, or null when
 * there are none in this document or the walk would have to enter too much of it.
 */
function exactNodes(spec: FindSpec & { limit: number }, exact: Exact): Snapshot | null {
  const marked = namedOtherwise();
  const holds = (el: Element) => {
    if (ALWAYS_ENTERED.has(el.tagName) || marked.has(el)) return true;
    const text = folded(el.textContent ?? "");
    return exact.needles.every((needle) => text.includes(needle));
  };
  const walk = prunedSnapshot(
    { filter: "all", hints: true, limit: spec.limit, untitled: true },
    { holds, budget: EXACT_WALK_BUDGET },
  );
  if ("gone" in walk) return walk;
  const { exhausted, ...rest } = walk;
  if (exhausted) return null;
  const found = rest.nodes.filter((node) =>
    (spec.role === undefined || node.role === spec.role) && isExact(node, exact)
  );
  if (found.length === 0) return null;
  // So few are measured at once, in the same look: the service need not ask again.
  const kept = new Set(found);
  const nodes = rest.nodes.filter((node) => kept.has(node) || node.frame);
  return {
    ...rest,
    nodes: nodes.map((node) => kept.has(node) ? { ...node, box: box(node.id) } : node),
  };
}

/**
 * The walk, keeping in document order only the nodes that are among the best `keep` for the
 * query, or for the role words it names (the service offers those when nothing has the query's
 * words), and every frame node (a frame the walk could not enter is read by the service). Each
 * node's score depends on the node and the query alone, so the best of every document together
 * hold the best of the tab: the service ranks what comes back as it would rank the whole. When
 * some node is named exactly as the query asks, only those come back (decision 0440).
 */
export function findNodes(spec: FindSpec & { limit: number }): Snapshot {
  const exact = spec.query === "" ? null : exactOf(spec.query);
  const first = exact ? exactNodes(spec, exact) : null;
  if (first) return first;
  const walk = snapshot({ filter: "all", hints: true, limit: spec.limit, untitled: true });
  if ("gone" in walk) return walk;
  const candidates = spec.role === undefined
    ? walk.nodes
    : walk.nodes.filter((node) => node.role === spec.role);
  const kept = new Set<SnapshotNode>();
  if (spec.query === "") {
    for (const node of candidates.slice(0, spec.keep)) kept.add(node);
  } else {
    for (const { node } of rank(candidates, spec.query, spec.keep)) kept.add(node);
    const roles = spec.role === undefined ? roleWords(spec.query) : "";
    if (roles) { for (const { node } of rank(candidates, roles, spec.keep)) kept.add(node); }
    // The exact walk gave way: the exact ones still come back, however many others match.
    if (exact) { for (const node of candidates) if (isExact(node, exact)) kept.add(node); }
  }
  return { ...walk, nodes: walk.nodes.filter((node) => kept.has(node) || node.frame) };
}
