/**
 * Caller-chosen text made safe for a person's terminal: a client's name, a host, a plan's step or
 * a rule quoting them reach `status`, `audit tail` and the other human outputs written this way,
 * so an escape sequence cannot recolour or rewrite the screen and a line break cannot forge a
 * line (decision 0286).
 *
 * @module
 */

/**
 * `text` with every control character (C0, DEL, C1), the line and paragraph separators and the
 * bidirectional overrides written as `\u{XXXX}`, and a backslash doubled so no escape is forged.
 */
export function shown(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\\\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (char) => char === "\\" ? "\\\\" : `\\u{${char.charCodeAt(0).toString(16).padStart(4, "0")}}`,
  );
}
