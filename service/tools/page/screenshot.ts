/**
 * Screenshots: JPEG, scaled so no side exceeds 1568 px, kept in the workspace under an image id
 * with the scale that maps its pixels back to viewport CSS pixels.
 *
 * @module
 */

import { decodeBase64 } from "../../../shared/base64.ts";
import { keepImage, type KeptImage, type Workspace } from "../../workspace/mod.ts";
import { ToolError } from "../core/errors.ts";
import { jpegSize } from "./jpeg.ts";
import { mainWorldCall } from "./frames.ts";
import { cdp, sentFor, type TabTarget } from "../core/target.ts";
import { compile, program } from "../core/program.ts";
import {
  type Cover,
  coversIn,
  coversOf,
  paintCovers,
  type PixelGuard,
  sameCovers,
} from "./withheld_pixels.ts";

/** No side of an image sent to the model exceeds this many pixels. */
export const MAX_IMAGE_SIDE = 1568;

interface Viewport {
  pageX: number;
  pageY: number;
  clientWidth: number;
  clientHeight: number;
}

/** The visible viewport in CSS pixels. */
export async function viewport(target: TabTarget): Promise<Viewport> {
  return (await metrics(target)).view;
}

/** Device pixels per CSS pixel are taken to lie in this range, whatever the browser says. */
const MIN_RATIO = 0.5;
const MAX_RATIO = 4;

/**
 * The visible viewport in CSS pixels and the device pixel ratio, both from the browser's layout
 * (the page's main world can redefine `window.devicePixelRatio`).
 */
async function metrics(target: TabTarget): Promise<{ view: Viewport; ratio: number }> {
  return metricsFrom(await cdp(target, "Page.getLayoutMetrics"));
}

function metricsFrom(metrics: Record<string, unknown>): { view: Viewport; ratio: number } {
  const view = metrics.cssVisualViewport as Viewport;
  // visualViewport is in device pixels, cssVisualViewport in CSS pixels.
  const device = (metrics.visualViewport as Viewport | undefined)?.clientWidth ?? 0;
  const ratio = device > 0 && view.clientWidth > 0 ? device / view.clientWidth : 1;
  return { view, ratio: Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio)) };
}

/**
 * Captures a region of the viewport (CSS pixels, default all of it) as JPEG, with at most
 * `maxSide` pixels a side, and every frame `pixels` withholds painted over (decision 0300): the
 * frames are looked for before and after the capture, and the image is taken again (a few times,
 * then refused) when they moved in between.
 */
export async function capture(
  target: TabTarget,
  pixels: PixelGuard,
  options: CaptureOptions = {},
): Promise<Captured> {
  for (let tries = 1;; tries++) {
    const before = await coversOf(target, pixels);
    const shot = await captureAsIs(target, options);
    const after = await coversOf(target, pixels);
    if (sameCovers(before, after)) {
      const covers = coversIn(after, shot.region);
      const data = paintCovers(shot.data, shot, shot.region, covers);
      return {
        data,
        width: shot.width,
        height: shot.height,
        cssPerPixel: shot.cssPerPixel,
        covers,
      };
    }
    if (tries >= MOVING_TRIES) {
      throw new ToolError(
        "tool_failure",
        "No image was taken: a frame Ghostlight withholds moved or changed while the image was " +
          "taken, so where to paint it over was not known.",
        "Wait for the page to settle and try again.",
      );
    }
  }
}

/** How many times an image is taken again while a withheld frame moves under it. */
const MOVING_TRIES = 3;

/** What a capture may be asked. */
interface CaptureOptions {
  region?: { x: number; y: number; width: number; height: number };
  maxSide?: number;
  quality?: number;
  /** Render small regions larger (up to 4×), for zoom. */
  upscale?: boolean;
  /** Leave the tab where it is (a recording samples; it must not pull the tab forward). */
  background?: boolean;
}

/** An image of the page, with the regions painted over in it and why. */
export interface Captured {
  data: string;
  width: number;
  height: number;
  cssPerPixel: number;
  covers: Cover[];
}

/** The capture itself, before anything is painted over. */
async function captureAsIs(
  target: TabTarget,
  options: CaptureOptions,
): Promise<
  {
    data: string;
    width: number;
    height: number;
    cssPerPixel: number;
    quality: number;
    region: { x: number; y: number; width: number; height: number };
  }
> {
  const maxSide = options.maxSide ?? MAX_IMAGE_SIDE;
  const quality = options.quality ?? 80;
  const viewportShot = !options.region && !options.background && !options.upscale;
  const aimed = viewportShot ? await viewportInOneMessage(target, { maxSide, quality }) : null;
  let data = aimed?.data;
  let region = aimed?.region;
  if (data === undefined || region === undefined) {
    const { view, ratio } = options.background
      ? await metrics(target)
      : await metricsInFront(target);
    region = options.region ?? { x: 0, y: 0, width: view.clientWidth, height: view.clientHeight };
    const scale = scaleOf(region, ratio, maxSide, options.upscale ?? false);
    if (viewportShot) rememberScale(target, scale);
    const shot = await cdp(target, "Page.captureScreenshot", {
      format: "jpeg",
      quality,
      clip: {
        x: view.pageX + region.x,
        y: view.pageY + region.y,
        width: region.width,
        height: region.height,
        scale,
      },
    });
    data = shot.data as string;
  }
  const size = jpegSize(decodeBase64(data));
  if (!size) {
    throw new ToolError("tool_failure", "The browser returned no image.", "Try again.");
  }
  // Rounding aside, the image is never larger than asked for.
  if (Math.max(size.width, size.height) > maxSide + 2) {
    throw new ToolError(
      "tool_failure",
      `The browser returned a ${size.width}×${size.height} image, larger than ${maxSide} pixels.`,
      "Try again; if it repeats, resize_window to a smaller size first.",
    );
  }
  return { data, ...size, cssPerPixel: region.width / size.width, quality, region };
}

/**
 * The metrics, with a hidden tab brought to the front first: a screenshot shows what the user
 * would see of the tab. Both questions only read, so they go out together in one round trip.
 */
/**
 * The clip scale for `region`: `Page.captureScreenshot` yields clip × scale × devicePixelRatio
 * pixels, so dividing by the ratio makes one image pixel one CSS pixel until the side cap shrinks
 * it further. A zoom re-renders the region larger (text is drawn anew, not interpolated); twice the
 * CSS size reads small print, and more costs the model image tokens for little gain.
 */
function scaleOf(
  region: { width: number; height: number },
  ratio: number,
  maxSide: number,
  upscale: boolean,
): number {
  const fit = maxSide / Math.max(region.width, region.height);
  return (upscale ? Math.min(2, fit) : Math.min(1, fit)) / ratio;
}

/**
 * The layout metrics and whether the page is hidden, asked together before a capture. Whether it
 * is hidden is only used to bring it forward; a page lying about it changes nothing that matters.
 */
const METRICS_AND_HIDDEN = [
  { method: "Page.getLayoutMetrics", params: {} },
  {
    method: "Runtime.evaluate",
    params: { expression: mainWorldCall("pageHidden"), returnByValue: true },
  },
];

/** The clip scale of each tab's last viewport screenshot, by browser link and tab. */
const lastScales = new WeakMap<object, Map<number, number>>();
/** Tabs per browser whose scale is remembered. */
const MAX_REMEMBERED_SCALES = 64;

function rememberScale(target: TabTarget, scale: number): void {
  let scales = lastScales.get(target.link);
  if (!scales) lastScales.set(target.link, scales = new Map());
  scales.delete(target.native);
  scales.set(target.native, scale);
  if (scales.size > MAX_REMEMBERED_SCALES) scales.delete(scales.keys().next().value!);
}

/**
 * Expects the scale a tab's next viewport screenshot will have from its window as a new document
 * reported it at its load (`innerWidth`, `innerHeight`, `devicePixelRatio`), where no screenshot
 * of the tab taught it yet: the first screenshot is then one message too. A guess that turns out
 * wrong (a scroll bar across the side cap, a ratio that rounds otherwise) costs that screenshot its
 * second try, and the ordinary path remembers the right scale.
 */
export function expectScale(
  target: TabTarget,
  view: { width: number; height: number; ratio: number },
): void {
  if (lastScales.get(target.link)?.has(target.native)) return;
  const ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, view.ratio));
  rememberScale(target, scaleOf(view, ratio, MAX_IMAGE_SIDE, false));
}

/**
 * A screenshot of the viewport in one message (decision 0242): the layout metrics, whether the
 * page is hidden, and the capture, aimed at the viewport the metrics report, at the scale the
 * tab's last screenshot had, sent only when the page is in front. Used only when that scale is
 * still the right one for the metrics that came back; otherwise (or a page in the background,
 * an older extension, no screenshot of the tab yet) null, and the capture is made the ordinary
 * way.
 */
async function viewportInOneMessage(
  target: TabTarget,
  options: { maxSide: number; quality: number },
): Promise<
  { data: string; region: { x: number; y: number; width: number; height: number } } | null
> {
  const scale = lastScales.get(target.link)?.get(target.native);
  if (scale === undefined || !target.link.details.features.includes("reply_values")) return null;
  const shot = compile(
    program()
      .step("metrics", () => METRICS_AND_HIDDEN[0])
      .step("hidden", () => METRICS_AND_HIDDEN[1])
      .condition("in front", (at) => [{ value: at("hidden", "result", "value"), equals: false }])
      .step("capture", (at) => {
        const viewport = (field: string) => at("metrics", "cssVisualViewport", field);
        return {
          method: "Page.captureScreenshot",
          params: {
            format: "jpeg",
            quality: options.quality,
            clip: {
              scale,
              x: viewport("pageX"),
              y: viewport("pageY"),
              width: viewport("clientWidth"),
              height: viewport("clientHeight"),
            },
          },
          when: ["in front"],
        };
      }),
  );
  const { results } = await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: shot.commands,
    pipeline: true,
  }, sentFor(target));
  const { view, ratio } = metricsFrom(shot.reply("metrics", results));
  const region = { x: 0, y: 0, width: view.clientWidth, height: view.clientHeight };
  const data = shot.reply("capture", results).data;
  // A scale off in its last digits (a ratio such as 1.25 read as device ÷ CSS pixels) draws the
  // same picture: the image's own size is what its coordinates are mapped back with.
  const wanted = scaleOf(region, ratio, options.maxSide, false);
  if (typeof data !== "string" || Math.abs(wanted - scale) > wanted * 1e-6) return null;
  return { data, region };
}

async function metricsInFront(target: TabTarget): Promise<{ view: Viewport; ratio: number }> {
  const { results } = await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: METRICS_AND_HIDDEN,
    pipeline: true,
  }, sentFor(target));
  const hidden = results[1].result as { value?: boolean } | undefined;
  if (hidden?.value === true) await cdp(target, "Page.bringToFront");
  return metricsFrom(results[0]);
}

/** Takes a screenshot of the tab's viewport and keeps it in the workspace. */
export async function screenshot(
  workspace: Workspace,
  target: TabTarget,
  pixels: PixelGuard,
): Promise<{ image: KeptImage; covers: Cover[] }> {
  const shot = await capture(target, pixels);
  const image = keepImage(workspace, {
    tabId: target.tabId,
    data: shot.data,
    width: shot.width,
    height: shot.height,
    scale: shot.cssPerPixel,
  });
  return { image, covers: shot.covers };
}

/** The newest full screenshot of a tab in the workspace: coordinates refer to it. */
export function latestScreenshot(workspace: Workspace, tabId: number): KeptImage | undefined {
  return workspace.images.findLast((image) => image.tabId === tabId && !image.region);
}

/** Viewport CSS pixels per screenshot pixel for a screenshot taken now. */
export async function currentScale(target: TabTarget): Promise<number> {
  return cssPerShotPixel(await viewport(target));
}

/** The command whose reply {@linkcode scaleFromMetrics} reads, to send beside another. */
export const LAYOUT_METRICS = { method: "Page.getLayoutMetrics", params: {} } as const;

/** {@linkcode currentScale} from a reply to {@linkcode LAYOUT_METRICS} sent beside a read. */
export function scaleFromMetrics(reply: Record<string, unknown>): number {
  return cssPerShotPixel(metricsFrom(reply).view);
}

function cssPerShotPixel(view: Viewport): number {
  return Math.max(1, Math.max(view.clientWidth, view.clientHeight) / MAX_IMAGE_SIDE);
}
