/**
 * Locating elements by a plain-language description: find's ranking (our own scoring, no model,
 * no network) over the tab's documents, measured so what the user can see wins a close call.
 * Below the handlers: `find` lists the matches and `act_on` acts on the best one.
 *
 * @module
 */

import type { ToolContext } from "../core/context.ts";
import {
  collect,
  type Collected,
  type CollectedNode,
  frameGuard,
  READ,
  UNREAD,
} from "./collect.ts";
import type { Box as Measured } from "../page_runtime/contract.ts";
import {
  type Frame,
  FrameHeld,
  frameOrigin,
  inFrame,
  intersects,
  refFor,
  runtimeCall,
  type TabPages,
  tabPages,
  topViewport,
} from "./frames.ts";
import { exactOf, isExact, rank, roleWords } from "./rank.ts";
import { redactSecrets } from "../core/safe_text.ts";
import { latestScreenshot, LAYOUT_METRICS, scaleFromMetrics } from "./screenshot.ts";
import type { TabTarget } from "../core/target.ts";

/** Most matches returned. */
export const MAX_MATCHES = 20;
/** Candidates measured before the visible ones are preferred. */
const CANDIDATES = 40;

/** A ranked element, one per element: a text run stands for the element that holds it. */
export interface Candidate {
  node: CollectedNode;
  ref: string;
  score: number;
}

/** The best-ranked elements, at most {@linkcode CANDIDATES}, one per element. */
function pickCandidates(
  pages: TabPages,
  ranked: { node: CollectedNode; score: number }[],
): Candidate[] {
  const picked: Candidate[] = [];
  const seen = new Set<string>();
  for (const { node, score } of ranked) {
    if (!node.at) continue;
    const ref = node.ref ?? refFor(pages, node.at.frame, node.at.localId, node);
    if (seen.has(ref)) continue;
    seen.add(ref);
    picked.push({ node, ref, score });
    if (picked.length >= CANDIDATES) break;
  }
  return picked;
}

/**
 * The ref of the iframe element that shows `frame` in its parent, as the walk gave it out; null
 * for the main frame or a parent no longer known.
 */
function iframeRef(pages: TabPages, frame: Frame): string | null {
  const parent = frame.parent && pages.frames.get(frame.parent.frameKey);
  return parent ? refFor(pages, parent, frame.parent!.localId) : null;
}

/**
 * The box of each candidate in top-level viewport CSS pixels, by `frame key#local id`. Measuring
 * changes nothing on the page, so each frame is asked as a read is (decision 0780): in a frame of
 * its own renderer a look that is not answered within the read's bound leaves that frame's
 * candidates out (no box), and the frame is added to `unread` in Ghostlight's words, the tab not
 * quarantined.
 */
async function measure(
  target: TabTarget,
  pages: TabPages,
  picked: Candidate[],
  unread: string[],
): Promise<Map<string, Measured | null>> {
  const byFrame = new Map<Frame, { ids: number[]; known: (Measured | null | undefined)[] }>();
  for (const { node } of picked) {
    const list = byFrame.get(node.at!.frame) ?? { ids: [], known: [] };
    list.ids.push(node.at!.localId);
    list.known.push(node.box);
    byFrame.set(node.at!.frame, list);
  }
  const boxes = new Map<string, Measured | null>();
  const viewport = [...byFrame.keys()].some((frame) => frame.parent)
    ? await topViewport(target)
    : undefined;
  for (const [frame, { ids, known }] of byFrame) {
    let measured: (Measured | null)[];
    let origin: { x: number; y: number };
    try {
      // The walk measured its exact matches as it answered (0440); the others are measured now.
      measured = known.every((box) => box !== undefined)
        ? known as (Measured | null)[]
        : await inFrame(target, pages, frame, runtimeCall("boxes", ids), { read: true });
    } catch (error) {
      if (!(error instanceof FrameHeld)) throw error;
      const ref = iframeRef(pages, frame);
      if (ref) unread.push(`${ref}: ${UNREAD.held}`);
      continue;
    }
    try {
      origin = await frameOrigin(target, pages, frame, { read: true });
    } catch (error) {
      // A frame around it did not answer (it is named when its own candidates are measured):
      // where this one's are in the tab could not be read.
      if (!(error instanceof FrameHeld)) throw error;
      const ref = iframeRef(pages, frame);
      if (ref) unread.push(`${ref}: ${UNREAD.failed}`);
      continue;
    }
    ids.forEach((id, i) => {
      const box = measured[i];
      if (!box) {
        boxes.set(`${frame.key}#${id}`, null);
        return;
      }
      const moved = { ...box, x: box.x + origin.x, y: box.y + origin.y };
      // A frame in another origin only knows its own viewport: check the tab's too.
      if (viewport) moved.inViewport &&= intersects(moved, viewport);
      boxes.set(`${frame.key}#${id}`, moved);
    });
  }
  return boxes;
}

/**
 * The candidates that have a box, best first. What the user can see wins a close call: a hidden
 * duplicate (an off-canvas mobile menu) loses to the visible control, and on-screen beats
 * scrolled away.
 */
function byVisibility(picked: Candidate[], boxes: Map<string, Measured | null>) {
  const measured = picked.flatMap((candidate) => {
    const box = boxes.get(`${candidate.node.at!.frame.key}#${candidate.node.at!.localId}`);
    if (!box) return [];
    const seenBonus = !box.visible || box.width * box.height === 0
      ? -1.5
      : box.inViewport
      ? 0.3
      : 0;
    return [{ ...candidate, box, score: candidate.score + seenBonus }];
  });
  return measured.sort((a, b) => b.score - a.score);
}

/** A match as the agent gets it: boxes and centre in screenshot pixels. */
export function asMatch(
  { node, ref, box }: Candidate & { box: Measured },
  index: number,
  scale: number,
) {
  const inShot = (css: number) => Math.round(css / scale);
  return {
    ref,
    role: node.role,
    name: redactSecrets(node.name.length > 150 ? `${node.name.slice(0, 149)}…` : node.name),
    ...(node.value !== undefined ? { value: redactSecrets(node.value) } : {}),
    box: {
      x: inShot(box.x),
      y: inShot(box.y),
      width: inShot(box.width),
      height: inShot(box.height),
    },
    x: inShot(box.x + box.width / 2),
    y: inShot(box.y + box.height / 2),
    visible: box.visible,
    inViewport: box.inViewport,
    matchRank: index + 1,
  };
}

/** A found element, measured, with its score after visibility. */
export type Located = Candidate & { box: Measured };

/** What {@linkcode locate} found on a tab. */
export interface Location {
  outline: Collected;
  /** Every measured candidate, best first. */
  located: Located[];
  /** Set when no element had the query's words and its role words were used instead. */
  roles: string;
  /** Every element located is named exactly as the query asks (decision 0440). */
  exact: boolean;
  /** Viewport CSS pixels per screenshot pixel, as {@linkcode asMatch} takes it. */
  scale: number;
}

/**
 * The elements of the tab that match `query` (and `role`, when given), ranked as find ranks
 * them and measured, best first: what the user can see wins a close call. When some are named
 * exactly as the query asks, only those (decision 0440).
 */
export async function locate(
  context: ToolContext,
  target: TabTarget,
  wanted: { query: string; role?: string },
): Promise<Location> {
  const pages = tabPages(context.workspace, target.tabId);
  const role = wanted.role?.trim().toLowerCase();
  // The screenshot scale is the browser's layout, not the page's: when no screenshot of the tab
  // set it, it is asked in the walk's own round trip (decision 0590).
  const shot = latestScreenshot(context.workspace, target.tabId);
  // Each document ranks its own nodes and sends only its best (decision 0234).
  const outline = await collect(target, pages, {
    filter: "all",
    hints: true,
    find: { query: wanted.query, ...(role ? { role } : {}), keep: CANDIDATES * 2 },
    guard: frameGuard(context, READ),
    beside: shot ? [] : [LAYOUT_METRICS],
  });
  const scale = shot?.scale ?? scaleFromMetrics(outline.beside[0]);
  const all = role ? outline.nodes.filter((node) => node.role === role) : outline.nodes;
  const exact = wanted.query === "" ? null : exactOf(wanted.query);
  const named = exact ? all.filter((node) => isExact(node, exact)) : [];
  const nodes = named.length > 0 ? named : all;
  let ranked = wanted.query === ""
    ? nodes.map((node) => ({ node, score: 1 }))
    : rank(nodes, wanted.query, CANDIDATES * 2);
  // No element has the query's words: offer the elements of the roles it named instead.
  const roles = ranked.length === 0 && !role ? roleWords(wanted.query) : "";
  if (roles) ranked = rank(nodes, roles, CANDIDATES * 2);
  const picked = pickCandidates(pages, ranked);
  // A frame held since the walk is told as not read, as one held at the walk is.
  const located = byVisibility(
    picked,
    await measure(target, pages, picked, outline.unreadFrames),
  );
  return { outline, located, roles, exact: named.length > 0, scale };
}
