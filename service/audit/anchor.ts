/**
 * The audit's anchor: a small file beside the audit, rewritten in place after every record, that
 * names the chain's head (its last record's sequence and hash) and the first record still kept,
 * MAC'd under the chain key. The audit alone cannot show that its last records were cut off or
 * that it was deleted; against the anchor both show, and so does an oldest rotated file removed
 * out of turn (decision 0285).
 *
 * @module
 */

import { z } from "zod";
import { overwriteRegularFileSync, readRegularText } from "../../shared/files.ts";
import type { ChainKey } from "./keyed.ts";

/**
 * Every anchor is written as exactly this many bytes (its JSON padded with spaces), so each write
 * covers the one before within one disk block, and nothing of an older one is left past it.
 */
const ANCHOR_BYTES = 512;

/** What the anchor says of the chain. */
export const AnchorState = z.object({
  /** The last record's sequence (0: none written yet) and hash. */
  seq: z.number().int().nonnegative(),
  head: z.string().max(80).nullable(),
  /** The sequence of the oldest record still kept (0: none yet). */
  first: z.number().int().nonnegative(),
  /** Rotations so far: each moves the current file aside. */
  rotations: z.number().int().nonnegative(),
}).strict();
export type AnchorState = z.infer<typeof AnchorState>;

const AnchorFile = z.object({ v: z.literal(1), state: AnchorState, mac: z.string().max(100) })
  .strict();

/** The anchor file of the audit file `auditFile`: `audit.anchor` beside it. */
export function anchorFileOf(auditFile: string): string {
  const slash = auditFile.lastIndexOf("/");
  return `${auditFile.slice(0, slash + 1)}audit.anchor`;
}

function macOf(state: AnchorState, key: ChainKey): string {
  return key.mac(`anchor\n${JSON.stringify(state)}`);
}

/** The anchor's state, null when there is none, or why it cannot be trusted (a string). */
export async function readAnchor(
  file: string,
  key: ChainKey,
): Promise<AnchorState | null | string> {
  let text: string | null;
  try {
    text = await readRegularText(file, { maxBytes: ANCHOR_BYTES });
  } catch (error) {
    return `the audit's anchor ${file} cannot be read (${(error as Error).message})`;
  }
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return `the audit's anchor ${file} is not JSON: it was damaged or edited`;
  }
  const parsed = AnchorFile.safeParse(raw);
  if (!parsed.success) return `the audit's anchor ${file} is not an anchor: it was edited`;
  const { state, mac } = parsed.data;
  if (macOf(state, key) !== mac) {
    return `the audit's anchor ${file} does not carry the service's MAC: it was edited`;
  }
  return state;
}

/**
 * Writes the anchor over the last one, in place. A write torn by a crash fails the MAC at the
 * next start, which records it as a gap (decision 0285).
 */
export function writeAnchorSync(file: string, state: AnchorState, key: ChainKey): void {
  const text = JSON.stringify({ v: 1, state, mac: macOf(state, key) });
  const line = `${text.padEnd(ANCHOR_BYTES - 1)}\n`;
  if (line.length !== ANCHOR_BYTES) throw new Error("an anchor outgrew its fixed size");
  overwriteRegularFileSync(file, new TextEncoder().encode(line), 0o600);
}
