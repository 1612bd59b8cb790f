/**
 * The audit file: append-only JSON Lines, one record per decision and per outcome, chained by
 * keyed hash, rotated by size with the chain carried into the next file, and anchored: after
 * every record the anchor beside it names the new head (decision 0285). Writing fails closed:
 * when a record cannot be written the caller hears why (and refuses its call), and every later
 * write fails the same way until the service restarts, since a chain with a hole would prove
 * nothing. Records found missing at start (a deleted or cut audit, a removed anchor) do not stop
 * the service: its first record says what was missing, and `audit verify` fails on it until the
 * person looks and resets the audit.
 *
 * @module
 */

import { appendRegularFileSync, readRegularFile, statOrNull } from "../../shared/files.ts";
import { log } from "../log/mod.ts";
import { anchorFileOf, type AnchorState, readAnchor, writeAnchorSync } from "./anchor.ts";
import type { ChainKey } from "./keyed.ts";
import { type AuditEntry, type AuditRecord, hashHolds, seal, serialize } from "./record.ts";
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
  /** The chain key ({@linkcode ChainKey.derive} of the service's secret). */
  key: ChainKey;
  /**
   * The instance ran before this start (its secret was already there): an audit with no records
   * and no anchor was then deleted, not never begun.
   */
  hadRun?: boolean;
}

/** What `status` says of the audit. */
export interface AuditState {
  file: string;
  ok: boolean;
  /** Records written since the service started. */
  written: number;
  error?: string;
  /** Records found missing when this service started (recorded as a gap), in words. */
  gap?: string;
}

/** A record the audit writes about itself. */
export function auditEvent(result: "gap" | "reset", rule: string): AuditEntry {
  return {
    kind: "audit",
    result,
    principal: null,
    client: "ghostlight",
    workspace: null,
    work: null,
    tool: "audit",
    action: null,
    host: null,
    capabilities: [],
    rule,
    args: "none",
  };
}

/** The audit of one service. */
export class AuditLog {
  readonly #options: AuditOptions;
  readonly #anchorFile: string;
  #end: ChainEnd | null;
  #anchor: AnchorState;
  #size: number;
  #broken: string | null;
  #written = 0;
  /** What this service found missing at its start, or null. */
  #gap: string | null = null;
  /** The file ends in the middle of a line: the next record starts with a newline. */
  #newlineFirst = false;
  /** Appends run one after another: the chain needs each record's predecessor. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    options: AuditOptions,
    end: ChainEnd | null,
    anchor: AnchorState,
    size: number,
    broken: string | null,
  ) {
    this.#options = options;
    this.#anchorFile = anchorFileOf(options.file);
    this.#end = end;
    this.#anchor = anchor;
    this.#size = size;
    this.#broken = broken;
  }

  /**
   * Opens the audit, continuing the chain from its last record (in the current file, else the
   * newest rotated one) and checking it against the anchor. An unreadable last record leaves the
   * audit unwritable, with the reason; records missing against the anchor are written down as a
   * gap, first thing, and the chain goes on.
   */
  static async open(options: AuditOptions): Promise<AuditLog> {
    const anchorFile = anchorFileOf(options.file);
    let size = 0;
    try {
      const info = await statOrNull(options.file, false);
      if (info !== null && (!info.isFile || info.isSymlink)) {
        throw new Error(`${options.file} is not a regular file (a link or a FIFO is not written)`);
      }
      size = info?.size ?? 0;
      const anchor = await readAnchor(anchorFile, options.key);
      const trusted = typeof anchor === "object" && anchor !== null ? anchor : null;
      let damaged: string | null = null;
      let end: ChainEnd | null;
      try {
        end = await lastRecord(options.file, size, options.key) ??
          await lastRecordOfRotated(options.file, options.key);
      } catch (error) {
        // A damaged last record cannot say where the chain goes on; a trusted anchor can, so the
        // damage is recorded and the service keeps serving. Without one, the audit stays shut.
        if (trusted === null || trusted.head === null) throw error;
        damaged = (error as Error).message;
        end = { seq: trusted.seq, hash: trusted.head };
      }
      const found = gapOf(end, anchor, options.hadRun === true);
      const gap = damaged === null ? found : { reason: damaged, from: end };
      const from = gap?.from ?? end;
      // A damaged first record must not stop the service either (verify names it): the anchor
      // still says which record is the first kept. No file at all: the next record is.
      const kept = await firstKept(options.file, options.key).catch(() => undefined);
      const state: AnchorState = {
        seq: from?.seq ?? 0,
        head: from?.hash ?? null,
        first: kept === undefined
          ? trusted?.first ?? 0
          : kept ?? (from === null ? 0 : from.seq + 1),
        rotations: trusted?.rotations ?? 0,
      };
      const audit = new AuditLog(options, from, state, size, null);
      // A record cut off mid-line (a crash) ends without a newline: the next starts on its own.
      audit.#newlineFirst = damaged !== null && size > 0 &&
        !(await endsWithNewline(options.file, size));
      if (gap !== null) {
        log("error", `the audit has a gap: ${gap.reason}; recorded as the next record`);
        audit.#gap = gap.reason;
        // A record that cannot be written leaves the audit refusing, with the reason.
        await audit.append(auditEvent("gap", gap.reason)).catch(() => {});
      } else {
        writeAnchorSync(anchorFile, state, options.key);
      }
      return audit;
    } catch (error) {
      const reason = `${(error as Error).message}; run 'ghostlight audit verify', move the ` +
        "damaged file aside and restart the service";
      log("error", `the audit cannot be continued: ${reason}`);
      return new AuditLog(
        options,
        null,
        { seq: 0, head: null, first: 0, rotations: 0 },
        size,
        reason,
      );
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
      ...(this.#gap === null ? {} : { gap: this.#gap }),
    };
  }

  async #append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.#broken !== null) throw new AuditUnavailable(this.#broken);
    const { key } = this.#options;
    const record = seal(entry, this.#end ?? { seq: 0, hash: null }, new Date(), key);
    const bytes = new TextEncoder().encode(
      `${this.#newlineFirst ? "\n" : ""}${serialize(record)}\n`,
    );
    try {
      if (this.#size > 0 && this.#size + bytes.length > this.#options.maxBytes) {
        await this.#rotate();
      }
      // In this thread (decision 0217): the async write was a trip to a blocking thread and
      // back, 0.2–0.25 ms a record on this machine against a few µs here, and every call waits
      // for two records. Still opened by name for each record, so a moved file is seen, and
      // never through a link (decision 0287).
      appendRegularFileSync(this.#options.file, bytes, 0o600);
      const anchor: AnchorState = {
        ...this.#anchor,
        seq: record.seq,
        head: record.hash,
        first: this.#anchor.first || record.seq,
      };
      writeAnchorSync(this.#anchorFile, anchor, key);
      this.#anchor = anchor;
    } catch (error) {
      this.#broken = `the audit file ${this.#options.file} could not be written ` +
        `(${(error as Error).message})`;
      log("error", `${this.#broken}; every call is refused until the service restarts`);
      throw new AuditUnavailable(this.#broken);
    }
    this.#size += bytes.length;
    this.#newlineFirst = false;
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
    const first = await firstKept(this.#options.file, this.#options.key).catch(() => null);
    this.#anchor = {
      ...this.#anchor,
      first: first ?? this.#anchor.first,
      rotations: this.#anchor.rotations + 1,
    };
  }
}

/**
 * Records found missing at start, against the anchor, and where the chain goes on from; null
 * when nothing is missing.
 */
function gapOf(
  end: ChainEnd | null,
  anchor: AnchorState | null | string,
  hadRun: boolean,
): { reason: string; from: ChainEnd | null } | null {
  if (typeof anchor === "string") return { reason: anchor, from: end };
  if (anchor === null) {
    if (end !== null && !end.hash.startsWith("sha256:")) {
      return {
        reason: `the audit's anchor was deleted (the audit ends at record ${end.seq})`,
        from: end,
      };
    }
    if (end === null && hadRun) {
      return {
        reason: "there was no audit and no anchor, but this instance had run before: the " +
          "audit and its anchor were deleted",
        from: null,
      };
    }
    // A fresh audit, or one from before anchoring (its records are legacy): anchored from now.
    return null;
  }
  const last = end?.seq ?? 0;
  if (end === null && anchor.seq > 0) {
    return {
      reason: `the audit was deleted: its anchor names record ${anchor.seq}, and no record is left`,
      // The chain goes on from the anchored head, so the new records say where they follow.
      from: anchor.head === null ? null : { seq: anchor.seq, hash: anchor.head },
    };
  }
  if (last < anchor.seq) {
    return {
      reason: `the audit ends at record ${last}, but its anchor names record ${anchor.seq}: ` +
        `${anchor.seq - last} record(s) were cut off the end`,
      from: end,
    };
  }
  if (end !== null && last === anchor.seq && end.hash !== anchor.head) {
    return { reason: `record ${last} is not the one the anchor names: it was replaced`, from: end };
  }
  return null;
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

/** A record is far smaller than this; a file's first or last line is within it. */
const EDGE_BYTES = 64 * 1024;

/** Bytes `[start, end)` of a regular file, never through a link. */
async function slice(file: string, start: number, end: number): Promise<string> {
  const info = await statOrNull(file, false);
  if (info === null || !info.isFile) throw new Error(`${file} is not a regular file`);
  using handle = await Deno.open(file, { read: true });
  await handle.seek(start, Deno.SeekMode.Start);
  const buffer = new Uint8Array(end - start);
  let read = 0;
  while (read < buffer.length) {
    const n = await handle.read(buffer.subarray(read));
    if (n === null) break;
    read += n;
  }
  return new TextDecoder().decode(buffer.subarray(0, read));
}

/** A line as a checked record, or why not. */
function checked(file: string, line: string, key: ChainKey): AuditRecord {
  const record = parseRecord(line);
  if (typeof record === "string") throw new Error(`the last record of ${file} ${record}`);
  if (hashHolds(record, key) === false) throw new Error(`the last record of ${file} was edited`);
  return record;
}

/** The last record of a file of `size` bytes, checked; null for an absent or empty file. */
async function lastRecord(file: string, size: number, key: ChainKey): Promise<ChainEnd | null> {
  if (size === 0) return null;
  const text = await slice(file, Math.max(0, size - EDGE_BYTES), size);
  if (!text.endsWith("\n")) throw new Error(`the last record of ${file} was cut off`);
  const record = checked(file, text.slice(0, -1).split("\n").at(-1)!, key);
  return { seq: record.seq, hash: record.hash };
}

/** Whether a file of `size` bytes ends with a newline. */
async function endsWithNewline(file: string, size: number): Promise<boolean> {
  return (await slice(file, size - 1, size)) === "\n";
}

/** The last record of the newest rotated file, when the current one is empty or absent. */
async function lastRecordOfRotated(file: string, key: ChainKey): Promise<ChainEnd | null> {
  const newest = (await rotatedNumbers(file)).at(-1);
  if (newest === undefined) return null;
  const path = `${file}.${newest}`;
  return await lastRecord(path, (await Deno.stat(path)).size, key);
}

/** The sequence of the oldest record kept (the oldest file's first line), or null for none. */
async function firstKept(file: string, key: ChainKey): Promise<number | null> {
  const oldest = (await rotatedNumbers(file)).at(0);
  const path = oldest === undefined ? file : `${file}.${oldest}`;
  const info = await statOrNull(path, false);
  if (info === null || info.size === 0) return null;
  const text = await slice(path, 0, Math.min(info.size, EDGE_BYTES));
  const line = text.split("\n")[0];
  const record = parseRecord(line);
  if (typeof record === "string" || hashHolds(record, key) === false) {
    throw new Error(
      `the first record of ${path} ${typeof record === "string" ? record : "was edited"}`,
    );
  }
  return record.seq;
}

/** Reads a whole audit file for verification, never through a link and never a FIFO. */
export async function readAuditFile(file: string): Promise<string> {
  // Rotation keeps each file within its setting (at most 1 GiB); this keeps a planted one out.
  const bytes = await readRegularFile(file, { maxBytes: 1024 * 1024 * 1024 + 64 * 1024 });
  if (bytes === null) throw new Deno.errors.NotFound(`${file} does not exist`);
  return new TextDecoder().decode(bytes);
}
