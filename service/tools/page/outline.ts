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

/** The end (exclusive) of the subtree that starts at `index`. */
export function subtreeEnd(nodes: OutlineNode[], index: number): number {
  let end = index + 1;
  while (end < nodes.length && nodes[end].depth > nodes[index].depth) end++;
  return end;
}

/**
 * A table row whose cells are simple (a text, or up to two controls) as one line:
 * `row [ref_9] "1" | "Lamp check" | button "Open" [ref_13]`. Tables are the commonest large
 * structure, and one line a row costs a fifth of one line a cell.
 */
function compactRow(nodes: OutlineNode[], index: number): { line: string; end: number } | null {
  const row = nodes[index];
  const end = subtreeEnd(nodes, index);
  const parts: string[] = [];
  for (let i = index + 1; i < end;) {
    const cell = nodes[i];
    if (cell.depth !== row.depth + 1 || !CELL_ROLES.has(cell.role)) return null;
    const cellEnd = subtreeEnd(nodes, i);
    const inner = nodes.slice(i + 1, cellEnd);
    if (inner.length > 2 || inner.some((node) => node.depth !== cell.depth + 1)) return null;
    const bits = cell.name ? [quote(cell.name)] : [];
    for (const node of inner) bits.push(lineOf(node));
    parts.push(bits.join(" ") || '""');
    i = cellEnd;
  }
  if (parts.length === 0) return null;
  const head = lineOf({ ...row, name: "" });
  return { line: `${head} ${parts.join(" | ")}`, end };
}

/** A list item holding just one element or text: `listitem: link "Home" [ref_6]`. */
function compactItem(nodes: OutlineNode[], index: number): { line: string; end: number } | null {
  const item = nodes[index];
  if (item.name || item.states?.length) return null;
  const end = subtreeEnd(nodes, index);
  if (end !== index + 2) return null;
  return { line: `${item.role}: ${lineOf(nodes[index + 1])}`, end };
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
    const node = nodes[i];
    const compact = flat
      ? null
      : node.role === "row"
      ? compactRow(nodes, i)
      : node.role === "listitem"
      ? compactItem(nodes, i)
      : null;
    if (compact) {
      lines.push({ line: indent(node.depth, flat) + compact.line, end: compact.end });
      i = compact.end;
    } else {
      lines.push({ line: indent(node.depth, flat) + lineOf(node), end: ++i });
    }
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
export function biggestSections<T extends OutlineNode>(nodes: T[], count = 3): T[] {
  const sections: { node: T; start: number; end: number; size: number }[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (!node.ref || node.depth > 3) continue;
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
