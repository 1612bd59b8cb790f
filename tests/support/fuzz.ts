/**
 * Budgets and byte sources for the property-based fuzzing of the parsers at trust boundaries
 * (tests/fuzz_test.ts). `deno task test` runs each target a fixed small number of times;
 * `deno task soak` (SOAK=1) runs each a thousand times as long.
 *
 * @module
 */

/** Whether this run is the long soak. */
const SOAK = Deno.env.get("SOAK") === "1";

/** How many cases a target runs: `ci` in the test suite, a thousand times more in a soak. */
export function fuzzRuns(ci: number): number {
  return SOAK ? ci * 1_000 : ci;
}

/**
 * How many cases an end-to-end target runs (each drives a browser, so a soak cannot run a
 * thousand times as many): `ci` in the test suite, `soak` in a soak.
 */
export function endToEndRuns(ci: number, soak: number): number {
  return SOAK ? soak : ci;
}

/**
 * A failed end-to-end run replayed: the seed (and, to go straight to the failing case, the path)
 * fast-check printed for it, given as `FUZZ_SEED` (and `FUZZ_PATH`), e.g.
 * `FUZZ_SEED=287564795 deno test -A tests/fuzz_frames_test.ts`; unset, a new seed each run.
 */
export function replayed(): { seed?: number; path?: string } {
  const seed = Deno.env.get("FUZZ_SEED");
  const path = Deno.env.get("FUZZ_PATH");
  return { ...(seed ? { seed: Number(seed) } : {}), ...(path ? { path } : {}) };
}

/** The longest one property run may take before it counts as a hang. */
export const RUN_TIMEOUT_MS = 10_000;

/**
 * A stream that hands out `chunks` one at a time, only when read (no read-ahead), and counts
 * what it has handed out: how far a reader has pulled ahead of what it returned shows how much
 * it buffers.
 */
export function countingStream(
  chunks: Uint8Array[],
): { stream: ReadableStream<Uint8Array>; delivered(): number } {
  let next = 0;
  let delivered = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= chunks.length) return controller.close();
      const chunk = chunks[next++];
      delivered += chunk.length;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, delivered: () => delivered };
}

/** Cuts `bytes` into chunks at the given offsets (each taken modulo the length). */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => bytes.length === 0 ? 0 : cut % bytes.length))]
    .filter((point) => point > 0)
    .sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) out.push(bytes.subarray(from, point));
    from = point;
  }
  return out;
}

/** The bytes of several parts, joined. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
