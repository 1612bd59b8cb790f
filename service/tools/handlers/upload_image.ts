/**
 * `upload_image`: a screenshot the workspace kept (by its image id) into a file input or onto a
 * drop target, by ref or at a point of the latest screenshot, as a JPEG file.
 *
 * @module
 */

import { decodeBase64 } from "../../../shared/base64.ts";
import { MAX_IMAGES } from "../../workspace/mod.ts";
import { type Handler } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { ownedTab } from "../core/target.ts";
import { deliverFiles } from "../input/deliver_files.ts";
import type { FileTarget } from "../page/files.ts";
import { toViewport } from "../input/coordinates.ts";

/** `upload_image`. */
export const uploadImage: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const imageId = args.imageId as string;
  const image = context.workspace.images.find((kept) => kept.id === imageId);
  if (!image) {
    throw new ToolError(
      "tool_failure",
      `No screenshot ${JSON.stringify(imageId)} is kept: ids come from computer screenshots, and ` +
        `only your latest ${MAX_IMAGES} are kept.`,
      `Take one (computer {"action": "screenshot", "tabId": ${target.tabId}}) and pass its imageId.`,
    );
  }
  let where: FileTarget;
  if (typeof args.ref === "string") {
    where = { ref: args.ref };
  } else if (Array.isArray(args.coordinate)) {
    const coordinate = args.coordinate as number[];
    if (coordinate.length !== 2 || !coordinate.every(Number.isFinite)) {
      throw new ToolError(
        "tool_failure",
        "coordinate must be [x, y] in your latest screenshot's pixels.",
        `Call {"imageId": "${imageId}", "coordinate": [400, 300], "tabId": ${target.tabId}}.`,
      );
    }
    where = { point: await toViewport(context.workspace, target, coordinate, "coordinate") };
  } else {
    throw new ToolError(
      "tool_failure",
      "Say where the image goes: ref (a file input or drop area) or coordinate.",
      `Call {"imageId": "${imageId}", "ref": "ref_3", "tabId": ${target.tabId}}.`,
    );
  }
  const name = typeof args.filename === "string" && args.filename.trim()
    ? args.filename.trim().split(/[\\/]/).pop()!
    : `${imageId}.jpg`;
  return await deliverFiles(
    context,
    target,
    where,
    [{ name, type: "image/jpeg", bytes: decodeBase64(image.data) }],
    {
      tool: "upload_image",
      mode: "auto",
      extra: { imageId, width: image.width, height: image.height },
    },
  );
};
