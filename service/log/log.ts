/**
 * The service's log: one line per event on stderr and, bounded by rotation, in the instance's
 * log file. Never holds workspace ids, page content or tool arguments.
 *
 * @module
 */

const MAX_LOG_BYTES = 4 * 1024 * 1024;
const encoder = new TextEncoder();

let logFile: string | null = null;
let toStderr = true;

/** Directs the log to a file (rotated at 4 MiB) and optionally stops echoing to stderr. */
export function configureLog(options: { file: string | null; stderr: boolean }): void {
  logFile = options.file;
  toStderr = options.stderr;
}

/** Writes one log line. Logging never throws. */
export function log(level: "info" | "warn" | "error", message: string): void {
  const line = `${new Date().toISOString()} ${level} ${message}\n`;
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
    const size = Deno.statSync(logFile).size;
    if (size > MAX_LOG_BYTES) Deno.renameSync(logFile, `${logFile}.1`);
  } catch {
    // No file yet.
  }
  try {
    Deno.writeFileSync(logFile, bytes, { append: true, create: true, mode: 0o600 });
  } catch {
    // Logging is best effort.
  }
}
