/**
 * Tests that read page strings out of `structuredContent` read them through {@linkcode plain}:
 * every page string there is fenced (decision 0150), and this takes the fences off again.
 * `tests/fencing_test.ts` is where the fences themselves are checked.
 */

import type { CallResult } from "./session.ts";

const FENCE =
  /^<page-content-([\w-]+) origin="[^"\n]*" trust="untrusted">\n([\s\S]*)\n<\/page-content-\1>$/;

/** The text inside an untrusted-content fence; any other value as it is. */
export function unfence(value: string): string {
  const match = FENCE.exec(value);
  return match ? match[2] : value;
}

/** A value with every fenced string in it unfenced, at any depth. */
export function unfenceAll<T>(value: T): T {
  if (typeof value === "string") return unfence(value) as T;
  if (Array.isArray(value)) return value.map(unfenceAll) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, unfenceAll(item)]),
    ) as T;
  }
  return value;
}

/** A result's structured content with the fences of its page strings taken off. */
export function plain(result: CallResult): Record<string, unknown> | undefined {
  return result.structuredContent === undefined ? undefined : unfenceAll(result.structuredContent);
}
