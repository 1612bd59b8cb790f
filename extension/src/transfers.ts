/**
 * Reassembly of byte payloads the service sends in chunks (`shared/transfer.ts`): every chunk is
 * checked against the transfer's declared shape, the whole is verified against its SHA-256 once
 * the last chunk is in, and only a verified payload can be taken, once. A corrupt, incomplete or
 * expired transfer is dropped whole and never handed out in part. Bounds: transfers held at once,
 * bytes held across them, and a time-to-live each.
 *
 * @module
 */

import { decodeBase64 } from "../../shared/base64.ts";
import {
  base64Length,
  MAX_TRANSFER_TOTAL_BYTES,
  MAX_TRANSFERS,
  sha256Hex,
  TRANSFER_CHUNK_BYTES,
  type TransferChunk,
  transferPlaceholder,
} from "../../shared/transfer.ts";

/** A transfer was refused; the message says why and names the limit when one was hit. */
export class TransferRefused extends Error {}

interface Transfer {
  count: number;
  totalBytes: number;
  sha256: string;
  expiresAt: number;
  /** Each chunk's base64, by index. */
  chunks: (string | undefined)[];
  received: number;
  verified: boolean;
}

const MIB = 1024 * 1024;

/** The transfers one extension holds. `now` is injectable for tests. */
export class TransferStore {
  #transfers = new Map<string, Transfer>();
  #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Bytes declared by the transfers held now. */
  get heldBytes(): number {
    let total = 0;
    for (const transfer of this.#transfers.values()) total += transfer.totalBytes;
    return total;
  }

  /** How many transfers are held now. */
  get size(): number {
    return this.#transfers.size;
  }

  /**
   * Adds one chunk. Answers how many chunks are in and whether the transfer is complete and
   * verified. A chunk that contradicts its transfer, or a whole that fails its SHA-256, drops
   * the transfer and is refused.
   */
  async add(chunk: TransferChunk): Promise<{ received: number; complete: boolean }> {
    this.#sweep();
    const transfer = this.#transfers.get(chunk.transfer_id) ?? this.#open(chunk);
    try {
      placeChunk(transfer, chunk);
    } catch (error) {
      this.#transfers.delete(chunk.transfer_id);
      throw error;
    }
    if (transfer.received === transfer.count) {
      if (!(await matchesDigest(transfer))) {
        this.#transfers.delete(chunk.transfer_id);
        throw new TransferRefused(
          `transfer ${chunk.transfer_id} is corrupt: its bytes do not match its SHA-256; ` +
            "it was dropped",
        );
      }
      transfer.verified = true;
    }
    return { received: transfer.received, complete: transfer.verified };
  }

  /**
   * Takes the base64 of each named transfer, all or none: every one must be complete, verified
   * and unexpired. Taken transfers are forgotten.
   */
  take(transferIds: string[]): Map<string, string> {
    this.#sweep();
    for (const id of transferIds) {
      const transfer = this.#transfers.get(id);
      if (!transfer) {
        throw new TransferRefused(`transfer ${id} is unknown, expired or already used`);
      }
      if (!transfer.verified) {
        throw new TransferRefused(
          `transfer ${id} is incomplete: ${transfer.received} of ${transfer.count} chunks arrived`,
        );
      }
    }
    const taken = new Map<string, string>();
    for (const id of transferIds) {
      taken.set(id, this.#transfers.get(id)!.chunks.join(""));
      this.#transfers.delete(id);
    }
    return taken;
  }

  /** Forgets one transfer. */
  discard(transferId: string): void {
    this.#transfers.delete(transferId);
  }

  /** Forgets every transfer (the service went away). */
  clear(): void {
    this.#transfers.clear();
  }

  #open(chunk: TransferChunk): Transfer {
    if (this.#transfers.size >= MAX_TRANSFERS) {
      throw new TransferRefused(
        `the browser already holds ${MAX_TRANSFERS} transfers, the limit; try again shortly`,
      );
    }
    if (this.heldBytes + chunk.total_bytes > MAX_TRANSFER_TOTAL_BYTES) {
      throw new TransferRefused(
        `a transfer of ${chunk.total_bytes} bytes would take the bytes held over the ` +
          `${MAX_TRANSFER_TOTAL_BYTES / MIB} MiB limit; try again shortly`,
      );
    }
    const expected = Math.max(1, Math.ceil(chunk.total_bytes / TRANSFER_CHUNK_BYTES));
    if (chunk.count !== expected) {
      throw new TransferRefused(
        `transfer ${chunk.transfer_id} declares ${chunk.count} chunks for ` +
          `${chunk.total_bytes} bytes; it needs ${expected}`,
      );
    }
    const transfer: Transfer = {
      count: chunk.count,
      totalBytes: chunk.total_bytes,
      sha256: chunk.sha256,
      expiresAt: this.#now() + chunk.ttl_ms,
      chunks: new Array(chunk.count),
      received: 0,
      verified: false,
    };
    this.#transfers.set(chunk.transfer_id, transfer);
    return transfer;
  }

  /** Drops expired transfers, so their bytes count no more. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, transfer] of this.#transfers) {
      if (transfer.expiresAt <= now) this.#transfers.delete(id);
    }
  }
}

/** Checks one chunk against its transfer and stores it. */
function placeChunk(transfer: Transfer, chunk: TransferChunk): void {
  const id = chunk.transfer_id;
  if (
    chunk.count !== transfer.count || chunk.total_bytes !== transfer.totalBytes ||
    chunk.sha256 !== transfer.sha256
  ) {
    throw new TransferRefused(`chunk ${chunk.index} of transfer ${id} contradicts its first chunk`);
  }
  if (chunk.index >= transfer.count) {
    throw new TransferRefused(`chunk ${chunk.index} of transfer ${id} is past its last chunk`);
  }
  if (transfer.chunks[chunk.index] !== undefined) {
    throw new TransferRefused(`chunk ${chunk.index} of transfer ${id} arrived twice`);
  }
  const last = chunk.index === transfer.count - 1;
  const bytes = last
    ? transfer.totalBytes - TRANSFER_CHUNK_BYTES * (transfer.count - 1)
    : TRANSFER_CHUNK_BYTES;
  if (chunk.data.length !== base64Length(bytes)) {
    throw new TransferRefused(
      `chunk ${chunk.index} of transfer ${id} holds ${chunk.data.length} base64 characters; ` +
        `${base64Length(bytes)} were due`,
    );
  }
  transfer.chunks[chunk.index] = chunk.data;
  transfer.received++;
}

/** Whether the chunks decode to exactly the declared bytes with the declared SHA-256. */
async function matchesDigest(transfer: Transfer): Promise<boolean> {
  const bytes = new Uint8Array(transfer.totalBytes);
  let offset = 0;
  try {
    for (const data of transfer.chunks) {
      const part = decodeBase64(data!);
      if (offset + part.length > bytes.length) return false;
      bytes.set(part, offset);
      offset += part.length;
    }
  } catch {
    // Not base64: corrupt like any other mismatch.
    return false;
  }
  return offset === bytes.length && await sha256Hex(bytes) === transfer.sha256;
}

/**
 * Copies `params` with each transfer's placeholder replaced by its base64. Each transfer must be
 * placed exactly once; that is checked before any transfer is taken (`take` is all or none).
 */
export function placeTransfers(
  params: Record<string, unknown>,
  transferIds: string[],
  take: (ids: string[]) => Map<string, string>,
): Record<string, unknown> {
  const wanted = new Map(transferIds.map((id) => [transferPlaceholder(id), id]));
  const seen = new Map<string, number>();
  walk(params, (text) => {
    const id = wanted.get(text);
    if (id !== undefined) seen.set(id, (seen.get(id) ?? 0) + 1);
    return text;
  });
  for (const id of transferIds) {
    if (seen.get(id) !== 1) {
      throw new TransferRefused(
        `transfer ${id} appears ${seen.get(id) ?? 0} times in the command; it must appear once`,
      );
    }
  }
  const payloads = take(transferIds);
  return walk(params, (text) => {
    const id = wanted.get(text);
    return id === undefined ? text : payloads.get(id)!;
  }) as Record<string, unknown>;
}

/** A copy of a JSON value with every string passed through `map`. */
function walk(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, map));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, walk(item, map)]),
    );
  }
  return value;
}
