/**
 * Encoding a recording's frames (JPEGs) into an animated GIF with `gifenc`: each frame decoded
 * (`jpeg-js`), given its own 256-colour palette, and shown until the next frame came, a long
 * still stretch shortened so the GIF does not stall.
 *
 * @module
 */

import gifenc from "gifenc";
import jpeg from "jpeg-js";
import type { Frame, Point } from "./recordings.ts";

const { GIFEncoder, quantize, applyPalette } = gifenc;

/** Shortest and longest time one frame is shown, in ms (GIF counts in hundredths). */
const MIN_DELAY_MS = 20;
const MAX_DELAY_MS = 2_000;
/** How long the last frame stays before the GIF loops. */
const LAST_DELAY_MS = 1_500;
/** Memory jpeg-js may use to decode one frame. */
const DECODE_MAX_MIB = 64;

/** The frame's pixels as RGBA on a canvas of `width` × `height` (cut or padded with black). */
function pixels(frame: Frame, width: number, height: number): Uint8Array {
  const decoded = jpeg.decode(frame.jpeg, {
    useTArray: true,
    formatAsRGBA: true,
    maxMemoryUsageInMB: DECODE_MAX_MIB,
  });
  if (decoded.width === width && decoded.height === height) return decoded.data;
  const canvas = new Uint8Array(width * height * 4);
  const rows = Math.min(height, decoded.height);
  const rowBytes = Math.min(width, decoded.width) * 4;
  for (let y = 0; y < rows; y++) {
    const from = y * decoded.width * 4;
    canvas.set(decoded.data.subarray(from, from + rowBytes), y * width * 4);
  }
  return canvas;
}

/** How long each frame is shown. */
export function delays(frames: Frame[]): number[] {
  return frames.map((frame, i) => {
    const next = frames[i + 1];
    if (!next) return LAST_DELAY_MS;
    return Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, next.at - frame.at));
  });
}

/** Radius of a click's ring, in frame pixels, and its colours. */
const RING_RADIUS = 14;
const RING_WIDTH = 3;
const RING = [230, 30, 60];
const HALO = [255, 255, 255];

/** Draws a ring around `at` (red, edged white so it shows on any page). */
export function drawRing(rgba: Uint8Array, width: number, height: number, at: Point): void {
  const reach = RING_RADIUS + 2;
  for (let dy = -reach; dy <= reach; dy++) {
    const y = Math.round(at.y) + dy;
    if (y < 0 || y >= height) continue;
    for (let dx = -reach; dx <= reach; dx++) {
      const x = Math.round(at.x) + dx;
      if (x < 0 || x >= width) continue;
      const d = Math.hypot(dx, dy);
      const colour = d > RING_RADIUS - RING_WIDTH && d <= RING_RADIUS
        ? RING
        : (d > RING_RADIUS && d <= RING_RADIUS + 1.5) ||
            (d > RING_RADIUS - RING_WIDTH - 1.5 && d <= RING_RADIUS - RING_WIDTH)
        ? HALO
        : null;
      if (colour) rgba.set(colour, (y * width + x) * 4);
    }
  }
}

/** The frames as one looping GIF, the size of the first frame; `marks` rings the clicks. */
export function encodeGif(frames: Frame[], marks = true): Uint8Array {
  const { width, height } = frames[0];
  const gif = GIFEncoder();
  const shown = delays(frames);
  frames.forEach((frame, i) => {
    const rgba = pixels(frame, width, height);
    if (marks) { for (const click of frame.clicks ?? []) drawRing(rgba, width, height, click); }
    const palette = quantize(rgba, 256);
    gif.writeFrame(applyPalette(rgba, palette), width, height, {
      palette,
      delay: shown[i],
      repeat: 0,
    });
  });
  gif.finish();
  return gif.bytes();
}
