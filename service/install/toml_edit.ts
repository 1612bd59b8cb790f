/**
 * Adding and removing one table in a TOML file without losing anything: `smol-toml` reads and
 * validates, and the table is inserted as text at the end of the file (a TOML writer would
 * reformat the whole file and drop its comments). Every insertion comes with its exact inverse.
 *
 * @module
 */

import { parse, TomlError } from "smol-toml";
import { applyInverse, type EditResult, type ParseResult } from "./jsonc_edit.ts";

/** Parses TOML. */
export function parseToml(text: string): ParseResult {
  try {
    return { ok: true, value: parse(text) };
  } catch (error) {
    const detail = error instanceof TomlError
      ? `${error.message.split("\n")[0]}`
      : (error as Error).message;
    return { ok: false, reason: `not valid TOML: ${detail}` };
  }
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A TOML basic string: JSON's escapes are a subset of TOML's. */
function tomlString(text: string): string {
  return JSON.stringify(text);
}

function tomlValue(value: unknown): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  throw new Error(`cannot write ${JSON.stringify(value)} as TOML here`);
}

function header(path: string[]): string {
  return `[${path.map(tomlKey).join(".")}]`;
}

function valueAt(document: unknown, path: string[]): unknown {
  let node = document;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The text of the table `[path]` holding `value`'s keys. */
export function tomlTable(path: string[], value: Record<string, unknown>, eol = "\n"): string {
  return [
    header(path),
    ...Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`),
    "",
  ].join(eol);
}

/**
 * Appends the table `[path]` holding `value` to the file. Refuses when the file does not parse,
 * when the key exists, or when the table cannot be added as text (the parent defined inline).
 */
export function insertTomlTable(
  text: string,
  { path, value }: { path: string[]; value: Record<string, unknown> },
): EditResult {
  const parsed = parseToml(text);
  if (!parsed.ok) return parsed;
  if (valueAt(parsed.value, path) !== undefined) {
    return { ok: false, reason: `"${path.join(".")}" already exists` };
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const separator = text === "" || text.endsWith(eol + eol)
    ? ""
    : text.endsWith(eol)
    ? eol
    : eol + eol;
  const content = separator + tomlTable(path, value, eol);
  const next = text + content;
  const check = parseToml(next);
  if (!check.ok) {
    return {
      ok: false,
      reason: `a ${header(path)} table cannot be added to it (${check.reason})`,
    };
  }
  const inverse = { find: content, replace: "" };
  if (
    JSON.stringify(valueAt(check.value, path)) !== JSON.stringify(value) ||
    applyInverse(next, inverse) !== text
  ) {
    return { ok: false, reason: "the table could not be added cleanly" };
  }
  return { ok: true, text: next, inverse };
}

/**
 * Removes the table `[path]` when no exact inverse applies: its header line and every line up to
 * the next table or the end. Null when the table is not written as a table of its own.
 */
export function removeTomlTable(text: string, path: string[]): string | null {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trim() === header(path));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !lines[end].trimStart().startsWith("[")) end++;
  if (end < lines.length) {
    // Comments and blank lines just before the next table belong to it.
    while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1])) end--;
  } else if (lines[end - 1] === "") {
    end--; // keep the file's last line break
  }
  const from = start > 0 && lines[start - 1].trim() === "" ? start - 1 : start;
  return [...lines.slice(0, from), ...lines.slice(end)].join("\n");
}
