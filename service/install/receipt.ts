/**
 * The install receipt: what `ghostlight install` wrote outside its prefix and how to undo each
 * edit exactly. Uninstall recognises its entries by their shape first and uses the receipt for
 * the exact bytes; doctor checks every hop it names.
 *
 * @module
 */

import { z } from "zod";
import { BrowserId, RegistryValue } from "./browsers.ts";
import { ClientId } from "./clients.ts";
import { FileRefused, readRegularText } from "../../shared/files.ts";

/** One client entry install added. */
export const ClientRecord = z.object({
  client: ClientId,
  path: z.string(),
  /** The server name the entry has (ours, or a free one next to a foreign entry). */
  name: z.string(),
  /** True when install created the file. */
  created: z.boolean(),
  /** Replacing `find` (there exactly once) with `replace` gives the file back as it was. */
  inverse: z.object({ find: z.string(), replace: z.string() }),
});
export type ClientRecord = z.infer<typeof ClientRecord>;

/** What one install of one instance wrote. */
export const Receipt = z.object({
  receipt: z.literal(1),
  version: z.string(),
  instance: z.string().nullable(),
  mode: z.enum(["compiled", "sources"]),
  extension: z.object({ id: z.string(), version: z.string(), dir: z.string() }),
  /** Files written outside the prefix, with the SHA-256 of what was written. */
  files: z.array(z.object({ path: z.string(), sha256: z.string() })),
  /** Symbolic links made: systemd's enablement, by installs before decision 0084; now none. */
  links: z.array(z.object({ path: z.string(), target: z.string() })),
  /** Folders created outside the prefix, in the order they were made. */
  dirs: z.array(z.string()),
  clients: z.array(ClientRecord),
  browsers: z.array(z.object({ browser: BrowserId, manifest: z.string() })),
  /** Windows registry values set. */
  registry: z.array(RegistryValue),
  autostart: z.boolean(),
  /** Copies of files as they were before install first changed them. */
  backups: z.array(z.object({ path: z.string(), backup: z.string() })),
});
export type Receipt = z.infer<typeof Receipt>;

/** The most bytes a receipt may be: one lists a few dozen paths. */
export const MAX_RECEIPT_BYTES = 1024 * 1024;

/**
 * The receipt at `path`: null when there is none, an error message when it is unreadable or is
 * not a regular file of at most {@linkcode MAX_RECEIPT_BYTES} (a link, a FIFO: decision 0339).
 */
export async function readReceipt(path: string): Promise<Receipt | null | string> {
  let text: string | null;
  try {
    text = await readRegularText(path, { maxBytes: MAX_RECEIPT_BYTES });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof FileRefused) return error.message;
    return `${path} cannot be read: ${(error as Error).message}`;
  }
  if (text === null) return null;
  try {
    const parsed = Receipt.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : `${path} is not an install receipt`;
  } catch {
    return `${path} is not valid JSON`;
  }
}

/** The receipt's text, stable for equal receipts so a second install changes no byte. */
export function receiptText(receipt: Receipt): string {
  return `${JSON.stringify(receipt, null, 2)}\n`;
}
