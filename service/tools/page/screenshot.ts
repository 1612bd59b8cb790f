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
import { mainWorldCall } from "./in_page.ts";
import { cdp, type TabTarget } from "../core/target.ts";

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
 * `maxSide` pixels a side.
 */
export async function capture(
  target: TabTarget,
  options: {
    region?: { x: number; y: number; width: number; height: number };
    maxSide?: number;
    quality?: number;
    /** Render small regions larger (up to 4×), for zoom. */
    upscale?: boolean;
    /** Leave the tab where it is (a recording samples; it must not pull the tab forward). */
    background?: boolean;
  } = {},
): Promise<{ data: string; width: number; height: number; cssPerPixel: number }> {
  const { view, ratio } = options.background ? await metrics(target) : await metricsInFront(target);
  const region = options.region ??
    { x: 0, y: 0, width: view.clientWidth, height: view.clientHeight };
  const maxSide = options.maxSide ?? MAX_IMAGE_SIDE;
  // Page.captureScreenshot yields clip × scale × devicePixelRatio pixels; dividing by the ratio
  // makes one image pixel one CSS pixel until the side cap shrinks it further.
  const fit = maxSide / Math.max(region.width, region.height);
  // A zoom re-renders the region larger (text is drawn anew, not interpolated); twice the CSS
  // size reads small print, and more costs the model image tokens for little gain.
  const scale = (options.upscale ? Math.min(2, fit) : Math.min(1, fit)) / ratio;
  const shot = await cdp(target, "Page.captureScreenshot", {
    format: "jpeg",
    quality: options.quality ?? 80,
    clip: {
      x: view.pageX + region.x,
      y: view.pageY + region.y,
      width: region.width,
      height: region.height,
      scale,
    },
  });
  const data = shot.data as string;
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
  return { data, ...size, cssPerPixel: region.width / size.width };
}

/**
 * The metrics, with a hidden tab brought to the front first: a screenshot shows what the user
 * would see of the tab. Both questions only read, so they go out together in one round trip.
 */
async function metricsInFront(target: TabTarget): Promise<{ view: Viewport; ratio: number }> {
  const { results } = await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: [
      { method: "Page.getLayoutMetrics", params: {} },
      // Whether the page is hidden is only used to bring it forward; a page lying about it
      // changes nothing that matters.
      {
        method: "Runtime.evaluate",
        params: { expression: mainWorldCall("pageHidden"), returnByValue: true },
      },
    ],
    pipeline: true,
  });
  const hidden = results[1].result as { value?: boolean } | undefined;
  if (hidden?.value === true) await cdp(target, "Page.bringToFront");
  return metricsFrom(results[0]);
}

/** Takes a screenshot of the tab's viewport and keeps it in the workspace. */
export async function screenshot(workspace: Workspace, target: TabTarget): Promise<KeptImage> {
  const shot = await capture(target);
  return keepImage(workspace, {
    tabId: target.tabId,
    data: shot.data,
    width: shot.width,
    height: shot.height,
    scale: shot.cssPerPixel,
  });
}

/** The newest full screenshot of a tab in the workspace: coordinates refer to it. */
export function latestScreenshot(workspace: Workspace, tabId: number): KeptImage | undefined {
  return workspace.images.findLast((image) => image.tabId === tabId && !image.region);
}

/** Viewport CSS pixels per screenshot pixel for a screenshot taken now. */
export async function currentScale(target: TabTarget): Promise<number> {
  const view = await viewport(target);
  return Math.max(1, Math.max(view.clientWidth, view.clientHeight) / MAX_IMAGE_SIDE);
}
