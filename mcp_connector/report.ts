/**
 * The connector's own messages to the person who reads its log: stderr, never stdout (which is
 * the protocol's).
 *
 * @module
 */

/** Writes one line to stderr; a closed stderr loses it. */
export function report(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`ghostlight-mcp-connector: ${message}\n`));
  } catch {
    // stderr closed; nothing else to do.
  }
}
