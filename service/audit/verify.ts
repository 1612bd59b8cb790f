/**
 * Verifying an audit: every line is a record in the fixed form, its hash matches its content,
 * and it follows the record before it (its `prev` is that record's hash, its `seq` the next
 * number). The first bad line is named: an edited record fails its own hash, a removed, inserted
 * or reordered one fails the link to the record before.
 *
 * @module
 */

import { AuditRecord, hashOf, serialize } from "./record.ts";

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

/** The result of a verification. */
export type Verification =
  | { ok: true; records: number; end: ChainEnd | null }
  | { ok: false; file: string; line: number; reason: string };

/**
 * Verifies files that continue one another, oldest first. The first file's first record may
 * follow a record that is not given (a rotated-away file) unless it is the first record ever.
 */
export function verifyAudit(files: readonly AuditText[]): Verification {
  let end: ChainEnd | null = null;
  let records = 0;
  let first = true;
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
      const { hash, ...rest } = record;
      if (hashOf(rest) !== hash) {
        return bad("was edited: its hash does not match its content");
      }
      if (end === null && record.seq === 1 && record.prev !== null) {
        return bad("claims to be the first record but names a record before it");
      }
      if (end !== null || !first) {
        if (end === null || record.prev !== end.hash) {
          return bad(
            "does not follow the record before it (a record was removed, inserted or reordered)",
          );
        }
        if (record.seq !== end.seq + 1) {
          return bad(`is record ${record.seq} but follows record ${end.seq}`);
        }
      }
      first = false;
      end = { seq: record.seq, hash };
      records++;
    }
  }
  return { ok: true, records, end };
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
