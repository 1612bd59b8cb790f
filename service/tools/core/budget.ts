/**
 * The `max_chars` budget shared by the reading tools: checked, clamped to what the tool can
 * honour, and said out loud when it was moved.
 *
 * @module
 */

import { ToolError } from "./errors.ts";

/** Largest max_chars any tool honours: more would not fit a bridge frame, nor a model's reading. */
export const MAX_MAX_CHARS = 200_000;

/** A tool's answer budget. */
export interface CharBudget {
  maxChars: number;
  /** Set when the asked value was raised or lowered, saying so. */
  adjusted?: string;
}

/**
 * Reads `max_chars` from a call: refuses a non-positive one, clamps it to [least, 200,000], and
 * says when it moved it.
 */
export function charBudget(
  asked: number | undefined,
  tool: { name: string; tabId: number; least: number; fallback: number },
): CharBudget {
  if (asked !== undefined && !(asked >= 1)) {
    throw new ToolError(
      "tool_failure",
      `"max_chars" must be a positive number of characters, not ${asked}.`,
      `A correct call looks like: {"tabId": ${tool.tabId}, "max_chars": ${tool.fallback}}`,
    );
  }
  const maxChars = Math.min(
    MAX_MAX_CHARS,
    Math.max(tool.least, Math.floor(asked ?? tool.fallback)),
  );
  if (asked === undefined || maxChars === Math.floor(asked)) return { maxChars };
  const way = maxChars > asked ? "raised to the least" : "lowered to the most";
  return { maxChars, adjusted: `max_chars ${asked} was ${way} ${tool.name} returns, ${maxChars}.` };
}
