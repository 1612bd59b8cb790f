/**
 * What an image of a page leaves out (decision 0300): every frame of the page that Ghostlight's
 * world cannot enter is decided on its own host, as reads decide it (decision 0270), and a refused
 * frame's box is painted over in the image. `capture` in `screenshot.ts`, which every image of a
 * page goes through, asks for the boxes before and after it captures.
 *
 * @module
 */

import jpeg from "jpeg-js";
import { decodeBase64, encodeBase64 } from "../../../shared/base64.ts";
import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import type { ToolContext } from "../core/context.ts";
import { childFrame, frameGuard, READ } from "./collect.ts";
import type { FrameShown } from "../page_runtime/contract.ts";
import {
  type Frame,
  type FrameGuard,
  FrameWithheld,
  inFrame,
  MAX_FRAMES,
  MAX_NESTING,
  readVouched,
  runtimeCall,
  type TabPages,
  tabPages,
} from "./frames.ts";

/** What an image of a tab must leave out: the tab's pages, and the policy's word on each frame. */
export interface PixelGuard {
  pages: TabPages;
  guard: FrameGuard;
}

/** What an image of the call's tab leaves out: every frame the call may not read. */
export function pixelGuard(context: ToolContext, target: TabTarget): PixelGuard {
  return { pages: tabPages(context.workspace, target.tabId), guard: frameGuard(context, READ) };
}

/** A region of the viewport (CSS pixels) painted over in an image, and why. */
export interface Cover {
  x: number;
  y: number;
  width: number;
  height: number;
  why: string;
}

/** Where a frame's viewport lies in the tab's viewport, and what of it shows. */
interface Place {
  dx: number;
  dy: number;
  scale: number;
  clip: { x: number; y: number; width: number; height: number } | null;
}

/** Why a frame is covered when it could not be decided. */
const UNCHECKED = "a site Ghostlight could not check";

/** The image cannot be shown: where the withheld frames are is not known. */
function unknownBoxes(): ToolError {
  return new ToolError(
    "tool_failure",
    "No image was taken: the page has more frames or elements than Ghostlight looks through " +
      "for the frames it withholds, and such a frame must not show in an image.",
    "Read the page with read_page instead.",
  );
}

/**
 * The regions of the tab's viewport an image must not show now: every frame the guard refuses,
 * and every frame that could not be decided, however deeply nested. Throws when the page's frames
 * cannot be looked at (fail closed).
 */
export async function coversOf(target: TabTarget, pixels: PixelGuard): Promise<Cover[]> {
  // A main frame that cannot be looked at (an open dialog, a document going away) fails the
  // image as any read of the page fails: no image is taken.
  const main = await readVouched(
    target,
    pixels.pages,
    runtimeCall("framesShown"),
  );
  const covers: Cover[] = [];
  const run = { target, pixels, covers, checked: 0 };
  await coverIn(run, main.frame, main.value, { dx: 0, dy: 0, scale: 1, clip: null }, 0);
  return covers;
}

interface Looking {
  target: TabTarget;
  pixels: PixelGuard;
  covers: Cover[];
  checked: number;
}

async function coverIn(
  run: Looking,
  parent: Frame,
  shown: FrameShown[] | null,
  place: Place,
  nesting: number,
): Promise<void> {
  if (shown === null) throw unknownBoxes();
  for (const each of shown) {
    const box = clipTo({
      x: place.dx + each.x * place.scale,
      y: place.dy + each.y * place.scale,
      width: each.width * place.scale,
      height: each.height * place.scale,
    }, place.clip);
    if (box === null) continue;
    if (++run.checked > MAX_FRAMES || nesting >= MAX_NESTING) {
      run.covers.push({ ...box, why: UNCHECKED });
      continue;
    }
    let child: Frame;
    let inner: FrameShown[] | null;
    try {
      // Only looks, bounded in a frame's own session as a read's: a frame whose renderer does
      // not answer is covered as one not checked, its tab not quarantined (decision 0750).
      child = await childFrame(run.target, run.pixels.pages, parent, each.id, run.pixels.guard, {
        read: true,
      });
      inner = await inFrame(
        run.target,
        run.pixels.pages,
        child,
        runtimeCall("framesShown"),
        { read: true },
      );
    } catch (error) {
      if (error instanceof ToolError) throw error;
      const why = error instanceof FrameWithheld ? error.refusal.why : UNCHECKED;
      run.covers.push({ ...box, why });
      continue;
    }
    const origin = {
      dx: place.dx + each.originX * place.scale,
      dy: place.dy + each.originY * place.scale,
      scale: place.scale * each.scale,
    };
    try {
      await coverIn(run, child, inner, { ...origin, clip: box }, nesting + 1);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      // An allowed frame whose own frames cannot be looked at is covered whole.
      run.covers.push({ ...box, why: UNCHECKED });
    }
  }
}

function clipTo(
  box: { x: number; y: number; width: number; height: number },
  clip: Place["clip"],
): { x: number; y: number; width: number; height: number } | null {
  if (clip === null) return box.width > 0 && box.height > 0 ? box : null;
  const x = Math.max(box.x, clip.x);
  const y = Math.max(box.y, clip.y);
  const right = Math.min(box.x + box.width, clip.x + clip.width);
  const bottom = Math.min(box.y + box.height, clip.y + clip.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

/** Whether two looks found the same regions to cover. */
export function sameCovers(a: Cover[], b: Cover[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Memory jpeg-js may use to decode one image. */
const DECODE_MAX_MIB = 64;
/** Image pixels painted beyond a region's edge, for the JPEG's smearing of colours across it. */
const MARGIN = 2;
/** The colour a withheld region is painted: a flat mid grey. */
const COVER_GREY = 128;

/**
 * Paints `covers` over a JPEG (base64) of `region` (viewport CSS pixels) that is `width` ×
 * `height` pixels; the JPEG is returned unchanged when no cover falls inside it.
 */
export function paintCovers(
  data: string,
  image: { width: number; height: number; quality: number },
  region: { x: number; y: number; width: number; height: number },
  covers: Cover[],
): string {
  const sx = image.width / region.width;
  const sy = image.height / region.height;
  const rects = covers.map((cover) => ({
    left: Math.max(0, Math.floor((cover.x - region.x) * sx) - MARGIN),
    top: Math.max(0, Math.floor((cover.y - region.y) * sy) - MARGIN),
    right: Math.min(image.width, Math.ceil((cover.x + cover.width - region.x) * sx) + MARGIN),
    bottom: Math.min(image.height, Math.ceil((cover.y + cover.height - region.y) * sy) + MARGIN),
  })).filter((rect) => rect.right > rect.left && rect.bottom > rect.top);
  if (rects.length === 0) return data;
  const decoded = jpeg.decode(decodeBase64(data), {
    useTArray: true,
    formatAsRGBA: true,
    maxMemoryUsageInMB: DECODE_MAX_MIB,
  });
  const rgba = decoded.data;
  for (const rect of rects) {
    for (let y = rect.top; y < Math.min(rect.bottom, decoded.height); y++) {
      const row = y * decoded.width * 4;
      for (let x = rect.left; x < Math.min(rect.right, decoded.width); x++) {
        const at = row + x * 4;
        rgba[at] = rgba[at + 1] = rgba[at + 2] = COVER_GREY;
        rgba[at + 3] = 255;
      }
    }
  }
  const encoded = jpeg.encode(
    { data: rgba, width: decoded.width, height: decoded.height },
    image.quality,
  );
  return encodeBase64(encoded.data);
}

/** Whether any cover falls inside `region` (viewport CSS pixels). */
export function coversIn(
  covers: Cover[],
  region: { x: number; y: number; width: number; height: number },
): Cover[] {
  return covers.filter((cover) => clipTo(cover, region) !== null);
}

/** The note an answer gives, outside its fence, on the regions an image leaves out; or null. */
export function coveredNote(covers: Cover[]): string | null {
  if (covers.length === 0) return null;
  const whys = [...new Set(covers.map((cover) => cover.why))];
  const each = whys.slice(0, 3).join("; ");
  const more = whys.length > 3 ? ` (and ${whys.length - 3} more reasons)` : "";
  const [count, them] = covers.length === 1
    ? ["1 frame is", "it shows"]
    : [`${covers.length} frames are`, "they show"];
  return `Withheld in this image: ${count} painted over in grey: ${them} ${each}${more}. ` +
    "Nothing inside them is shown.";
}
