/**
 * The service's log: one line per event on stderr and, bounded by rotation, in the instance's
 * log file. Never holds workspace ids, page content or tool arguments. Messages carry words from
 * peers (an extension's version, an error's text), so every message is escaped and cut here:
 * whatever it holds, it stays one line of bounded length.
 *
 * @module
 */

import { appendRegularFileSync } from "../../shared/files.ts";
import { type LogEvent, recordTail } from "./events.ts";

/** The log file's size at which it is rotated to `.1`. */
export const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** The longest message one line keeps, in UTF-16 code units; longer ones are cut and marked. */
export const MAX_LOG_MESSAGE = 2_000;
const encoder = new TextEncoder();

let logFile: string | null = null;
let toStderr = true;

/** Directs the log to a file (rotated at 4 MiB) and optionally stops echoing to stderr. */
export function configureLog(options: { file: string | null; stderr: boolean }): void {
  logFile = options.file;
  toStderr = options.stderr;
}

/**
 * A message made safe for one log line: control characters (line breaks, escapes, the Unicode
 * line and paragraph separators) written as `\uXXXX` (and a backslash doubled, so an escape
 * cannot be forged), then cut to {@linkcode MAX_LOG_MESSAGE} with a note of how much was dropped.
 */
export function logSafe(message: string): string {
  const escaped = message.replace(
    // deno-lint-ignore no-control-regex
    /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (char) => char === "\\" ? "\\\\" : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (escaped.length <= MAX_LOG_MESSAGE) return escaped;
  return `${escaped.slice(0, MAX_LOG_MESSAGE)}… (${escaped.length - MAX_LOG_MESSAGE} more cut)`;
}

/**
 * Writes one log line, escaped and cut by {@linkcode logSafe}, with `event` after it as a record
 * a program reads (`events.ts`). Logging never throws.
 */
export function log(level: "info" | "warn" | "error", message: string, event?: LogEvent): void {
  const record = event === undefined ? "" : recordTail(event);
  const line = `${new Date().toISOString()} ${level} ${logSafe(message)}${record}\n`;
  const bytes = encoder.encode(line);
  if (toStderr) {
    try {
      Deno.stderr.writeSync(bytes);
    } catch {
      // A closed stderr must not take the service down.
    }
  }
  if (logFile === null) return;
  try {
    const size = Deno.lstatSync(logFile).size;
    if (size > MAX_LOG_BYTES) Deno.renameSync(logFile, `${logFile}.1`);
  } catch {
    // No file yet.
  }
  try {
    // Never through a link, never into a FIFO (decision 0287).
    appendRegularFileSync(logFile, bytes, 0o600);
  } catch {
    // Logging is best effort.
  }
}
