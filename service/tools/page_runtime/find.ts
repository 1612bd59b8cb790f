/**
 * `find`'s walk with its ranking done in the page: the document is walked as `read_page` walks it,
 * but only the nodes that could rank among the best come back, with the frames the service must
 * read itself. On a page of thousands of rows that is a few kilobytes instead of the whole
 * outline (decision 0234).
 *
 * @module
 */

import { type FindSpec, rank, roleWords } from "../page/rank.ts";
import type { Snapshot, SnapshotNode } from "./contract.ts";
import { snapshot } from "./snapshot.ts";

/**
 * The walk, keeping in document order only the nodes that are among the best `keep` for the
 * query, or for the role words it names (the service offers those when nothing has the query's
 * words), and every frame node (a frame the walk could not enter is read by the service). Each
 * node's score depends on the node and the query alone, so the best of every document together
 * hold the best of the tab: the service ranks what comes back as it would rank the whole.
 */
export function findNodes(spec: FindSpec & { limit: number }): Snapshot {
  const walk = snapshot({ filter: "all", hints: true, limit: spec.limit });
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
  }
  return { ...walk, nodes: walk.nodes.filter((node) => kept.has(node) || node.frame) };
}
