import jpeg from "jpeg-js";
import { GifReader } from "omggif";
import { assert, assertEquals } from "../../../tests/support/assert.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { delays, encodeGif } from "./encode.ts";
import {
  type Capture,
  type Frame,
  GIF_LIMITS,
  RECORDING_OPTIONS,
  type RecordingOptions,
  Recordings,
  TabGone,
} from "./recordings.ts";

const DEFAULTS = {
  ...Object.fromEntries(
    Object.entries(RECORDING_OPTIONS).map(([name, range]) => [name, range.default]),
  ),
  showClickIndicators: true,
} as RecordingOptions;

/** A capture that returns a different small "frame" on each call, unless told to repeat. */
function counting(size = 10): { capture: Capture; repeat: (on: boolean) => void } {
  let n = 0;
  let same = false;
  return {
    capture: () => {
      if (!same) n++;
      return Promise.resolve({ jpeg: new Uint8Array(size).fill(n), width: 4, height: 3 });
    },
    repeat: (on) => same = on,
  };
}

const workspace = { id: "ws_test" } as Workspace;

Deno.test("a recording stops at its frame limit, with the reason kept", async () => {
  const recordings = new Recordings(() => false);
  const { capture } = counting();
  const recording = recordings.start(workspace, 1, { ...DEFAULTS, maxFrames: 3 }, capture);
  for (let i = 0; i < 5; i++) await recording.tick();
  assertEquals(recording.state, "stopped");
  assertEquals(recording.reason, "frame_limit");
  assertEquals(recording.frames.length, 3);
});

Deno.test("an unchanged frame is not kept, and a page still for idleMs stops it", async () => {
  let now = 0;
  const recordings = new Recordings(() => false);
  const { capture, repeat } = counting();
  const recording = recordings.start(
    workspace,
    2,
    { ...DEFAULTS, idleMs: 5_000 },
    capture,
    () => now,
  );
  await recording.tick();
  repeat(true);
  for (let i = 0; i < 4; i++) {
    now += 1_000;
    await recording.tick();
  }
  assertEquals(recording.frames.length, 1, "repeats are folded into the frame before");
  assertEquals(recording.state, "recording");
  now += 1_000;
  await recording.tick();
  assertEquals(recording.reason, "idle");
});

Deno.test("the time limit, the frame size and a closed tab each stop a recording", async () => {
  let now = 0;
  const recordings = new Recordings(() => false);
  const timed = recordings.start(
    workspace,
    3,
    { ...DEFAULTS, maxDurationMs: 2_000 },
    counting().capture,
    () => now,
  );
  await timed.tick();
  now += 2_000;
  await timed.tick();
  assertEquals([timed.reason, timed.frames.length], ["max_duration", 1]);

  const big = recordings.start(workspace, 4, DEFAULTS, counting(GIF_LIMITS.frameBytes + 1).capture);
  await big.tick();
  assertEquals([big.reason, big.frames.length], ["frame_bytes", 0]);

  const gone = recordings.start(workspace, 5, DEFAULTS, () => Promise.reject(new TabGone()));
  await gone.tick();
  assertEquals(gone.reason, "tab_gone");

  let failures = 0;
  const failing = recordings.start(workspace, 6, DEFAULTS, () => {
    failures++;
    return Promise.reject(new Error("busy"));
  });
  for (let i = 0; i < 5; i++) await failing.tick();
  assertEquals([failing.reason, failures], ["capture_failed", 5]);
});

Deno.test("one recording per tab, a bounded number kept, released workspaces' dropped", () => {
  let released = false;
  const recordings = new Recordings(() => released);
  const first = recordings.start(workspace, 7, DEFAULTS, counting().capture);
  let refused = "";
  try {
    recordings.start(workspace, 7, DEFAULTS, counting().capture);
  } catch (error) {
    refused = (error as Error).message;
  }
  assertEquals(refused, "this tab is already being recorded");
  first.stop("stopped");
  recordings.start(workspace, 7, DEFAULTS, counting().capture);
  for (let tab = 100; recordings.size < GIF_LIMITS.recordings; tab++) {
    recordings.start(workspace, tab, DEFAULTS, counting().capture);
  }
  try {
    recordings.start(workspace, 999, DEFAULTS, counting().capture);
    refused = "";
  } catch (error) {
    refused = (error as Error).message;
  }
  assertEquals(
    refused,
    `the service keeps at most ${GIF_LIMITS.recordings} recordings; clear one first`,
  );
  released = true;
  assertEquals(recordings.size, 0);
  assertEquals(first.state, "stopped");
});

function solid(width: number, height: number, shade: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < rgba.length; i += 4) rgba.set([shade, 255 - shade, 90, 255], i);
  return new Uint8Array(jpeg.encode({ data: rgba, width, height }, 80).data);
}

Deno.test("frames encode into a looping GIF that decodes, with their timing", () => {
  const frames: Frame[] = [0, 40, 900, 9_000].map((at, i) => ({
    jpeg: solid(i === 2 ? 30 : 40, 24, i * 60),
    width: i === 2 ? 30 : 40,
    height: 24,
    at,
  }));
  assertEquals(delays(frames), [40, 860, 2_000, 1_500]);
  const reader = new GifReader(encodeGif(frames));
  assertEquals([reader.width, reader.height, reader.numFrames()], [40, 24, 4]);
  assertEquals(reader.frameInfo(1).delay, 86);
  assertEquals(reader.loopCount(), 0);
  const pixels = new Uint8Array(40 * 24 * 4);
  reader.decodeAndBlitFrameRGBA(0, pixels);
  assert(Math.abs(pixels[0] - 0) < 16 && Math.abs(pixels[1] - 255) < 16, "colours survive");
});

Deno.test("a click keeps its frame even on an unchanged page, and export rings it", async () => {
  const recordings = new Recordings(() => false);
  const clicks: { x: number; y: number }[] = [];
  const still = solid(40, 40, 0);
  const recording = recordings.start(
    workspace,
    8,
    DEFAULTS,
    () =>
      Promise.resolve({
        jpeg: still,
        width: 40,
        height: 40,
        ...(clicks.length ? { clicks: [...clicks] } : {}),
      }),
  );
  await recording.tick();
  await recording.tick();
  clicks.push({ x: 20, y: 20 });
  await recording.tick();
  assertEquals(recording.frames.length, 2, "the click's frame is kept, the repeat before not");
  const reader = new GifReader(encodeGif(recording.frames));
  const pixels = new Uint8Array(40 * 40 * 4);
  reader.decodeAndBlitFrameRGBA(1, pixels);
  const at = (x: number, y: number) => [...pixels.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];
  const [red, green] = at(20 + 12, 20);
  assert(red > 180 && green < 90, `the ring is red at its radius: ${at(32, 20)}`);
  const plain = new Uint8Array(40 * 40 * 4);
  new GifReader(encodeGif(recording.frames, false)).decodeAndBlitFrameRGBA(1, plain);
  assert(plain[(20 * 40 + 32) * 4] < 60, "without indicators the frame stays as it was");
});
