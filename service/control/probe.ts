/**
 * What the control API's `POST /probe` returns: a harmless command sent to each attached browser
 * a number of times in a row, and how long each answer took as the service timed it (send to
 * answer, sub-millisecond), so `ghostlight doctor` can prove the hop through the browser
 * connector, native messaging and the extension is alive rather than merely listed, and say
 * what one bare trip through it costs. The bench subtracts that trip from a light call.
 *
 * @module
 */

import { z } from "zod";

/** The most round trips one probe makes to each browser. */
export const MAX_PROBE_ROUNDS = 100;

/** The query of `POST /probe`: `?rounds=N`, one round trip when absent. */
export const ProbeQuery = z.object({
  rounds: z.coerce.number().int().min(1).max(MAX_PROBE_ROUNDS).default(1),
});
export type ProbeQuery = z.infer<typeof ProbeQuery>;

/** One browser's answer to the probe. */
export const BrowserProbe = z.object({
  slot: z.number(),
  extensionVersion: z.string(),
  /** The median of `samplesMs`; null when an answer did not come. */
  ms: z.number().nullable(),
  /** Milliseconds from sending each command to its answer, in order (to 0.001 ms). */
  samplesMs: z.array(z.number()),
  /** Why the probe failed, when it did. */
  error: z.string().optional(),
});

/** What `POST /probe` returns. */
export const Probe = z.object({ browsers: z.array(BrowserProbe) });
export type Probe = z.infer<typeof Probe>;

/**
 * The middle of `values` (the mean of the two middle ones for an even count); null when there are
 * none. The probe's `ms`, and the bench's figures, are medians: one slow trip on a loaded machine
 * does not move them.
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
