import { assert, assertEquals, assertRejects } from "../tests/support/assert.ts";
import {
  BoundedWriter,
  encodeFrame,
  FrameBudget,
  FrameReader,
  FramingError,
  LineReader,
  OVERSIZED_HEAD_BYTES,
  OVERSIZED_TAIL_BYTES,
} from "./framing.ts";

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

const bytes = (text: string) => new TextEncoder().encode(text);

function header(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length, true);
  return out;
}

Deno.test("frames round-trip even when split across chunks", async () => {
  const frame = encodeFrame({ hello: "wörld", n: [1, 2, 3] }, 1024);
  const reader = new FrameReader(
    streamOf(frame.subarray(0, 3), frame.subarray(3, 9), frame.subarray(9)),
    1024,
  );
  assertEquals(await reader.next(), { hello: "wörld", n: [1, 2, 3] });
  assertEquals(await reader.next(), null);
});

Deno.test("a frame over the cap is refused before its body is read", async () => {
  const reader = new FrameReader(streamOf(header(2048)), 1024);
  const error = await assertRejects(
    () => reader.next(),
    /2048 bytes exceeds this hop's cap of 1024/,
  );
  assert(error instanceof FramingError && error.kind === "too_large");
});

Deno.test("a per-call cap tightens the reader's cap", async () => {
  const reader = new FrameReader(streamOf(encodeFrame({ a: "x".repeat(100) }, 1024)), 1024);
  await assertRejects(() => reader.next(16), /cap of 16/);
});

Deno.test("encoding refuses a frame over the cap", () => {
  let caught: unknown;
  try {
    encodeFrame({ a: "x".repeat(100) }, 50);
  } catch (error) {
    caught = error;
  }
  assert(caught instanceof FramingError && caught.kind === "too_large");
});

Deno.test("malformed and truncated frames are reported as such", async () => {
  const garbage = new FrameReader(streamOf(header(5), bytes("{oops")), 1024);
  await assertRejects(() => garbage.next(), /not UTF-8 JSON/);
  const cut = new FrameReader(streamOf(header(10), bytes("{}")), 1024);
  await assertRejects(() => cut.next(), /ended inside a frame body/);
  const cutHeader = new FrameReader(streamOf(new Uint8Array([1, 0])), 1024);
  await assertRejects(() => cutHeader.next(), /ended inside a frame header/);
});

Deno.test("a relay reads frames as they came, split or not, without decoding them", async () => {
  const first = encodeFrame({ hello: "wörld", n: [1, 2, 3] }, 1024);
  // Not JSON: a relay passes it on, and the reader at the far end refuses it.
  const second = new Uint8Array([...header(5), ...bytes("{oops")]);
  const both = new Uint8Array([...first, ...second]);
  const reader = new FrameReader(
    streamOf(
      both.subarray(0, 3),
      both.subarray(3, first.length + 2),
      both.subarray(first.length + 2),
    ),
    1024,
  );
  assertEquals(await reader.nextFrame(), first);
  assertEquals(await reader.nextFrame(), second);
  assertEquals(await reader.nextFrame(), null);
  // The same bytes read as a message are refused.
  await assertRejects(
    () => new FrameReader(streamOf(second), 1024).next(),
    /not UTF-8 JSON/,
  );
});

Deno.test("a relay's frames are held to the same caps and budget as decoded ones", async () => {
  const over = new FrameReader(streamOf(header(2048)), 1024);
  const error = await assertRejects(() => over.nextFrame(), /2048 bytes exceeds this hop's cap/);
  assert(error instanceof FramingError && error.kind === "too_large");
  const frame = encodeFrame("x".repeat(98), 1024);
  await assertRejects(() => new FrameReader(streamOf(frame), 1024).nextFrame(16), /cap of 16/);
  const budget = new FrameBudget(99);
  await assertRejects(
    () => new FrameReader(streamOf(frame), 1024, { budget }).nextFrame(),
    /does not fit/,
  );
  const roomy = new FrameBudget(100);
  assertEquals(await new FrameReader(streamOf(frame), 1024, { budget: roomy }).nextFrame(), frame);
  assertEquals(roomy.held, 0, "a relayed frame gives its bytes back");
  const cut = new FrameReader(streamOf(frame.subarray(0, 50)), 1024, { budget: roomy });
  await assertRejects(() => cut.nextFrame(), /stream ended inside a frame body/);
  assertEquals(roomy.held, 0);
});

Deno.test("an oversized line is skipped and reading resumes at the next line", async () => {
  const long = "x".repeat(5000);
  const reader = new LineReader(
    streamOf(bytes(`first\r\n${long}`), bytes(`${long}\nthird\nlast`)),
    1000,
  );
  assertEquals(await reader.next(), { kind: "line", text: "first" });
  const oversized = await reader.next();
  assertEquals(oversized?.kind === "oversized" && oversized.bytes, 10000);
  assertEquals(oversized?.kind === "oversized" && oversized.head.length, long.length);
  assertEquals(oversized?.kind === "oversized" && oversized.tail, "x".repeat(1024));
  assertEquals(await reader.next(), { kind: "line", text: "third" });
  assertEquals(await reader.next(), { kind: "line", text: "last" });
  assertEquals(await reader.next(), null);
});

Deno.test("an oversized line keeps its first and last bytes, across chunks", async () => {
  const line = `{"id":7,${"p".repeat(OVERSIZED_HEAD_BYTES * 2)}"end":1}`;
  const reader = new LineReader(
    streamOf(bytes(line.slice(0, 100)), bytes(line.slice(100, -5)), bytes(`${line.slice(-5)}\nok`)),
    1000,
  );
  const oversized = await reader.next();
  assert(oversized?.kind === "oversized");
  assertEquals(oversized.bytes, line.length);
  assertEquals(oversized.head, line.slice(0, OVERSIZED_HEAD_BYTES));
  assertEquals(oversized.tail, line.slice(-OVERSIZED_TAIL_BYTES));
  assertEquals(await reader.next(), { kind: "line", text: "ok" });
});

Deno.test("an oversized line that ends in the chunk it was found in leaves the next line whole", async () => {
  const reader = new LineReader(streamOf(bytes(`${"y".repeat(50)}\nnext\n`)), 10);
  const oversized = await reader.next();
  assert(oversized?.kind === "oversized");
  assertEquals([oversized.bytes, oversized.head, oversized.tail], [50, "y".repeat(50), ""]);
  assertEquals(await reader.next(), { kind: "line", text: "next" });
  assertEquals(await reader.next(), null);
});

Deno.test("a line exactly at the cap is accepted", async () => {
  const reader = new LineReader(streamOf(bytes(`${"y".repeat(1000)}\n`)), 1000);
  assertEquals(await reader.next(), { kind: "line", text: "y".repeat(1000) });
});

/** A writable whose reader never reads: every write after the first stays pending. */
function stuckSink(): { writable: WritableStream<Uint8Array>; written: number[] } {
  const written: number[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => {
      written.push(chunk.length);
      return new Promise(() => {});
    },
  }, { highWaterMark: 1 });
  return { writable, written };
}

Deno.test("a writer bounded in bytes overflows once, loudly, and stays broken", async () => {
  const { writable, written } = stuckSink();
  const overflows: string[] = [];
  const writer = new BoundedWriter(writable, {
    maxWaiting: 100,
    maxBytes: 1000,
    onOverflow: (error) => overflows.push(error.message),
  });
  // One write over the byte bound still goes when nothing waits (hops cap frames themselves).
  writer.write(new Uint8Array(1500));
  await Promise.resolve();
  assertEquals(writer.waitingBytes, 1500);
  const refused = await writer.write(new Uint8Array(10)).catch((error) => error);
  assert(refused instanceof FramingError, String(refused));
  assertEquals(overflows.length, 1);
  // Broken for good: a later small message may not slip in after the lost one.
  const after = await writer.write(new Uint8Array(1)).catch((error) => error);
  assert(after instanceof FramingError);
  assertEquals(overflows.length, 1);
  assertEquals(written, [1500]);
});

Deno.test("a writer bounded in messages overflows at its count", async () => {
  const { writable } = stuckSink();
  let overflowed = false;
  const writer = new BoundedWriter(writable, {
    maxWaiting: 3,
    maxBytes: 1 << 20,
    onOverflow: () => overflowed = true,
  });
  for (let i = 0; i < 3; i++) writer.write(new Uint8Array(1));
  const refused = await writer.write(new Uint8Array(1)).catch((error) => error);
  assert(refused instanceof FramingError && overflowed);
});

Deno.test("frames in progress share one budget: a frame fits at the bound, not one past", async () => {
  const frame = encodeFrame("x".repeat(98), 1024); // a 100-byte body
  const budget = new FrameBudget(150);
  const holder = new FrameReader(new ReadableStream(), 1024, { budget });
  assertEquals(budget.reserve(50), true, "another reader holds 50 bytes of a frame");
  const fits = new FrameReader(streamOf(frame), 1024, { budget });
  assertEquals(await fits.next(), "x".repeat(98));
  assertEquals(budget.held, 50, "a finished frame gives its bytes back");
  assertEquals(budget.reserve(1), true);
  const over = new FrameReader(streamOf(frame), 1024, { budget });
  await assertRejects(() => over.next(), /does not fit: frames in progress already hold 51/);
  budget.release(51);
  const truncated = new FrameReader(streamOf(frame.subarray(0, 50)), 1024, { budget });
  await assertRejects(() => truncated.next(), /stream ended inside a frame body/);
  assertEquals(budget.held, 0, "a failed frame gives its bytes back too");
  holder.cancel();
});

Deno.test("a resource is read into the reader's own buffer: frames split and joined, cancel closes it", async () => {
  const path = `${await Deno.makeTempDir()}/framing.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const client = await Deno.connect({ transport: "unix", path });
  const server = await listener.accept();
  listener.close();
  const reader = new FrameReader(server, 1 << 20);
  // One frame bigger than a read, then two in one write, then one cut across two writes.
  const big = "b".repeat(200_000);
  const frames = [big, "one", "two", { three: 3 }].map((value) => encodeFrame(value, 1 << 20));
  const writing = (async () => {
    await client.write(frames[0]);
    await client.write(new Uint8Array([...frames[1], ...frames[2]]));
    await client.write(frames[3].subarray(0, 5));
    await client.write(frames[3].subarray(5));
  })();
  assertEquals(await reader.next(), big);
  assertEquals(await reader.next(), "one");
  assertEquals(await reader.next(), "two");
  assertEquals(await reader.next(), { three: 3 });
  await writing;
  // Cancelled while a read waits: that read ends the stream, and the connection is closed.
  const waiting = reader.next();
  reader.cancel();
  assertEquals(await waiting, null);
  assertEquals(await client.read(new Uint8Array(1)), null, "the peer sees the close");
  client.close();
});

Deno.test("a resource written directly is given every byte, in order, however little it takes at once", async () => {
  const taken: number[] = [];
  const sink = {
    // Takes at most three bytes a write, as a full socket may.
    write: (bytes: Uint8Array) => {
      const n = Math.min(3, bytes.length);
      taken.push(...bytes.subarray(0, n));
      return Promise.resolve(n);
    },
  };
  const writer = new BoundedWriter(sink, { maxWaiting: 4, maxBytes: 1024 });
  await Promise.all([
    writer.write(new Uint8Array([1, 2, 3, 4, 5, 6, 7])),
    writer.write(new Uint8Array([8, 9])),
  ]);
  await writer.close();
  assertEquals(taken, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
});
