/**
 * The page outline as text: one line per element or text run, indented by nesting, cut to a
 * character budget with advice on how to narrow the read, and compared with an earlier outline
 * for `diff`. Pure functions over the nodes the in-page walker returned.
 *
 * @module
 */

import { CELL_ROLES, type SnapshotNode } from "../page_runtime/contract.ts";

/**
 * One line of the outline: a node as the page runtime's walk answers it (`SnapshotNode`), with
 * a ref (absent for text runs) in place of its frame-local number.
 */
export interface OutlineNode extends Omit<SnapshotNode, "id" | "frame"> {
  /** Absent for text runs. */
  ref?: string;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** The line for a node, without indentation. */
export function lineOf(node: OutlineNode): string {
  if (node.role === "text") return `text ${quote(node.name)}`;
  let line = node.role;
  if (node.name) line += ` ${quote(node.name)}`;
  if (node.ref) line += ` [${node.ref}]`;
  if (node.value !== undefined) line += ` value=${quote(node.value)}`;
  if (node.placeholder) line += ` placeholder=${quote(node.placeholder)}`;
  if (node.href) line += ` ${node.role === "iframe" ? "src" : "href"}=${quote(node.href)}`;
  if (node.states?.length) line += ` ${node.states.join(" ")}`;
  return line;
}

function indent(depth: number, flat: boolean): string {
  return flat ? "" : "  ".repeat(Math.min(depth, 40));
}

/** What the shape of the display lines depends on: not names' words, only whether there are any. */
export type Shape = Pick<OutlineNode, "depth" | "role" | "name" | "states">;

/** The end (exclusive) of the subtree that starts at `index`. */
export function subtreeEnd(nodes: readonly Shape[], index: number): number {
  let end = index + 1;
  while (end < nodes.length && nodes[end].depth > nodes[index].depth) end++;
  return end;
}

/**
 * Whether the table row at `index` is drawn as one line: its children are all cells, each
 * holding at most two nodes, directly (a text, or up to two controls). Tables are the commonest
 * large structure, and one line a row costs a fifth of one line a cell.
 */
function isCompactRow(nodes: readonly Shape[], index: number, end: number): boolean {
  const row = nodes[index];
  if (end === index + 1) return false;
  for (let i = index + 1; i < end;) {
    const cell = nodes[i];
    if (cell.depth !== row.depth + 1 || !CELL_ROLES.has(cell.role)) return false;
    const cellEnd = subtreeEnd(nodes, i);
    if (cellEnd - i - 1 > 2) return false;
    for (let j = i + 1; j < cellEnd; j++) if (nodes[j].depth !== cell.depth + 1) return false;
    i = cellEnd;
  }
  return true;
}

/** A compact row's line: `row [ref_9] "1" | "Lamp check" | button "Open" [ref_13]`. */
function compactRow(nodes: OutlineNode[], index: number, end: number): string {
  const row = nodes[index];
  const parts: string[] = [];
  for (let i = index + 1; i < end;) {
    const cell = nodes[i];
    const cellEnd = subtreeEnd(nodes, i);
    const bits = cell.name ? [quote(cell.name)] : [];
    for (let j = i + 1; j < cellEnd; j++) bits.push(lineOf(nodes[j]));
    parts.push(bits.join(" ") || '""');
    i = cellEnd;
  }
  return `${lineOf({ ...row, name: "" })} ${parts.join(" | ")}`;
}

/** Whether the list item at `index` holds just one element or text, drawn on its line. */
function isCompactItem(nodes: readonly Shape[], index: number): boolean {
  const item = nodes[index];
  if (item.name || item.states?.length) return false;
  return subtreeEnd(nodes, index) === index + 2;
}

/**
 * The end (exclusive) of the display line that starts at `index`: one node, or a whole simple
 * table row, or a list item with its one child. It depends on the outline's shape only (roles,
 * depths, and whether a list item has a name or states), never on the words of names, so the
 * page can count lines it does not describe (decision 0500).
 */
export function runEnd(nodes: readonly Shape[], index: number, flat = false): number {
  const node = nodes[index];
  if (!flat && node.role === "row") {
    const end = subtreeEnd(nodes, index);
    if (isCompactRow(nodes, index, end)) return end;
  }
  if (!flat && node.role === "listitem" && isCompactItem(nodes, index)) return index + 2;
  return index + 1;
}

/** The display line of the nodes from `index` to `end`, as {@linkcode runEnd} found them. */
export function runLine(nodes: OutlineNode[], index: number, end: number, flat = false): string {
  const node = nodes[index];
  const body = end === index + 1
    ? lineOf(node)
    : node.role === "row"
    ? compactRow(nodes, index, end)
    : `${node.role}: ${lineOf(nodes[index + 1])}`;
  return indent(node.depth, flat) + body;
}

/**
 * The outline's display lines: one per node, except simple table rows (one per row) and list
 * items around a single element (one per item).
 */
export function displayLines(nodes: OutlineNode[], flat = false): string[] {
  return displayRuns(nodes, flat).map((run) => run.line);
}

/** The display lines, each with the index just past the last node it shows. */
export function displayRuns(nodes: OutlineNode[], flat = false): { line: string; end: number }[] {
  const lines: { line: string; end: number }[] = [];
  for (let i = 0; i < nodes.length;) {
    const end = runEnd(nodes, i, flat);
    lines.push({ line: runLine(nodes, i, end, flat), end });
    i = end;
  }
  return lines;
}

/** Display lines cut to `maxChars`: the text, how many lines it shows and of how many. */
export function render(
  lines: string[],
  maxChars: number,
): { text: string; shown: number; total: number } {
  let used = 0;
  let shown = 0;
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) break;
    used += line.length + 1;
    shown++;
  }
  return { text: lines.slice(0, shown).join("\n"), shown, total: lines.length };
}

/**
 * The biggest sections of the outline (by lines beneath them), as ref_id suggestions for a read
 * that did not fit.
 */
export function biggestSections<T extends Shape>(
  nodes: T[],
  count = 3,
  hasRef: (node: T) => boolean = (node) => !!(node as OutlineNode).ref,
): T[] {
  const sections: { node: T; start: number; end: number; size: number }[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.depth > 3 || !hasRef(node)) continue;
    const end = subtreeEnd(nodes, i);
    if (end - i - 1 >= 10) sections.push({ node, start: i, end, size: end - i - 1 });
  }
  // A wrapper around one big section (a main landmark around a table) narrows nothing.
  const useful = sections.filter((outer) =>
    !sections.some((inner) =>
      inner !== outer && inner.start > outer.start && inner.end <= outer.end &&
      inner.size >= 0.9 * outer.size
    )
  );
  useful.sort((a, b) => b.size - a.size);
  return useful.slice(0, count).map((section) => section.node);
}

/** A remembered outline, compared by `diff`. */
export interface Remembered {
  /** What was read: filter, depth and ref_id; a diff only compares like with like. */
  scope: string;
  url: string;
  /** The read was cut in the page (decision 0441): its lines are only the first ones. */
  partial?: boolean;
  lines: { key: string; line: string; depth: number }[];
}

/** Keys lines so that the same element compares with itself across reads. */
export function remember(scope: string, url: string, nodes: OutlineNode[]): Remembered {
  const lines: Remembered["lines"] = [];
  let owner = "";
  for (const node of nodes) {
    if (node.ref) owner = node.ref;
    const line = lineOf(node);
    lines.push({ key: node.ref ?? `${owner}|${line}`, line, depth: node.depth });
  }
  return { scope, url, lines };
}

/** What changed between two outlines of the same scope. */
export function diffOutlines(
  before: Remembered,
  after: Remembered,
): { added: string[]; removed: string[]; changed: string[] } {
  const previous = new Map<string, string[]>();
  for (const { key, line } of before.lines) {
    const list = previous.get(key) ?? [];
    list.push(line);
    previous.set(key, list);
  }
  const added: string[] = [];
  const changed: string[] = [];
  for (const { key, line } of after.lines) {
    const old = previous.get(key);
    if (!old || old.length === 0) {
      added.push(`+ ${line}`);
      continue;
    }
    const same = old.indexOf(line);
    if (same >= 0) old.splice(same, 1);
    else changed.push(`~ ${line}   (was: ${old.shift()})`);
  }
  const removed: string[] = [];
  for (const lines of previous.values()) for (const line of lines) removed.push(`- ${line}`);
  return { added, removed, changed };
}
