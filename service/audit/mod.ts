/**
 * The audit: append-only JSON Lines, one record per decision and per outcome, in a fixed field
 * order, arguments as keyed hashes, each record chained to the previous one's hash, rotated by
 * size; and its verification (`ghostlight audit verify`).
 *
 * @module
 */

export {
  AuditLog,
  type AuditOptions,
  type AuditState,
  AuditUnavailable,
  rotatedNumbers,
} from "./audit_log.ts";
export { AuditKey } from "./keyed.ts";
export { type AuditEntry, AuditRecord, FIELDS } from "./record.ts";
export { type AuditText, parseRecord, type Verification, verifyAudit } from "./verify.ts";
