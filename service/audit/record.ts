/**
 * One audit record: its schema, its fixed field order, and the hash chain. A record is one JSON
 * line whose fields always come in the same order; `hash` is the SHA-256 of the line as it would
 * be without `hash`, and that line includes `prev`, the previous record's hash. Editing,
 * removing, inserting or reordering a record therefore breaks the chain at that line.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { z } from "zod";

/** What a record is about: a decision before a call runs, or a call's outcome. */
export const RecordKind = z.enum(["decision", "outcome"]);

/** The audit record; its field order is the order of this schema and of every line. */
export const AuditRecord = z.object({
  /** 1 for the first record ever; consecutive across rotated files. */
  seq: z.number().int().positive(),
  /** ISO 8601, UTC, milliseconds. */
  time: z.string(),
  kind: RecordKind,
  /**
   * A decision's verdict (`allowed`, `observed`, `denied`, `sacred`, `held`, `attention`,
   * `stopped`, `unaudited`) or an outcome's kind (`success`, `tool_failure`, `denied`,
   * `not_dispatched`, `outcome_unknown`, `cancelled`, ...).
   */
  result: z.string().max(40),
  /** The MCP client's name. */
  client: z.string().max(200),
  /** A keyed tag of the workspace (never its id), or null. */
  workspace: z.string().max(40).nullable(),
  /** The work id, to join a decision with its outcome within one service run. */
  work: z.string().max(40).nullable(),
  tool: z.string().max(128),
  action: z.string().max(64).nullable(),
  /** The host the decision was about, or null when the call touches no site. */
  host: z.string().max(300).nullable(),
  capabilities: z.array(z.string().max(16)).max(4),
  /** The rule behind a decision, in words; an outcome's note, or null. */
  rule: z.string().max(2000).nullable(),
  /** The arguments as a keyed hash (`hmac-sha256:` + hex); never the arguments. */
  args: z.string().max(100),
  /** The previous record's hash; null only for the very first record. */
  prev: z.string().max(80).nullable(),
  hash: z.string().max(80),
}).strict();
export type AuditRecord = z.infer<typeof AuditRecord>;

/** The fields in their fixed order. */
export const FIELDS = Object.keys(AuditRecord.shape) as (keyof AuditRecord)[];
const FIELDS_BUT_HASH = FIELDS.filter((field) => field !== "hash");

/** A record before it is chained: everything but its sequence, chain and hash. */
export type AuditEntry = Omit<AuditRecord, "seq" | "time" | "prev" | "hash">;

/** A record's line, without its newline, fields in their fixed order. */
export function serialize(record: AuditRecord): string {
  return JSON.stringify(record, FIELDS);
}

/** The hash a record must carry: over its line without `hash` (which includes `prev`). */
export function hashOf(record: Omit<AuditRecord, "hash">): string {
  // In this thread (decision 0216): WebCrypto's digest is a trip to a worker thread and back.
  const digest = createHash("sha256").update(JSON.stringify(record, FIELDS_BUT_HASH), "utf8");
  return `sha256:${digest.digest("hex")}`;
}

/** Seals an entry as the record after the one whose hash and sequence are given. */
export function seal(
  entry: AuditEntry,
  after: { seq: number; hash: string | null },
  time: Date,
): AuditRecord {
  const unsealed = { seq: after.seq + 1, time: time.toISOString(), ...entry, prev: after.hash };
  // Built in field order, so the object reads as its line does.
  const ordered = Object.fromEntries(
    FIELDS_BUT_HASH.map((field) => [field, unsealed[field as keyof typeof unsealed]]),
  ) as Omit<AuditRecord, "hash">;
  return { ...ordered, hash: hashOf(ordered) };
}
