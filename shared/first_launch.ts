/**
 * What the Claude Desktop bundle's first launch set up, as `ghostlight status` shows it. The
 * installer writes it into the instance's state folder, which the service and its command line
 * already read under their own least privilege; the install record in the install prefix stays
 * out of their reach (decision 0354). Small, bounded and checked on both sides.
 *
 * @module
 */

import { z } from "zod";
import type { InstancePaths } from "./instance.ts";
import { overwriteRegularFileSync, readRegularText } from "./files.ts";

/** The most bytes the record may be; a larger file is refused, not read. */
export const FIRST_LAUNCH_MAX_BYTES = 16 * 1024;

/** The most registrations the record keeps (browsers and auto-start). */
export const FIRST_LAUNCH_MAX_ITEMS = 16;

const Text = z.string().max(500);

/** The record's shape. */
export const FirstLaunch = z.object({
  at: z.string().datetime(),
  prefix: Text,
  extension: Text,
  setUp: z.array(
    z.object({
      target: z.string().max(40),
      status: z.enum(["added", "present", "refused", "removed"]),
      detail: Text,
    }).strict(),
  ).max(FIRST_LAUNCH_MAX_ITEMS),
}).strict();
export type FirstLaunch = z.infer<typeof FirstLaunch>;

/** Where the record of `paths`'s instance lies. */
export function firstLaunchFile(paths: InstancePaths): string {
  return `${paths.stateDir}/first-launch.json`;
}

/** Writes the record, never through a link, owner-only. */
export function writeFirstLaunch(paths: InstancePaths, record: FirstLaunch): void {
  const bytes = new TextEncoder().encode(JSON.stringify(FirstLaunch.parse(record)) + "\n");
  if (bytes.length > FIRST_LAUNCH_MAX_BYTES) {
    throw new Error(`the first launch's record would be ${bytes.length} bytes; too large`);
  }
  Deno.mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  overwriteRegularFileSync(firstLaunchFile(paths), bytes, 0o600);
}

/**
 * The record, null when there is none; a file that is not one (a link, too large, not the shape)
 * is an error naming it.
 */
export async function readFirstLaunch(paths: InstancePaths): Promise<FirstLaunch | null> {
  const path = firstLaunchFile(paths);
  const text = await readRegularText(path, { maxBytes: FIRST_LAUNCH_MAX_BYTES });
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON; it is not read`);
  }
  const record = FirstLaunch.safeParse(parsed);
  if (!record.success) {
    throw new Error(`${path} is not a first launch's record: ${record.error.issues[0].message}`);
  }
  return record.data;
}
