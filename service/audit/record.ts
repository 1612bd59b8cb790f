/**
 * One audit record: its schema, its fixed field order, and the hash chain. A record is one JSON
 * line whose fields always come in the same order; `hash` is the HMAC-SHA-256, under the
 * service's chain key, of the line as it would be without `hash`, and that line includes `prev`,
 * the previous record's hash. Editing, removing, inserting or reordering a record therefore
 * breaks the chain at that line, and without the key the chain cannot be recomputed after it.
 * Records written before the chain was keyed carry a plain `sha256:` hash (legacy).
 *
 * Every field is bounded, and a record is bounded before it is sealed ({@linkcode bounded}), so
 * no record the service writes can fail its own check (decision 0286).
 *
 * @module
 */

import { createHash } from "node:crypto";
import { z } from "zod";
import type { ChainKey } from "./keyed.ts";

/**
 * What a record is about: a decision before a call runs, a call's outcome, or the audit itself
 * (`gap`: records found missing at start; `reset`: the person started a new audit).
 */
export const RecordKind = z.enum(["decision", "outcome", "audit"]);

/** The longest each text field may be, in UTF-16 code units. */
export const LIMITS = {
  result: 40,
  principal: 64,
  client: 200,
  workspace: 40,
  work: 40,
  tool: 128,
  action: 64,
  host: 300,
  capability: 16,
  capabilities: 4,
  rule: 2000,
  args: 100,
} as const;

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
  result: z.string().max(LIMITS.result),
  /**
   * The principal the call came from, fixed when its connector was started: what grants bind
   * (decision 0303). Null in a record about the audit itself; absent from records written before
   * the field existed, which name only their client.
   */
  principal: z.string().max(LIMITS.principal).nullable().optional(),
  /** The MCP client's name, as it gave it: presentation only, never authority. */
  client: z.string().max(LIMITS.client),
  /** A keyed tag of the workspace (never its id), or null. */
  workspace: z.string().max(LIMITS.workspace).nullable(),
  /** The work id, to join a decision with its outcome within one service run. */
  work: z.string().max(LIMITS.work).nullable(),
  tool: z.string().max(LIMITS.tool),
  action: z.string().max(LIMITS.action).nullable(),
  /** The host the decision was about, or null when the call touches no site. */
  host: z.string().max(LIMITS.host).nullable(),
  capabilities: z.array(z.string().max(LIMITS.capability)).max(LIMITS.capabilities),
  /** The rule behind a decision, in words; an outcome's note, or null. */
  rule: z.string().max(LIMITS.rule).nullable(),
  /** The arguments as a keyed hash (`hmac-sha256:` + hex); never the arguments. */
  args: z.string().max(LIMITS.args),
  /** The previous record's hash; null only for the very first record. */
  prev: z.string().max(80).nullable(),
  hash: z.string().max(80),
}).strict();
export type AuditRecord = z.infer<typeof AuditRecord>;

/** The fields in their fixed order. */
export const FIELDS = Object.keys(AuditRecord.shape) as (keyof AuditRecord)[];
const FIELDS_BUT_HASH = FIELDS.filter((field) => field !== "hash");

/**
 * A record before it is chained: everything but its sequence, chain and hash. Every record the
 * service writes names its principal (null only for a record about the audit itself).
 */
export type AuditEntry = Omit<AuditRecord, "seq" | "time" | "prev" | "hash" | "principal"> & {
  principal: string | null;
};

/** A record's line, without its newline, fields in their fixed order. */
export function serialize(record: AuditRecord): string {
  return JSON.stringify(record, FIELDS);
}

/** The plain hash a legacy record carries: over its line without `hash`. */
export function legacyHashOf(record: Omit<AuditRecord, "hash">): string {
  // In this thread (decision 0216): WebCrypto's digest is a trip to a worker thread and back.
  const digest = createHash("sha256").update(JSON.stringify(record, FIELDS_BUT_HASH), "utf8");
  return `sha256:${digest.digest("hex")}`;
}

/** The keyed hash a record must carry: over its line without `hash` (which includes `prev`). */
export function hashOf(record: Omit<AuditRecord, "hash">, key: ChainKey): string {
  return key.mac(JSON.stringify(record, FIELDS_BUT_HASH));
}

/** How a record's hash holds: keyed and right, legacy (plain) and right, or wrong. */
export function hashHolds(record: AuditRecord, key: ChainKey): "keyed" | "legacy" | false {
  const { hash, ...rest } = record;
  if (hash.startsWith("sha256:")) return legacyHashOf(rest) === hash ? "legacy" : false;
  return hashOf(rest, key) === hash ? "keyed" : false;
}

/** `text` cut to `max` code units, marked with an ellipsis, never splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function clipOrNull(text: string | null, max: number): string | null {
  return text === null ? null : clip(text, max);
}

/**
 * An entry with every field within its bound: a longer text is cut and marked with `…`, extra
 * capabilities are dropped. Whatever a caller or a page chose, the record verifies.
 */
export function bounded(entry: AuditEntry): AuditEntry {
  return {
    kind: entry.kind,
    result: clip(entry.result, LIMITS.result),
    principal: clipOrNull(entry.principal, LIMITS.principal),
    client: clip(entry.client, LIMITS.client),
    workspace: clipOrNull(entry.workspace, LIMITS.workspace),
    work: clipOrNull(entry.work, LIMITS.work),
    tool: clip(entry.tool, LIMITS.tool),
    action: clipOrNull(entry.action, LIMITS.action),
    host: clipOrNull(entry.host, LIMITS.host),
    capabilities: entry.capabilities.slice(0, LIMITS.capabilities)
      .map((capability) => clip(capability, LIMITS.capability)),
    rule: clipOrNull(entry.rule, LIMITS.rule),
    args: clip(entry.args, LIMITS.args),
  };
}

/** Seals an entry, bounded, as the record after the one whose hash and sequence are given. */
export function seal(
  entry: AuditEntry,
  after: { seq: number; hash: string | null },
  time: Date,
  key: ChainKey,
): AuditRecord {
  const unsealed = {
    seq: after.seq + 1,
    time: time.toISOString(),
    ...bounded(entry),
    prev: after.hash,
  };
  // Built in field order, so the object reads as its line does.
  const ordered = Object.fromEntries(
    FIELDS_BUT_HASH.map((field) => [field, unsealed[field as keyof typeof unsealed]]),
  ) as Omit<AuditRecord, "hash">;
  return { ...ordered, hash: hashOf(ordered, key) };
}
