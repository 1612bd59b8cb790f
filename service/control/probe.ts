/**
 * What the control API's `POST /probe` returns: one harmless command sent to each attached
 * browser and how long its answer took, so `ghostlight doctor` can prove the hop through the
 * browser connector and the extension is alive rather than merely listed.
 *
 * @module
 */

import { z } from "zod";

/** One browser's answer to the probe. */
export const BrowserProbe = z.object({
  slot: z.number(),
  extensionVersion: z.string(),
  /** Milliseconds from sending the command to its answer; null when none came. */
  ms: z.number().nullable(),
  /** Why the probe failed, when it did. */
  error: z.string().optional(),
});

/** What `POST /probe` returns. */
export const Probe = z.object({ browsers: z.array(BrowserProbe) });
export type Probe = z.infer<typeof Probe>;
