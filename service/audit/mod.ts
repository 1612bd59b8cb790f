/**
 * The audit: append-only JSON Lines, one record per decision and per outcome, in a fixed field
 * order, arguments as keyed hashes, each record chained to the previous one's hash, rotated by
 * size; and its verification (`ghostlight audit verify`).
 *
 * @module
 */

export { anchorFileOf, type AnchorState, readAnchor } from "./anchor.ts";
export {
  auditEvent,
  AuditLog,
  type AuditOptions,
  type AuditState,
  AuditUnavailable,
  readAuditFile,
  rotatedNumbers,
} from "./audit_log.ts";
export { AuditKey, ChainKey } from "./keyed.ts";
export { type AuditEntry, AuditRecord, FIELDS } from "./record.ts";
export {
  type AuditText,
  checkAnchor,
  parseRecord,
  type Verification,
  verifyAudit,
} from "./verify.ts";
