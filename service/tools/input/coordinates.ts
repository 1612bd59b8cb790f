/**
 * Coordinates: the pixels of the tab's latest screenshot, as the model reads them off the image,
 * mapped back to viewport CSS pixels with that screenshot's scale, so a point read off a
 * downscaled image lands on the same page pixel. computer, gif_creator and upload_image take
 * their points through it.
 *
 * @module
 */

import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { currentScale, latestScreenshot, viewport } from "../page/screenshot.ts";

/** A point in viewport CSS pixels. */
export type Point = { x: number; y: number };

/** Maps a screenshot-pixel coordinate to viewport CSS pixels. */
export async function toViewport(
  workspace: Workspace,
  target: TabTarget,
  coordinate: number[],
  field: string,
): Promise<Point> {
  const [x, y] = coordinate;
  const image = latestScreenshot(workspace, target.tabId);
  if (image && (x < 0 || y < 0 || x > image.width || y > image.height)) {
    throw new ToolError(
      "tool_failure",
      `${field} [${x}, ${y}] is outside your latest screenshot (${image.width}×${image.height}).`,
      "Use a point inside the screenshot, or take a new screenshot first.",
    );
  }
  if (image) return { x: x * image.scale, y: y * image.scale };
  // No screenshot yet: the space is the one a screenshot taken now would have.
  const view = await viewport(target);
  const scale = await currentScale(target);
  const width = Math.round(view.clientWidth / scale);
  const height = Math.round(view.clientHeight / scale);
  if (x < 0 || y < 0 || x > width || y > height) {
    throw new ToolError(
      "tool_failure",
      `${field} [${x}, ${y}] is outside the viewport (${width}×${height} screenshot pixels).`,
      `Take a screenshot first ({"action":"screenshot","tabId":123}) and use a point inside it, or ` +
        "pass a ref from find or read_page.",
    );
  }
  return { x: x * scale, y: y * scale };
}
