/**
 * read_page's cut in the page (decision 0441): of a walk of thousands of nodes only the first
 * display lines can be shown, so only their nodes go to the service, with counts of the rest and
 * the whole outline's biggest sections for the advice on narrowing the read.
 *
 * @module
 */

import { biggestSections, displayRuns, type OutlineNode, subtreeEnd } from "../page/outline.ts";
import type { OutlineRest, SnapshotNode } from "./contract.ts";

/**
 * The shortest ref the service gives (its numbers start at 1): a line drawn with it is no longer
 * than the line the service draws, so the lines sent hold at least what the service shows.
 */
const SHORTEST_REF = "ref_1";

/** A node as the service will draw it, its ref as short as a ref can be. */
type Drawn = OutlineNode & { node: SnapshotNode };

/**
 * The nodes of the display lines `cut.maxChars` can show and one line more (the line the
 * service's cut stops at), with what is left out; null when nothing is.
 */
export function cutOutline(
  nodes: SnapshotNode[],
  cut: { maxChars: number; flat: boolean },
): { sent: SnapshotNode[]; rest: OutlineRest } | null {
  const drawn: Drawn[] = nodes.map((node) => {
    const { id: _, frame: __, ...shown } = node;
    return { ...shown, node, ...(node.id && node.role !== "text" ? { ref: SHORTEST_REF } : {}) };
  });
  const runs = displayRuns(drawn, cut.flat);
  let used = 0;
  let stop = 0;
  while (stop < runs.length && used + runs[stop].line.length + 1 <= cut.maxChars) {
    used += runs[stop].line.length + 1;
    stop++;
  }
  if (stop >= runs.length - 1) return null;
  const end = cut.flat ? runs[stop].end : unsplit(drawn, runs[stop].end);
  if (end >= nodes.length) return null;
  let sentLines = stop + 1;
  while (runs[sentLines].end <= end) sentLines++;
  const left = drawn.slice(end);
  return {
    sent: nodes.slice(0, end),
    rest: {
      lines: runs.length - sentLines,
      nodes: left.length,
      elements: left.filter((node) => node.ref).length,
      sections: biggestSections(drawn).map((section) => section.node),
    },
  };
}

/**
 * `end` moved past the end of any table row or list item it would split: the service draws one
 * of those as one line only when it has all of it, so a split one would read differently.
 */
function unsplit(nodes: OutlineNode[], end: number): number {
  let out = end;
  let depth = Infinity;
  for (let i = end - 1; i >= 0 && depth > 0; i--) {
    if (nodes[i].depth >= depth) continue;
    depth = nodes[i].depth;
    if (nodes[i].role === "row" || nodes[i].role === "listitem") {
      out = Math.max(out, subtreeEnd(nodes, i));
    }
  }
  return out;
}
