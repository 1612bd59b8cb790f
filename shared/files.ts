/**
 * Files that are what they seem: every file the product reads or writes on the person's behalf
 * is checked to be a regular file (a FIFO would hang a read forever, a device would never end),
 * read only up to a bound, and, where a link must not be followed, refused when it is one.
 *
 * Deno's `open` has no `O_NOFOLLOW` and no `O_NONBLOCK`, so each open is bracketed: `lstat`
 * (or `stat` where a link may be followed) before it says what the name is, and `fstat` on the
 * opened file after it must name the same file (device and inode). A name swapped between the
 * two is then refused before a byte is read or written. What stays open: a swap to a FIFO in that
 * window blocks the open itself until the FIFO's other end opens (recorded in decision 0287).
 *
 * @module
 */

/** A file refused: the reason names the file and what is wrong with it, in words. */
export class FileRefused extends Error {}

/** How a file may be reached. */
export interface FileRules {
  /** Refuse the name when it is a symbolic link (default: true). */
  noFollow?: boolean;
  /** The most bytes a read takes; a larger file is refused. */
  maxBytes: number;
}

/** What a name is, in words, for a refusal. */
function kindOf(info: Deno.FileInfo): string {
  if (info.isSymlink) return "a symbolic link";
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  return "not a regular file";
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The name's file information, or null when nothing is there; links followed or not. */
export async function statOrNull(path: string, follow: boolean): Promise<Deno.FileInfo | null> {
  try {
    return follow ? await Deno.stat(path) : await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The name's own information (a link not followed), or null when nothing is there. */
function lstatOrNullSync(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The name's information when it is a regular file within the rules; refused otherwise. */
function checkRegular(path: string, info: Deno.FileInfo, rules: FileRules): void {
  if (!info.isFile || info.isSymlink) {
    throw new FileRefused(`${path} is ${kindOf(info)}, not a regular file; it is not read`);
  }
  if (info.size > rules.maxBytes) {
    throw new FileRefused(
      `${path} is ${info.size} bytes, more than the ${rules.maxBytes} this file may be; ` +
        "it is not read",
    );
  }
}

/**
 * Reads a regular file of at most `maxBytes`, or null when there is none. Refuses a link (unless
 * `noFollow` is false), a FIFO, a device, a folder and a file over the bound, with the reason.
 */
export async function readRegularFile(
  path: string,
  rules: FileRules,
): Promise<Uint8Array | null> {
  const before = await statOrNull(path, rules.noFollow === false);
  if (before === null) return null;
  checkRegular(path, before, rules);
  using file = await Deno.open(path, { read: true });
  const opened = await file.stat();
  if (!sameFile(before, opened)) {
    throw new FileRefused(`${path} was replaced while it was being opened; it is not read`);
  }
  checkRegular(path, opened, rules);
  // One byte more than the bound tells a file that grew after the check.
  const buffer = new Uint8Array(Math.min(opened.size, rules.maxBytes) + 1);
  let read = 0;
  while (read < buffer.length) {
    const n = await file.read(buffer.subarray(read));
    if (n === null) break;
    read += n;
  }
  if (read > rules.maxBytes) {
    throw new FileRefused(`${path} grew past the ${rules.maxBytes} bytes it may be; not read`);
  }
  return buffer.subarray(0, read);
}

/** {@linkcode readRegularFile} as UTF-8 text. */
export async function readRegularText(path: string, rules: FileRules): Promise<string | null> {
  const bytes = await readRegularFile(path, rules);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/**
 * Appends `bytes` to the regular file `path`, never through a link: an absent name is created
 * exclusively (`O_EXCL` does not follow a link left there), an existing one must be a regular
 * file that is still the same file once opened. Synchronous, for the audit and the log.
 */
export function appendRegularFileSync(path: string, bytes: Uint8Array, mode: number): void {
  const before = lstatOrNullSync(path);
  if (before !== null && (!before.isFile || before.isSymlink)) {
    throw new FileRefused(`${path} is ${kindOf(before)}, not a regular file; nothing is written`);
  }
  using file = before === null
    ? Deno.openSync(path, { write: true, append: true, createNew: true, mode })
    : Deno.openSync(path, { write: true, append: true });
  if (before !== null && !sameFile(before, file.statSync())) {
    throw new FileRefused(`${path} was replaced while it was being opened; nothing is written`);
  }
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
}

/**
 * Writes `bytes` over the start of the regular file `path` in place, never through a link, and
 * cuts off anything past them. In place, not a new file renamed over the old: on ext4 a rename
 * over a file or a truncation to zero flushes the data to disk at once, 6–9 ms a write on this
 * machine against a fraction of a millisecond in place.
 */
export function overwriteRegularFileSync(path: string, bytes: Uint8Array, mode: number): void {
  const before = lstatOrNullSync(path);
  if (before !== null && (!before.isFile || before.isSymlink)) {
    throw new FileRefused(`${path} is ${kindOf(before)}, not a regular file; nothing is written`);
  }
  using file = before === null
    ? Deno.openSync(path, { write: true, createNew: true, mode })
    : Deno.openSync(path, { write: true });
  const opened = file.statSync();
  if (before !== null && !sameFile(before, opened)) {
    throw new FileRefused(`${path} was replaced while it was being opened; nothing is written`);
  }
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  if (opened.size > bytes.length) file.truncateSync(bytes.length);
}
