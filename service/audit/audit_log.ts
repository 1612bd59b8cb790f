/**
 * The audit file: append-only JSON Lines, one record per decision and per outcome, chained by
 * hash, rotated by size with the chain carried into the next file. Writing fails closed: when a
 * record cannot be written the caller hears why (and refuses its call), and every later write
 * fails the same way until the service restarts, since a chain with a hole would prove nothing.
 *
 * @module
 */

import { log } from "../log/mod.ts";
import { type AuditEntry, type AuditRecord, hashOf, seal, serialize } from "./record.ts";
import { type ChainEnd, parseRecord } from "./verify.ts";

/** A record could not be written: the reason, for the refusal. */
export class AuditUnavailable extends Error {}

/** How the audit is kept. */
export interface AuditOptions {
  /** The current file; rotated files sit beside it as `<file>.1`, `<file>.2`, ... (oldest 1). */
  file: string;
  /** A file reaching this size is rotated before the next record. */
  maxBytes: number;
  /** How many rotated files are kept; the oldest beyond it are removed. */
  keepFiles: number;
}

/** What `status` says of the audit. */
export interface AuditState {
  file: string;
  ok: boolean;
  /** Records written since the service started. */
  written: number;
  error?: string;
}

/** The audit of one service. */
export class AuditLog {
  readonly #options: AuditOptions;
  #end: ChainEnd | null;
  #size: number;
  #broken: string | null;
  #written = 0;
  /** Appends run one after another: the chain needs each record's predecessor. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    options: AuditOptions,
    end: ChainEnd | null,
    size: number,
    broken: string | null,
  ) {
    this.#options = options;
    this.#end = end;
    this.#size = size;
    this.#broken = broken;
  }

  /**
   * Opens the audit, continuing the chain from its last record (in the current file, else the
   * newest rotated one). An unreadable last record leaves the audit unwritable, with the reason.
   */
  static async open(options: AuditOptions): Promise<AuditLog> {
    let size = 0;
    try {
      size = (await Deno.stat(options.file)).size;
    } catch {
      // No file yet.
    }
    try {
      const end = await lastRecord(options.file, size) ??
        await lastRecordOfRotated(options.file);
      return new AuditLog(options, end, size, null);
    } catch (error) {
      const reason = `${(error as Error).message}; run 'ghostlight audit verify', move the ` +
        "damaged file aside and restart the service";
      log("error", `the audit cannot be continued: ${reason}`);
      return new AuditLog(options, null, size, reason);
    }
  }

  /** Appends one record; throws {@linkcode AuditUnavailable} when it cannot be written. */
  append(entry: AuditEntry): Promise<AuditRecord> {
    const appended = this.#queue.then(() => this.#append(entry));
    this.#queue = appended.catch(() => {});
    return appended;
  }

  /** What the audit's state is now. */
  state(): AuditState {
    return {
      file: this.#options.file,
      ok: this.#broken === null,
      written: this.#written,
      ...(this.#broken === null ? {} : { error: this.#broken }),
    };
  }

  async #append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.#broken !== null) throw new AuditUnavailable(this.#broken);
    const record = seal(entry, this.#end ?? { seq: 0, hash: null }, new Date());
    const bytes = new TextEncoder().encode(`${serialize(record)}\n`);
    try {
      if (this.#size > 0 && this.#size + bytes.length > this.#options.maxBytes) {
        await this.#rotate();
      }
      // In this thread (decision 0217): the async write was a trip to a blocking thread and
      // back, 0.2–0.25 ms a record on this machine against a few µs here, and every call waits
      // for two records. Still opened by name for each record, so a moved file is seen.
      Deno.writeFileSync(this.#options.file, bytes, { append: true, create: true, mode: 0o600 });
    } catch (error) {
      this.#broken = `the audit file ${this.#options.file} could not be written ` +
        `(${(error as Error).message})`;
      log("error", `${this.#broken}; every call is refused until the service restarts`);
      throw new AuditUnavailable(this.#broken);
    }
    this.#size += bytes.length;
    this.#end = { seq: record.seq, hash: record.hash };
    this.#written++;
    return record;
  }

  /** Moves the current file to the next rotated name and drops the oldest beyond the bound. */
  async #rotate(): Promise<void> {
    const numbers = await rotatedNumbers(this.#options.file);
    const next = (numbers.at(-1) ?? 0) + 1;
    await Deno.rename(this.#options.file, `${this.#options.file}.${next}`);
    this.#size = 0;
    const excess = numbers.length + 1 - this.#options.keepFiles;
    for (const number of numbers.slice(0, Math.max(0, excess))) {
      await Deno.remove(`${this.#options.file}.${number}`).catch(() => {});
    }
  }
}

/** The numbers of the rotated files beside `file`, oldest (smallest) first. */
export async function rotatedNumbers(file: string): Promise<number[]> {
  const slash = file.lastIndexOf("/");
  const dir = file.slice(0, slash) || "/";
  const base = file.slice(slash + 1);
  const numbers: number[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const match = entry.isFile && entry.name.startsWith(`${base}.`)
        ? /^\d+$/.exec(entry.name.slice(base.length + 1))
        : null;
      if (match) numbers.push(Number(match[0]));
    }
  } catch {
    // No folder yet: no rotated files.
  }
  return numbers.sort((a, b) => a - b);
}

/** The last record of a file of `size` bytes, checked; null for an absent or empty file. */
async function lastRecord(file: string, size: number): Promise<ChainEnd | null> {
  if (size === 0) return null;
  // A record is far smaller than this; the last line is in it.
  const tail = 64 * 1024;
  using handle = await Deno.open(file, { read: true });
  const start = Math.max(0, size - tail);
  await handle.seek(start, Deno.SeekMode.Start);
  const buffer = new Uint8Array(size - start);
  let read = 0;
  while (read < buffer.length) {
    const n = await handle.read(buffer.subarray(read));
    if (n === null) break;
    read += n;
  }
  const text = new TextDecoder().decode(buffer.subarray(0, read));
  if (!text.endsWith("\n")) throw new Error(`the last record of ${file} was cut off`);
  const line = text.slice(0, -1).split("\n").at(-1)!;
  const record = parseRecord(line);
  if (typeof record === "string") throw new Error(`the last record of ${file} ${record}`);
  const { hash, ...rest } = record;
  if (hashOf(rest) !== hash) throw new Error(`the last record of ${file} was edited`);
  return { seq: record.seq, hash };
}

/** The last record of the newest rotated file, when the current one is empty or absent. */
async function lastRecordOfRotated(file: string): Promise<ChainEnd | null> {
  const newest = (await rotatedNumbers(file)).at(-1);
  if (newest === undefined) return null;
  const path = `${file}.${newest}`;
  return await lastRecord(path, (await Deno.stat(path)).size);
}
