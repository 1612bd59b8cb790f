/**
 * `computer`: mouse, keyboard and screenshots.
 *
 * @module
 */

import { type Handler, success } from "./context.ts";
import { ToolError } from "./errors.ts";
import { screenshot } from "./screenshot.ts";
import { ownedTab } from "./target.ts";

/** `computer`. */
export const computer: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  switch (args.action) {
    case "screenshot": {
      const image = await screenshot(context.workspace, target);
      return success(
        `Screenshot ${image.id} of tab ${target.tabId}: ${image.width}×${image.height} px. ` +
          `Coordinates you pass to computer refer to this image's pixels.`,
        { tabId: target.tabId, imageId: image.id, width: image.width, height: image.height },
        [{ type: "image", data: image.data, mimeType: "image/jpeg" }],
      );
    }
    default:
      throw new ToolError(
        "tool_failure",
        `computer action "${args.action}" is not available in this build.`,
        'Use action "screenshot".',
      );
  }
};
