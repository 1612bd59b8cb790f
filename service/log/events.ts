/**
 * The facts a log line can carry for a program to read (decision 0322): after the line's words,
 * a tab and one JSON record of a kind named here. The words are for people and may change; a
 * reader (`doctor`) reads the record, checked by its schema, never the words. The tab cannot
 * occur in the words ({@linkcode logSafe} escapes it), so a peer's text in a message cannot
 * forge a record.
 *
 * @module
 */

import { z } from "zod";

/** A browser's extension said hello and was attached. */
const BrowserAttached = z.object({
  event: z.literal("browser_attached"),
  slot: z.number().int().nonnegative(),
  extension: z.string().max(64),
});

/** Every record a log line may carry. */
export const LogEvent = z.discriminatedUnion("event", [BrowserAttached]);
export type LogEvent = z.infer<typeof LogEvent>;

/** A record read back from a log line, with the line's time. */
export type LoggedEvent = LogEvent & { at: string };

/** What separates a line's words from its record. */
export const RECORD_SEPARATOR = "\t";

/**
 * The line's tail for `event`: the separator and the record as JSON; nothing for a record its
 * schema refuses (logging never throws, and a reader would pass it over).
 */
export function recordTail(event: LogEvent): string {
  const checked = LogEvent.safeParse(event);
  return checked.success ? `${RECORD_SEPARATOR}${JSON.stringify(checked.data)}` : "";
}

const LineTime = z.iso.datetime();

/**
 * The records of kind `kind` in a log's text, oldest first. A line without a record, or whose
 * record or time does not match its schema, is passed over: the log is the service's own file,
 * but a reader still fails closed on what it cannot vouch for.
 */
export function loggedEvents<K extends LogEvent["event"]>(
  text: string,
  kind: K,
): (Extract<LogEvent, { event: K }> & { at: string })[] {
  const found: (Extract<LogEvent, { event: K }> & { at: string })[] = [];
  for (const line of text.split("\n")) {
    const split = line.indexOf(RECORD_SEPARATOR);
    if (split < 0) continue;
    const at = LineTime.safeParse(line.slice(0, line.indexOf(" ")));
    let record: unknown;
    try {
      record = JSON.parse(line.slice(split + 1));
    } catch {
      continue;
    }
    const event = LogEvent.safeParse(record);
    if (!at.success || !event.success || event.data.event !== kind) continue;
    found.push({ ...event.data as Extract<LogEvent, { event: K }>, at: at.data });
  }
  return found;
}
