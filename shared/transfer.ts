/**
 * Byte payloads from the service to the extension (file uploads, images). Chrome refuses a
 * native message to an extension over 1 MiB, so a payload travels as numbered chunks that carry
 * its total size, its SHA-256 and a time-to-live; the extension reassembles and verifies it before
 * anything may use it. The sizes and bounds both sides hold to live here, with the largest upload
 * a tool accepts (the MCP connector sizes its stdin line bound from it).
 *
 * @module
 */

import { z } from "zod";
import { encodeBase64 } from "./base64.ts";

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Raw bytes per chunk: a multiple of 3, so each chunk's base64 has no padding and the chunks'
 * base64 joined is the whole payload's; 512 KiB of base64 leaves room under Chrome's 1 MiB.
 */
export const TRANSFER_CHUNK_BYTES = 384 * KIB;
/** Largest single payload. */
export const MAX_TRANSFER_BYTES = 16 * MIB;
/** Most chunks in one transfer (what {@linkcode MAX_TRANSFER_BYTES} needs). */
export const MAX_TRANSFER_CHUNKS = Math.ceil(MAX_TRANSFER_BYTES / TRANSFER_CHUNK_BYTES);
/**
 * Transfers the extension holds at once (arriving or ready, not yet used): at least the files one
 * upload may carry, or an upload within its own bounds would be refused (their bytes are bounded
 * by {@linkcode MAX_TRANSFER_TOTAL_BYTES}, not by this count).
 */
export const MAX_TRANSFERS = 16;
/** Bytes the extension holds across all its transfers. */
export const MAX_TRANSFER_TOTAL_BYTES = 32 * MIB;
/** Longest time-to-live a transfer may ask for, counted from its first chunk. */
export const MAX_TRANSFER_TTL_MS = 120_000;
/** Transfers one command may use. */
export const MAX_TRANSFERS_PER_COMMAND = 16;

/** Most bytes one upload (file_upload, all its files together) may carry, decoded. */
export const MAX_UPLOAD_BYTES = 8 * MIB;
/** Most files in one upload. */
export const MAX_UPLOAD_FILES = 16;

/** The base64 length of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** A transfer's id: chosen by the service, unique while the transfer lives. */
export const TransferId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);

/** One chunk of a transfer. Every chunk repeats the transfer's size, digest, count and TTL. */
export const TransferChunk = z.object({
  transfer_id: TransferId,
  index: z.number().int().nonnegative(),
  count: z.number().int().min(1).max(MAX_TRANSFER_CHUNKS),
  total_bytes: z.number().int().nonnegative().max(MAX_TRANSFER_BYTES),
  /** SHA-256 of the whole payload, lowercase hex. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  ttl_ms: z.number().int().min(1).max(MAX_TRANSFER_TTL_MS),
  /** This chunk's bytes, base64. */
  data: z.string().max(base64Length(TRANSFER_CHUNK_BYTES)),
}).strict();
export type TransferChunk = z.infer<typeof TransferChunk>;

/** The placeholder a command carries where a verified transfer's base64 is to go. */
export function transferPlaceholder(transferId: string): string {
  return `ghostlight-transfer:${transferId}`;
}

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Splits a payload into the chunks of one transfer (the service's side of the exchange). */
export async function transferChunks(
  transferId: string,
  bytes: Uint8Array,
  ttlMs: number,
): Promise<TransferChunk[]> {
  const sha256 = await sha256Hex(bytes);
  const count = Math.max(1, Math.ceil(bytes.length / TRANSFER_CHUNK_BYTES));
  return Array.from({ length: count }, (_, index) => ({
    transfer_id: transferId,
    index,
    count,
    total_bytes: bytes.length,
    sha256,
    ttl_ms: ttlMs,
    data: encodeBase64(
      bytes.subarray(index * TRANSFER_CHUNK_BYTES, (index + 1) * TRANSFER_CHUNK_BYTES),
    ),
  }));
}
