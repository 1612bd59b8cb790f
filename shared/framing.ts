/**
 * Framers for every hop. Internal hops (bridge, browser connector ↔ service) and Chrome native
 * messaging use a 4-byte little-endian length followed by UTF-8 JSON. MCP stdio uses one JSON
 * message per line. Both readers are bounded: nothing here buffers more than its cap.
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Why a frame or line could not be read or written. */
export type FramingErrorKind = "too_large" | "malformed" | "truncated";

/** A framing failure; the connection it happened on cannot be trusted for further frames. */
export class FramingError extends Error {
  /** Creates a framing error of a given kind. */
  constructor(readonly kind: FramingErrorKind, message: string) {
    super(message);
    this.name = "FramingError";
  }
}

/** Encodes one value as a length-prefixed frame, refusing frames over `maxBytes`. */
export function encodeFrame(value: unknown, maxBytes: number): Uint8Array {
  const body = encoder.encode(JSON.stringify(value));
  if (body.length > maxBytes) {
    throw new FramingError(
      "too_large",
      `frame of ${body.length} bytes exceeds this hop's cap of ${maxBytes} bytes`,
    );
  }
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, true);
  frame.set(body, 4);
  return frame;
}

/**
 * Where a reader's bytes come from: a byte stream, or a resource read straight into a buffer of
 * the reader's own (a socket, the MCP connector's stdin). Arming a stream's read of a resource took
 * 40–50 µs on this machine against 2–13 µs (issue 14, decision 0238; most likely the fresh 64 KiB
 * chunk the stream allocates each time), and each frame's reader arms its next read before the
 * frame is acted on.
 * `close` is what cancelling the reader does to the resource, as cancelling its stream would.
 */
export type ByteSource =
  | ReadableStream<Uint8Array>
  | { read(buffer: Uint8Array): Promise<number | null>; close(): void };

/** The most one read of a resource brings. */
const READ_BYTES = 64 * 1024;

/**
 * Pulls exact byte counts out of a byte stream while holding at most one partly used chunk.
 */
class ByteQueue {
  #read: () => Promise<Uint8Array | null>;
  #cancel: () => void;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #done = false;

  constructor(source: ByteSource) {
    if (source instanceof ReadableStream) {
      const reader = source.getReader();
      this.#read = async () => {
        const { value, done } = await reader.read();
        return done ? null : value;
      };
      this.#cancel = () => void reader.cancel().catch(() => {});
      return;
    }
    const buffer = new Uint8Array(READ_BYTES);
    let cancelled = false;
    this.#read = async () => {
      let read: number | null;
      try {
        read = await source.read(buffer);
      } catch (error) {
        // A read cut off by the cancel's close is the end, as a cancelled stream's is.
        if (cancelled) return null;
        throw error;
      }
      // Copied out: the buffer is read into again while the queue still holds these bytes.
      return read === null ? null : buffer.slice(0, read);
    };
    this.#cancel = () => {
      cancelled = true;
      try {
        source.close();
      } catch {
        // Already closed.
      }
    };
  }

  /** Ensures at least `count` bytes are buffered; false when the stream ended first. */
  async fill(count: number): Promise<boolean> {
    while (this.#buffered < count && !this.#done) {
      const value = await this.#read();
      if (value === null) {
        this.#done = true;
        break;
      }
      if (value.length > 0) {
        this.#chunks.push(value);
        this.#buffered += value.length;
      }
    }
    return this.#buffered >= count;
  }

  get buffered(): number {
    return this.#buffered;
  }

  /** Removes and returns exactly `count` buffered bytes. */
  take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    this.takeInto(out, 0);
    return out;
  }

  /** Removes the next `out.length - offset` buffered bytes into `out` from `offset` on. */
  takeInto(out: Uint8Array, offset: number): void {
    const count = out.length - offset;
    while (offset < out.length) {
      const head = this.#chunks[0];
      const need = out.length - offset;
      if (head.length <= need) {
        out.set(head, offset);
        offset += head.length;
        this.#chunks.shift();
      } else {
        out.set(head.subarray(0, need), offset);
        this.#chunks[0] = head.subarray(need);
        offset += need;
      }
    }
    this.#buffered -= count;
  }

  /** Returns the index of the first `byte` within the first `limit` buffered bytes, or -1. */
  indexOf(byte: number, limit: number): number {
    let base = 0;
    for (const chunk of this.#chunks) {
      const end = Math.min(chunk.length, limit - base);
      for (let i = 0; i < end; i++) {
        if (chunk[i] === byte) return base + i;
      }
      base += chunk.length;
      if (base >= limit) break;
    }
    return -1;
  }

  /** Reads one more chunk into the buffer; false at end of stream. */
  async more(): Promise<boolean> {
    if (this.#done) return false;
    const before = this.#buffered;
    await this.fill(before + 1);
    return this.#buffered > before;
  }

  cancel(): void {
    this.#cancel();
  }
}

/**
 * Bytes of announced-but-unfinished frames that many readers may hold together. Each frame's
 * length is reserved when its header arrives and given back once the frame is read or the reader
 * fails, so one process's readers hold at most this much for frames in progress, whatever each
 * hop's own cap.
 */
export class FrameBudget {
  #held = 0;

  /** `maxBytes` is the total. */
  constructor(readonly maxBytes: number) {}

  /** Bytes reserved now. */
  get held(): number {
    return this.#held;
  }

  /** Reserves `bytes`; false when that would pass the total. */
  reserve(bytes: number): boolean {
    if (this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  /** Gives back what {@linkcode reserve} took. */
  release(bytes: number): void {
    this.#held -= bytes;
  }
}

/** Reads length-prefixed JSON frames from a byte stream, refusing any frame over `maxBytes`. */
export class FrameReader {
  #queue: ByteQueue;
  #maxBytes: number;
  #budget: FrameBudget | null;

  /**
   * Wraps a byte stream or a resource. With a `budget`, each frame's length is reserved from it
   * before its body is read; a frame the budget cannot hold fails as `too_large`.
   */
  constructor(
    readable: ByteSource,
    maxBytes: number,
    options: { budget?: FrameBudget } = {},
  ) {
    this.#queue = new ByteQueue(readable);
    this.#maxBytes = maxBytes;
    this.#budget = options.budget ?? null;
  }

  /**
   * Returns the next decoded frame, or `null` at a clean end of stream. Throws a
   * {@linkcode FramingError} for an oversized, truncated, non-JSON or `null` frame; the stream is then
   * out of step and must be closed. `maxBytes` tightens the cap for this one frame.
   */
  next(maxBytes: number = this.#maxBytes): Promise<unknown | null> {
    return this.#read(maxBytes, (frame) => {
      let value: unknown;
      try {
        value = JSON.parse(decoder.decode(frame.subarray(4)));
      } catch {
        throw new FramingError("malformed", "frame body is not UTF-8 JSON");
      }
      // `null` is how next() says the stream ended; no message of any hop is null.
      if (value === null) throw new FramingError("malformed", "frame body is null");
      return value;
    });
  }

  /**
   * Returns the next frame as it came, its 4-byte length included and its body not decoded, or
   * `null` at a clean end of stream: for a relay that passes frames on to a reader that checks
   * them itself. Bounded exactly as {@linkcode next}; throws a {@linkcode FramingError} for an
   * oversized or truncated frame.
   */
  nextFrame(maxBytes: number = this.#maxBytes): Promise<Uint8Array | null> {
    return this.#read(maxBytes, (frame) => frame);
  }

  /**
   * Reads one whole frame and hands it to `finish`, the frame's length reserved from the budget
   * until `finish` returns.
   */
  async #read<T>(maxBytes: number, finish: (frame: Uint8Array) => T): Promise<T | null> {
    if (!(await this.#queue.fill(4))) {
      if (this.#queue.buffered === 0) return null;
      throw new FramingError("truncated", "stream ended inside a frame header");
    }
    const header = this.#queue.take(4);
    const length = new DataView(header.buffer).getUint32(0, true);
    const cap = Math.min(maxBytes, this.#maxBytes);
    if (length > cap) {
      throw new FramingError(
        "too_large",
        `incoming frame of ${length} bytes exceeds this hop's cap of ${cap} bytes`,
      );
    }
    const budget = this.#budget;
    if (budget && !budget.reserve(length)) {
      throw new FramingError(
        "too_large",
        `incoming frame of ${length} bytes does not fit: frames in progress already hold ` +
          `${budget.held} of the ${budget.maxBytes} bytes this process allows them`,
      );
    }
    try {
      if (!(await this.#queue.fill(length))) {
        throw new FramingError("truncated", "stream ended inside a frame body");
      }
      const frame = new Uint8Array(4 + length);
      frame.set(header, 0);
      this.#queue.takeInto(frame, 4);
      return finish(frame);
    } finally {
      budget?.release(length);
    }
  }

  /** Stops reading the underlying stream. */
  cancel(): void {
    this.#queue.cancel();
  }
}

/** One result of {@linkcode LineReader.next}. */
export type LineResult =
  | { kind: "line"; text: string }
  | {
    kind: "oversized";
    bytes: number;
    /** The line's first bytes and its last ones, so its request id can still be read. */
    head: string;
    tail: string;
  };

/** Bytes of an oversized line kept from its start and from its end. */
export const OVERSIZED_HEAD_BYTES = 64 * 1024;
export const OVERSIZED_TAIL_BYTES = 1024;

/**
 * Reads newline-delimited UTF-8 lines with a hard length cap. An oversized line is discarded up
 * to its newline and reported once, so the stream resynchronises at the next message.
 */
export class LineReader {
  #queue: ByteQueue;
  #maxBytes: number;

  /** Wraps a byte stream or a resource. */
  constructor(readable: ByteSource, maxBytes: number) {
    this.#queue = new ByteQueue(readable);
    this.#maxBytes = maxBytes;
  }

  /** Returns the next line (without its newline), an oversize report, or `null` at the end. */
  async next(): Promise<LineResult | null> {
    while (true) {
      const limit = Math.min(this.#queue.buffered, this.#maxBytes + 1);
      const newline = this.#queue.indexOf(0x0a, limit);
      if (newline >= 0) {
        const bytes = this.#queue.take(newline + 1).subarray(0, newline);
        return { kind: "line", text: decodeLine(bytes) };
      }
      if (this.#queue.buffered > this.#maxBytes) return await this.#skipOversized();
      if (!(await this.#queue.more())) {
        if (this.#queue.buffered === 0) return null;
        const rest = this.#queue.take(this.#queue.buffered);
        return { kind: "line", text: decodeLine(rest) };
      }
    }
  }

  async #skipOversized(): Promise<LineResult> {
    // The head stops at the line's end when that is already here: what follows is the next line.
    const reach = Math.min(OVERSIZED_HEAD_BYTES, this.#queue.buffered);
    const end = this.#queue.indexOf(0x0a, reach);
    const head = this.#queue.take(end >= 0 ? end : reach);
    let skipped = head.length;
    let tail: Uint8Array = new Uint8Array(0);
    const report = (bytes: number): LineResult => ({
      kind: "oversized",
      bytes,
      head: lenient.decode(head),
      tail: lenient.decode(tail),
    });
    while (true) {
      const newline = this.#queue.indexOf(0x0a, this.#queue.buffered);
      if (newline >= 0) {
        tail = lastBytes(tail, this.#queue.take(newline + 1).subarray(0, newline));
        return report(skipped + newline);
      }
      skipped += this.#queue.buffered;
      tail = lastBytes(tail, this.#queue.take(this.#queue.buffered));
      if (!(await this.#queue.more())) return report(skipped);
    }
  }

  /** Stops reading the underlying stream. */
  cancel(): void {
    this.#queue.cancel();
  }
}

/** Decodes what may be cut inside a character (the ends of an oversized line). */
const lenient = new TextDecoder();

/** The last {@linkcode OVERSIZED_TAIL_BYTES} of `kept` followed by `more`. */
function lastBytes(kept: Uint8Array, more: Uint8Array): Uint8Array {
  if (more.length >= OVERSIZED_TAIL_BYTES) return more.slice(more.length - OVERSIZED_TAIL_BYTES);
  const joined = new Uint8Array(Math.min(OVERSIZED_TAIL_BYTES, kept.length + more.length));
  const fromKept = joined.length - more.length;
  joined.set(kept.subarray(kept.length - fromKept), 0);
  joined.set(more, fromKept);
  return joined;
}

function decodeLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

/** How a {@linkcode BoundedWriter} bounds what waits for a slow reader. */
export interface WriterBounds {
  /** Writes that may wait at once. */
  maxWaiting: number;
  /**
   * Bytes that may wait at once. One write larger than this still goes when nothing else is
   * waiting (frames are capped by their own hop).
   */
  maxBytes: number;
  /**
   * Called once when a write overflows a bound: the reader is stuck, and the connection should
   * be ended rather than go on with a gap in it.
   */
  onOverflow?: (error: FramingError) => void;
}

/**
 * Where a writer's bytes go: a byte stream, or a resource written directly (a socket), which
 * spares each frame the stream's machinery: 24–26 µs to a write's end against 4–9 µs (issue 14,
 * decision 0238). A resource written directly is closed by its owner, not by the writer.
 */
export type ByteSink = WritableStream<Uint8Array> | { write(bytes: Uint8Array): Promise<number> };

/**
 * Serialises writes of whole frames or lines to one writer, bounded in messages and in bytes.
 * A write past either bound breaks the writer for good (no later message may follow a lost one)
 * and calls `onOverflow`, so nothing is ever dropped silently.
 */
export class BoundedWriter {
  #write: (bytes: Uint8Array) => Promise<void>;
  #close: () => Promise<void>;
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;
  #waitingBytes = 0;
  #bounds: WriterBounds;
  #broken: Error | null = null;

  /** Wraps a writable byte stream or a resource. */
  constructor(sink: ByteSink, bounds: WriterBounds) {
    this.#bounds = bounds;
    if (sink instanceof WritableStream) {
      const writer = sink.getWriter();
      this.#write = (bytes) => writer.write(bytes);
      this.#close = () => writer.close().catch(() => {});
      return;
    }
    this.#write = async (bytes) => {
      // A resource may take part of the bytes at a time.
      for (let done = 0; done < bytes.length;) done += await sink.write(bytes.subarray(done));
    };
    this.#close = () => Promise.resolve();
  }

  /** Bytes queued and not yet written. */
  get waitingBytes(): number {
    return this.#waitingBytes;
  }

  /** Writes queued and not yet written. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Queues bytes for writing. Rejects when a bound is passed or the stream has failed. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.#broken) return Promise.reject(this.#broken);
    const { maxWaiting, maxBytes } = this.#bounds;
    const overBytes = this.#waiting > 0 && this.#waitingBytes + bytes.length > maxBytes;
    if (this.#waiting >= maxWaiting || overBytes) {
      const error = new FramingError(
        "too_large",
        `the reader is not keeping up: ${this.#waiting} messages (${this.#waitingBytes} bytes) ` +
          `are already waiting (bounds: ${maxWaiting} messages, ${maxBytes} bytes)`,
      );
      this.#broken = error;
      this.#bounds.onOverflow?.(error);
      return Promise.reject(error);
    }
    this.#waiting++;
    this.#waitingBytes += bytes.length;
    const done = this.#tail.then(async () => {
      try {
        await this.#write(bytes);
      } catch (error) {
        this.#broken ??= error instanceof Error ? error : new Error(String(error));
        throw this.#broken;
      } finally {
        this.#waiting--;
        this.#waitingBytes -= bytes.length;
      }
    });
    this.#tail = done.catch(() => {});
    return done;
  }

  /** Closes the underlying stream after queued writes (a resource: waits for them only). */
  async close(): Promise<void> {
    await this.#tail;
    await this.#close();
  }
}

/** Encodes a line of JSON for stdio. */
export function encodeLine(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}
