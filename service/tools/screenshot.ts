/**
 * Screenshots: JPEG, scaled so no side exceeds 1568 px, kept in the workspace under an image id
 * with the scale that maps its pixels back to viewport CSS pixels.
 *
 * @module
 */

import { decodeBase64 } from "../../shared/base64.ts";
import { keepImage, type KeptImage, type Workspace } from "../workspace/mod.ts";
import { ToolError } from "./errors.ts";
import { jpegSize } from "./jpeg.ts";
import { cdp, type TabTarget } from "./target.ts";

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
  const metrics = await cdp(target, "Page.getLayoutMetrics");
  return metrics.cssVisualViewport as Viewport;
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
  } = {},
): Promise<{ data: string; width: number; height: number; cssPerPixel: number }> {
  const view = await viewport(target);
  const region = options.region ??
    { x: 0, y: 0, width: view.clientWidth, height: view.clientHeight };
  const page = (await cdp(target, "Runtime.evaluate", {
    expression: "[window.devicePixelRatio, document.hidden]",
    returnByValue: true,
  })).result as { value?: [number, boolean] };
  const ratio = page.value?.[0] || 1;
  // A screenshot shows what the user would see of the tab: bring it to the front first.
  if (page.value?.[1]) await cdp(target, "Page.bringToFront");
  const maxSide = options.maxSide ?? MAX_IMAGE_SIDE;
  // Page.captureScreenshot yields clip × scale × devicePixelRatio pixels; dividing by the ratio
  // makes one image pixel one CSS pixel until the side cap shrinks it further.
  const fit = maxSide / Math.max(region.width, region.height);
  const scale = (options.upscale ? Math.min(4, fit) : Math.min(1, fit)) / ratio;
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
  return { data, ...size, cssPerPixel: region.width / size.width };
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
