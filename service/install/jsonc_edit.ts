/**
 * Adding and removing one entry in a JSON-with-comments file without touching any other byte:
 * `jsonc-parser` finds where the entry goes (its `modify` with no formatting yields one pure
 * insertion), and the inserted text is indented like its neighbours. Every insertion comes with
 * its exact inverse, so uninstall can give back the original bytes.
 *
 * @module
 */

import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";

/** What undoes one insertion: replace the only occurrence of `find` with `replace`. */
export interface Inverse {
  find: string;
  replace: string;
}

/** The outcome of an edit: the new text and its inverse, or why the file was left alone. */
export type EditResult =
  | { ok: true; text: string; inverse: Inverse }
  | { ok: false; reason: string };

/** A parsed document, or why it could not be parsed. */
export type ParseResult = { ok: true; value: unknown } | { ok: false; reason: string };

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

function parseRoot(text: string): { ok: true; root: Node } | { ok: false; reason: string } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  if (errors.length > 0) {
    const first = errors[0];
    return {
      ok: false,
      reason: `not valid JSON: ${printParseErrorCode(first.error)} at ${
        lineAndColumn(text, first.offset)
      }`,
    };
  }
  if (!root || root.type !== "object") {
    return { ok: false, reason: "its top level is not a JSON object" };
  }
  return { ok: true, root };
}

/** Parses JSON with comments and trailing commas; the top level must be an object. */
export function parseJsonc(text: string): ParseResult {
  const parsed = parseRoot(text);
  return parsed.ok ? { ok: true, value: getNodeValue(parsed.root) } : parsed;
}

/** How many times `part` occurs in `text`. */
export function occurrences(text: string, part: string): number {
  if (part === "") return 0;
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Applies an inverse; null when its text is not there exactly once (the file moved on). */
export function applyInverse(text: string, inverse: Inverse): string | null {
  if (occurrences(text, inverse.find) !== 1) return null;
  const at = text.indexOf(inverse.find);
  return text.slice(0, at) + inverse.replace + text.slice(at + inverse.find.length);
}

/** The file's indentation unit: a tab, or the smallest run of spaces that indents a line. */
function indentUnit(text: string): string {
  let smallest: string | null = null;
  for (const match of text.matchAll(/\n([ \t]+)\S/g)) {
    const indent = match[1];
    if (indent.startsWith("\t")) return "\t";
    if (smallest === null || indent.length < smallest.length) smallest = indent;
  }
  return smallest ?? "  ";
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
}

function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/** The deepest object on `path` that exists, and how many keys of `path` lead to it. */
function deepestObject(root: Node, path: string[]): { node: Node; depth: number } | string {
  let node = root;
  let depth = 0;
  while (depth < path.length) {
    const child = findNodeAtLocation(node, [path[depth]]);
    if (!child) break;
    if (child.type !== "object") {
      return `"${path.slice(0, depth + 1).join(".")}" is not an object`;
    }
    node = child;
    depth++;
  }
  return { node, depth };
}

/**
 * Adds `value` at `path` (creating the objects on the way), indented like the file. Refuses when
 * the file does not parse, when something on the way is not an object, or when the key exists.
 */
export function insertJsonEntry(
  text: string,
  { path, value }: { path: string[]; value: unknown },
): EditResult {
  const parsed = parseRoot(text);
  if (!parsed.ok) return parsed;
  const found = deepestObject(parsed.root, path.slice(0, -1));
  if (typeof found === "string") return { ok: false, reason: found };
  const { node: parent, depth } = found;
  if (depth === path.length - 1 && findNodeAtLocation(parent, [path[depth]])) {
    return { ok: false, reason: `"${path.join(".")}" already exists` };
  }
  const edits = modify(text, path, value, {});
  if (edits.length !== 1 || edits[0].length !== 0) {
    return { ok: false, reason: "the entry cannot be added without changing other bytes" };
  }
  const { offset } = edits[0];

  let inserted: unknown = value;
  for (let i = path.length - 1; i > depth; i--) inserted = { [path[i]]: inserted };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = indentUnit(text);
  const children = parent.children ?? [];
  const indent = children.length > 0 && startsLine(text, children[0].offset)
    ? lineIndent(text, children[0].offset)
    : lineIndent(text, parent.offset) + unit;
  const body = JSON.stringify(inserted, null, unit).replaceAll("\n", eol + indent);
  const comma = edits[0].content.startsWith(",") ? "," : "";
  const interior = text.slice(parent.offset + 1, parent.offset + parent.length - 1);
  const closing = children.length === 0 && !interior.includes("\n")
    ? eol + lineIndent(text, parent.offset)
    : "";
  const content = `${comma}${eol}${indent}${JSON.stringify(path[depth])}: ${body}${closing}`;
  const next = text.slice(0, offset) + content + text.slice(offset);

  const check = parseRoot(next);
  const inverse = { find: content, replace: "" };
  if (
    !check.ok || JSON.stringify(valueAt(check.root, path)) !== JSON.stringify(value) ||
    applyInverse(next, inverse) !== text
  ) {
    return { ok: false, reason: "the entry could not be added cleanly" };
  }
  return { ok: true, text: next, inverse };
}

function valueAt(root: Node, path: string[]): unknown {
  const node = findNodeAtLocation(root, path);
  return node ? getNodeValue(node) : undefined;
}

/**
 * Removes the entry at `path` when no exact inverse applies (the file changed since install):
 * every other entry and comment stays, though whitespace around the removed one may differ.
 */
export function removeJsonEntry(text: string, path: string[]): string {
  return applyEdits(text, modify(text, path, undefined, {}));
}

/** The text of a new file holding only `value` at `path`. */
export function newJsonFile(path: string[], value: unknown): string {
  let document: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) document = { [path[i]]: document };
  return `${JSON.stringify(document, null, 2)}\n`;
}
