/**
 * Verifying an audit: every line is a record in the fixed form, its keyed hash matches its
 * content, and it follows the record before it (its `prev` is that record's hash, its `seq` the
 * next number). The first bad line is named: an edited record fails its own hash (recomputing it
 * needs the service's key), a removed, inserted or reordered one fails the link to the record
 * before. Records written before the chain was keyed (plain `sha256:`) are counted apart: their
 * order holds, but anyone could have rewritten them. Against the anchor ({@linkcode checkAnchor})
 * a cut end, a deleted audit and an oldest file removed out of turn show too.
 *
 * @module
 */

import type { AnchorState } from "./anchor.ts";
import type { ChainKey } from "./keyed.ts";
import { AuditRecord, hashHolds, serialize } from "./record.ts";

/** One file's text, named for messages. */
export interface AuditText {
  name: string;
  text: string;
}

/** Where a verified chain ended: the last record's sequence and hash. */
export interface ChainEnd {
  seq: number;
  hash: string;
}

/** A record about the audit itself (a gap found, a reset by the person). */
export interface AuditEvent {
  seq: number;
  time: string;
  result: string;
  rule: string | null;
}

/** The result of a verification. */
export type Verification =
  | {
    ok: true;
    records: number;
    /** Records before the chain was keyed (plain hashes): consistent, not vouched for. */
    legacy: number;
    /** The first record's sequence, or null when there is none. */
    first: number | null;
    end: ChainEnd | null;
    /** The records about the audit itself: gaps found and resets, oldest first. */
    events: AuditEvent[];
    /** The hash of the record the anchor names, when it was among those read. */
    anchored?: string;
  }
  | { ok: false; file: string; line: number; reason: string };

/**
 * Verifies files that continue one another, oldest first. The first file's first record may
 * follow a record that is not given (a rotated-away file) unless it is the first record ever.
 * `anchorSeq` names the record whose hash the result should report, for the anchor check.
 */
export function verifyAudit(
  files: readonly AuditText[],
  key: ChainKey,
  anchorSeq?: number,
): Verification {
  let end: ChainEnd | null = null;
  let records = 0;
  let legacy = 0;
  let first: number | null = null;
  let anchored: string | undefined;
  const events: AuditEvent[] = [];
  for (const file of files) {
    const lines = file.text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (const [index, line] of lines.entries()) {
      const bad = (reason: string): Verification => ({
        ok: false,
        file: file.name,
        line: index + 1,
        reason,
      });
      const record = parseRecord(line);
      if (typeof record === "string") return bad(record);
      if (serialize(record) !== line) {
        return bad("was edited: it is not in the audit's fixed form");
      }
      const holds = hashHolds(record, key);
      if (holds === false) {
        return bad(
          record.hash.startsWith("sha256:")
            ? "was edited: its hash does not match its content"
            : "was edited: its keyed hash does not match its content (edited, or written " +
              "without the service's key)",
        );
      }
      if (holds === "legacy" && records > legacy) {
        return bad("carries a plain hash after keyed records: it was not written by the service");
      }
      if (end === null && record.seq === 1 && record.prev !== null) {
        return bad("claims to be the first record but names a record before it");
      }
      if (end !== null || first !== null) {
        if (end === null || record.prev !== end.hash) {
          return bad(
            "does not follow the record before it (a record was removed, inserted or reordered)",
          );
        }
        if (record.seq !== end.seq + 1) {
          return bad(`is record ${record.seq} but follows record ${end.seq}`);
        }
      }
      first ??= record.seq;
      if (holds === "legacy") legacy++;
      if (record.kind === "audit") {
        events.push({
          seq: record.seq,
          time: record.time,
          result: record.result,
          rule: record.rule,
        });
      }
      if (record.seq === anchorSeq) anchored = record.hash;
      end = { seq: record.seq, hash: record.hash };
      records++;
    }
  }
  return {
    ok: true,
    records,
    legacy,
    first,
    end,
    events,
    ...(anchored === undefined ? {} : { anchored }),
  };
}

/**
 * What the anchor finds wrong with a verified chain, or null: the chain must reach the record it
 * names (with that hash) and start at the first record it says is kept. Records past the anchor
 * are fine: the service writes a record, then its anchor, and may stop between the two.
 */
export function checkAnchor(
  result: Extract<Verification, { ok: true }>,
  anchor: AnchorState,
): string | null {
  const last = result.end?.seq ?? 0;
  if (last < anchor.seq) {
    return result.end === null
      ? `the audit's anchor names record ${anchor.seq}, but there are no records: the audit ` +
        "was deleted"
      : `the audit ends at record ${last}, but its anchor names record ${anchor.seq}: ` +
        `${anchor.seq - last} record(s) were cut off the end`;
  }
  if (anchor.seq > 0 && result.anchored !== undefined && result.anchored !== anchor.head) {
    return `record ${anchor.seq} is not the one the anchor names: it was replaced`;
  }
  if (anchor.first > 0 && result.first !== null && result.first !== anchor.first) {
    return `the oldest record kept is ${result.first}, but the anchor says ${anchor.first}: ` +
      (result.first > anchor.first
        ? "an audit file was removed out of turn"
        : "an audit file was put back");
  }
  return null;
}

/** A line as a record, or why it is not one. */
export function parseRecord(line: string): AuditRecord | string {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return "is not a JSON record";
  }
  const parsed = AuditRecord.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `is not an audit record (${issue.path.join(".") || "record"}: ${issue.message})`;
  }
  return parsed.data;
}
