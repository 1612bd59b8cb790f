/**
 * A walk's answer packed for its way out of the page (decision 0620): each node as an array of
 * its common fields by place, and each role named once. JSON of the node objects spelt every
 * field's name and role on every node (98 kB crossed for the first 24,000 characters of the
 * 3,000-row page's outline), and what crosses is copied and escaped at each hop to the service,
 * which unpacks it into the same nodes.
 *
 * @module
 */

import type { PackedNode, PackedSnapshot, Snapshot, SnapshotNode } from "./contract.ts";

/** `walk` as JSON text of its packed form. */
export function packWalk(walk: Snapshot): string {
  if ("gone" in walk) return JSON.stringify(walk);
  const { nodes, rest, ...head } = walk;
  const roles: string[] = [];
  const places = new Map<string, number>();
  const pack = (node: SnapshotNode): PackedNode => {
    const { id, depth, role, name, ...more } = node;
    let place = places.get(role);
    if (place === undefined) {
      place = roles.push(role) - 1;
      places.set(role, place);
    }
    for (const key in more) {
      if (more[key as keyof typeof more] !== undefined) return [id, depth, place, name, more];
    }
    return [id, depth, place, name];
  };
  const packed: PackedSnapshot = {
    ...head,
    nodes: nodes.map(pack),
    ...(rest ? { rest: { ...rest, sections: rest.sections.map(pack) } } : {}),
    roles,
  };
  return JSON.stringify(packed);
}
