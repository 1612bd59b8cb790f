/**
 * read_page's cut in the page (decisions 0441 and 0500): of a walk of thousands of nodes only the
 * first display lines can be shown, so only their nodes are described and go to the service, with
 * counts of the rest and the whole outline's biggest sections for the advice on narrowing the
 * read. The lines are counted from the outline's shape, which needs no description.
 *
 * @module
 */

import { biggestSections, type OutlineNode, runEnd, runLine, subtreeEnd } from "../page/outline.ts";
import type { OutlineRest, SnapshotNode } from "./contract.ts";

/**
 * The shortest ref the service gives (its numbers start at 1): a line drawn with it is no longer
 * than the line the service draws, so the lines sent hold at least what the service shows.
 */
const SHORTEST_REF = "ref_1";

/** Whether the service will give the node a ref: an element's node (text runs have none). */
function hasRef(node: SnapshotNode): boolean {
  return !!node.id && node.role !== "text";
}

/** A node as the service will draw it, its ref as short as a ref can be. */
function drawn(node: SnapshotNode): OutlineNode {
  const { id: _, frame: __, ...shown } = node;
  return hasRef(node) ? { ...shown, ref: SHORTEST_REF } : shown;
}

/**
 * The nodes of the display lines `cut.maxChars` can show and one line more (the line the
 * service's cut stops at), with what is left out; null when nothing is. `describe` fills in a
 * node the walk left undescribed; only the nodes sent and the sections are described.
 */
export function cutOutline(
  nodes: SnapshotNode[],
  cut: { maxChars: number; flat: boolean },
  describe: (index: number) => void = () => {},
): { sent: SnapshotNode[]; rest: Omit<OutlineRest, "walkedToEnd"> } | null {
  const ends: number[] = [];
  for (let i = 0; i < nodes.length;) ends.push(i = runEnd(nodes, i, cut.flat));
  const lines: OutlineNode[] = [];
  let used = 0;
  let stop = 0;
  while (stop < ends.length) {
    const start = stop === 0 ? 0 : ends[stop - 1];
    for (let i = start; i < ends[stop]; i++) {
      describe(i);
      lines[i] = drawn(nodes[i]);
    }
    const length = runLine(lines, start, ends[stop], cut.flat).length;
    if (used + length + 1 > cut.maxChars) break;
    used += length + 1;
    stop++;
  }
  if (stop >= ends.length - 1) return null;
  const end = cut.flat ? ends[stop] : unsplit(nodes, ends[stop]);
  if (end >= nodes.length) return null;
  let sentLines = stop + 1;
  while (ends[sentLines] <= end) sentLines++;
  for (let i = 0; i < end; i++) describe(i);
  const sent = nodes.slice(0, end);
  const left = nodes.slice(end);
  const sections = biggestSections(nodes, 3, hasRef);
  for (const section of sections) describe(nodes.indexOf(section));
  return {
    sent,
    rest: {
      lines: ends.length - sentLines,
      nodes: left.length,
      elements: left.filter(hasRef).length,
      sections,
    },
  };
}

/**
 * `end` moved past the end of any table row or list item it would split: the service draws one
 * of those as one line only when it has all of it, so a split one would read differently.
 */
function unsplit(nodes: SnapshotNode[], end: number): number {
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
