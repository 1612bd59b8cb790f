/**
 * Matching `form_fill`'s labels to a page's fields, with find's ranking. A field is known by its
 * accessible name (label elements, `aria-label`, `aria-labelledby`, placeholder, title), by the
 * text just before it when it has no label of its own, and weakly by its name and id
 * attributes. Each field is filled at most once; a label two fields match about equally well is
 * reported as ambiguous instead of guessed. Pure functions over the outline.
 *
 * @module
 */

import { FILLABLE } from "../page_runtime/contract.ts";
import type { OutlineNode } from "./outline.ts";
import { ranker } from "./rank.ts";

export { FILLABLE };

/** How many outline lines back a field's nearby text may be. */
const NEARBY_LINES = 3;
/** Fields scoring within this of the best are as likely to be the one meant. */
const AMBIGUITY_MARGIN = 0.3;
/** Candidates named in an ambiguous match. */
const MAX_NAMED = 3;

/** A field a value can go into, named as the user sees it. */
export interface Fillable<T extends OutlineNode = OutlineNode> {
  node: T;
  /** The node as ranked: its name, or the text before it when it has none. */
  ranked: OutlineNode;
}

/** Whether the group at `index` holds radio buttons (a fieldset of choices). */
function holdsRadios(nodes: readonly OutlineNode[], index: number): boolean {
  const depth = nodes[index].depth;
  for (let i = index + 1; i < nodes.length && nodes[i].depth > depth; i++) {
    if (nodes[i].role === "radio") return true;
  }
  return false;
}

/** The text shortly before a field, when no other field stands between them. */
function nearbyText(nodes: readonly OutlineNode[], index: number): string {
  for (let i = index - 1; i >= Math.max(0, index - NEARBY_LINES); i--) {
    const node = nodes[i];
    if (FILLABLE.has(node.role)) return "";
    if (node.role === "text" && node.name.trim() !== "") return node.name.trim();
  }
  return "";
}

/** The fields of an outline, each with the words it is known by. */
export function fillableFields<T extends OutlineNode>(nodes: readonly T[]): Fillable<T>[] {
  const fields: Fillable<T>[] = [];
  nodes.forEach((node, index) => {
    const isGroup = node.role === "group" && holdsRadios(nodes, index);
    if (!node.ref || (!FILLABLE.has(node.role) && !isGroup)) return;
    const nearby = nearbyText(nodes, index);
    const ranked: OutlineNode = {
      ...node,
      role: isGroup ? "radiogroup" : node.role,
      name: node.name || nearby,
      hints: [node.hints, nearby].filter(Boolean).join(" "),
    };
    fields.push({ node, ranked });
  });
  return fields;
}

/** Where one label went. */
export type FieldMatch<T extends OutlineNode = OutlineNode> =
  | { label: string; field: Fillable<T> }
  | { label: string; unmatched: "none" }
  | { label: string; unmatched: "ambiguous"; candidates: T[] };

/**
 * Gives each label its field: the surest labels choose first, each field goes to one label, and
 * a label with two about equally good fields left gets neither.
 */
export function matchFields<T extends OutlineNode>(
  labels: readonly string[],
  fields: readonly Fillable<T>[],
): FieldMatch<T>[] {
  const byNode = new Map(fields.map((field) => [field.ranked, field]));
  const rank = ranker(fields.map((field) => field.ranked));
  const ranked = labels.map((label) => ({
    label,
    options: rank(label, 10)
      .map(({ node, score }) => ({ field: byNode.get(node)!, score })),
  }));
  const order = [...ranked].sort((a, b) => (b.options[0]?.score ?? 0) - (a.options[0]?.score ?? 0));
  const taken = new Set<Fillable<T>>();
  const matched = new Map<string, FieldMatch<T>>();
  for (const { label, options } of order) {
    const open = options.filter((option) => !taken.has(option.field));
    if (open.length === 0) {
      matched.set(label, { label, unmatched: "none" });
      continue;
    }
    const close = open.filter((option) => option.score >= open[0].score - AMBIGUITY_MARGIN);
    if (close.length > 1) {
      matched.set(label, {
        label,
        unmatched: "ambiguous",
        candidates: close.slice(0, MAX_NAMED).map((option) => option.field.node),
      });
      continue;
    }
    taken.add(open[0].field);
    matched.set(label, { label, field: open[0].field });
  }
  return labels.map((label) => matched.get(label)!);
}
