/**
 * Reading tool results in tests: all their text, and whether page words stay fenced.
 *
 * @module
 */

import { assert } from "./assert.ts";
import type { CallResult } from "./session.ts";

/** The text of every block of a result, error or not. */
export function allText(result: CallResult): string {
  return result.content.map((block) => block.text ?? "").join("\n");
}

/** Fails unless every occurrence of `needle` sits inside an untrusted fence. */
export function onlyFenced(text: string, needle: string): void {
  assert(text.includes(needle), `expected ${needle} in:\n${text.slice(0, 2000)}`);
  const outside = text.replace(
    /<(page-content-[^\s>]+) [^>]*trust="untrusted">[\s\S]*?<\/\1>/g,
    "",
  );
  assert(!outside.includes(needle), `${needle} outside a fence in:\n${text.slice(0, 2000)}`);
}
