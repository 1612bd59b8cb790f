/**
 * `gif_creator`: records a tab into an animated GIF. `start_recording` samples the tab's
 * viewport in the background (without pulling the tab forward) until `stop_recording` or a
 * bound stops it (`gif/recordings.ts`); `status` says how far it got and why it stopped; `export`
 * encodes the frames as `image/gif` content, and with a ref or coordinate also puts the GIF into
 * the page like `upload_image`; `clear` forgets it. Memory only: nothing is written to disk.
 *
 * @module
 */

import { decodeBase64, encodeBase64 } from "../../../shared/base64.ts";
import type { Outcome } from "../../../shared/bridge.ts";
import { BrowserError } from "../../browser/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { encodeGif } from "../gif/encode.ts";
import {
  type Capture,
  type Frame,
  type Recording,
  RECORDING_OPTIONS,
  type RecordingOptions,
  RecordingRefused,
  STOP_REASONS,
  TabGone,
} from "../gif/recordings.ts";
import { deliverFiles } from "../input/deliver_files.ts";
import type { FileTarget } from "../page/files.ts";
import { capture } from "../page/screenshot.ts";
import { pixelGuard } from "../page/withheld_pixels.ts";
import { toViewport } from "../input/coordinates.ts";

type Args = Record<string, unknown>;
const MIB = 1024 * 1024;
/** Largest GIF an export returns: its base64 must fit the bridge's frame with room to spare. */
const MAX_GIF_BYTES = 16 * MIB;
/** JPEG quality of recorded frames: the GIF's 256 colours lose more than this does. */
const FRAME_QUALITY = 60;

/** The recording's settings from `options`, each default or checked against its range. */
export function recordingOptions(raw: unknown, tabId: number): RecordingOptions {
  const given = { ...(raw ?? {}) as Record<string, unknown> };
  const marks = given.showClickIndicators ?? true;
  delete given.showClickIndicators;
  const names = Object.keys(RECORDING_OPTIONS) as (keyof typeof RECORDING_OPTIONS)[];
  const unknown = Object.keys(given).filter((key) => !(names as string[]).includes(key));
  if (unknown.length > 0 || typeof marks !== "boolean") {
    throw new ToolError(
      "tool_failure",
      unknown.length > 0
        ? `options has no ${unknown.map((key) => JSON.stringify(key)).join(", ")}; it takes ` +
          `${names.join(", ")}, showClickIndicators.`
        : "options.showClickIndicators must be true or false.",
      `Call {"action": "start_recording", "tabId": ${tabId}, "options": {"maxFrames": 50}}.`,
    );
  }
  const bounds = Object.fromEntries(names.map((name) => {
    const range = RECORDING_OPTIONS[name];
    const value = given[name] ?? range.default;
    if (typeof value !== "number" || !Number.isInteger(value) || value < range.min) {
      throw new ToolError(
        "tool_failure",
        `options.${name} must be a whole number from ${range.min} to ${range.max}.`,
        `Leave it out for the default (${range.default}).`,
      );
    }
    return [name, Math.min(range.max, value)];
  }));
  return { ...bounds, showClickIndicators: marks } as RecordingOptions;
}

/** Samples the tab for a recording; a tab the workspace no longer owns ends it. */
function tabCapture(context: ToolContext, target: TabTarget, maxSide: number): Capture {
  const { workspace, workspaces } = context;
  let seen = Date.now();
  return async () => {
    if (workspaces.get(workspace.id) !== workspace || !workspace.tabs.has(target.tabId)) {
      throw new TabGone();
    }
    try {
      const shot = await capture(target, pixelGuard(context, target), {
        maxSide,
        quality: FRAME_QUALITY,
        background: true,
      });
      // Presses sent since the last frame, in this frame's pixels.
      const presses = target.link.tab(target.native).presses.items().filter((p) => p.at > seen);
      seen = presses.at(-1)?.at ?? seen;
      const clicks = presses.map((p) => ({ x: p.x / shot.cssPerPixel, y: p.y / shot.cssPerPixel }));
      return {
        jpeg: decodeBase64(shot.data),
        width: shot.width,
        height: shot.height,
        ...(clicks.length ? { clicks } : {}),
        ...(shot.covers.length ? { withheld: [...new Set(shot.covers.map((c) => c.why))] } : {}),
      };
    } catch (error) {
      if (error instanceof BrowserError && error.kind === "no_such_tab") throw new TabGone();
      // An open dialog freezes the page: no new frame until it is answered.
      if (error instanceof BrowserError && error.kind === "dialog_open") return null;
      throw error;
    }
  };
}

/** What a recording is doing, as structured content. */
function statusOf(recording: Recording, tabId: number): Record<string, unknown> {
  const last = recording.frames.at(-1);
  return {
    tabId,
    state: recording.state,
    ...(recording.reason ? { reason: recording.reason } : {}),
    frames: recording.frames.length,
    bytes: recording.bytes,
    seconds: Math.round(recording.durationMs / 100) / 10,
    ...(last ? { width: recording.frames[0].width, height: recording.frames[0].height } : {}),
    options: recording.options,
  };
}

function statusText(recording: Recording): string {
  const what = `${recording.frames.length} frame${recording.frames.length === 1 ? "" : "s"} ` +
    `(${Math.round(recording.bytes / 1024)} KiB) over ${
      (recording.durationMs / 1000).toFixed(1)
    } s`;
  if (recording.state === "recording") return `Recording: ${what} so far.`;
  return `Stopped (${recording.reason}: ${STOP_REASONS[recording.reason!]}): ${what}.`;
}

function noRecording(target: TabTarget): ToolError {
  return new ToolError(
    "tool_failure",
    `Tab ${target.tabId} has no recording.`,
    `Start one: {"action": "start_recording", "tabId": ${target.tabId}}.`,
  );
}

function recordingOf(context: ToolContext, target: TabTarget): Recording {
  const recording = context.recordings.get(context.workspace, target.tabId);
  if (!recording) throw noRecording(target);
  return recording;
}

function start(args: Args, context: ToolContext, target: TabTarget): Outcome {
  const options = recordingOptions(args.options, target.tabId);
  let recording: Recording;
  try {
    recording = context.recordings.start(
      context.workspace,
      target.tabId,
      options,
      tabCapture(context, target, options.maxSide),
    );
  } catch (error) {
    if (!(error instanceof RecordingRefused)) throw error;
    throw new ToolError(
      "tool_failure",
      `Cannot start recording: ${error.message}.`,
      `Stop or export it first ({"action": "stop_recording", "tabId": ${target.tabId}}).`,
    );
  }
  // The loop catches its captures' failures; anything else stops the recording, with a reason.
  recording.run().catch(() => recording.stop("capture_failed"));
  return success(
    `Recording tab ${target.tabId}: a frame every ${options.intervalMs} ms when the page ` +
      `changed, at most ${options.maxFrames} frames and ${options.maxDurationMs / 1000} s. ` +
      "Act on the page, then stop_recording and export.",
    statusOf(recording, target.tabId),
  );
}

/** Where an export puts the GIF in the page, if anywhere. */
async function exportTarget(args: Args, context: ToolContext, target: TabTarget) {
  if (typeof args.ref === "string") return { ref: args.ref } as FileTarget;
  if (!Array.isArray(args.coordinate)) return null;
  const point = await toViewport(
    context.workspace,
    target,
    args.coordinate as number[],
    "coordinate",
  );
  return { point } as FileTarget;
}

async function exportGif(args: Args, context: ToolContext, target: TabTarget) {
  if (args.download === true) {
    throw new ToolError(
      "tool_failure",
      "download is not supported: Ghostlight does not write files to the user's downloads.",
      "Export without it: the GIF comes back to you as image/gif content; pass ref or " +
        "coordinate to put it into the page.",
    );
  }
  const recording = recordingOf(context, target);
  if (recording.frames.length === 0) {
    throw new ToolError(
      "tool_failure",
      "The recording has no frames yet.",
      "Let the page change while recording (act on it), then export.",
    );
  }
  const gif = encodeGif(recording.frames, recording.options.showClickIndicators);
  if (gif.length > MAX_GIF_BYTES) {
    throw new ToolError(
      "tool_failure",
      `The GIF would be ${Math.round(gif.length / MIB)} MiB; an export returns at most ` +
        `${MAX_GIF_BYTES / MIB} MiB.`,
      "Record again with fewer frames (options.maxFrames) or smaller ones (options.maxSide).",
    );
  }
  const block = { type: "image" as const, data: encodeBase64(gif), mimeType: "image/gif" };
  const where = await exportTarget(args, context, target);
  const { width, height } = recording.frames[0];
  const facts = { ...statusOf(recording, target.tabId), gifBytes: gif.length, width, height };
  if (where) {
    const name = typeof args.filename === "string" && args.filename.trim()
      ? args.filename.trim().split(/[\\/]/).pop()!
      : "recording.gif";
    const placed = await deliverFiles(
      context,
      target,
      where,
      [{ name, type: "image/gif", bytes: gif }],
      { tool: "gif_creator", mode: "auto", extra: facts },
    );
    return placed.kind === "success" ? { ...placed, content: [...placed.content, block] } : placed;
  }
  return success(
    `GIF of ${recording.frames.length} frames, ${width}×${height}, ${
      Math.round(gif.length / 1024)
    } KiB. ${statusText(recording)}${withheldInGif(recording.frames)}`,
    facts,
    [block],
  );
}

/** The note (with a leading space) on regions painted over in a recording's frames, or "". */
function withheldInGif(frames: Frame[]): string {
  const covered = frames.filter((frame) => frame.withheld?.length);
  if (covered.length === 0) return "";
  const whys = [...new Set(covered.flatMap((frame) => frame.withheld!))];
  return ` Withheld in this GIF: in ${covered.length} of its frames, frames of the page are ` +
    `painted over in grey: they show ${whys.slice(0, 3).join("; ")}. Nothing inside them is shown.`;
}

/** One action: what it does with the call's arguments on an owned tab. */
type Action = (args: Args, context: ToolContext, target: TabTarget) => Outcome | Promise<Outcome>;

const ACTIONS: Record<string, Action> = {
  start_recording: start,
  stop_recording: (_args, context, target) => {
    const recording = recordingOf(context, target);
    recording.stop("stopped");
    return success(statusText(recording), statusOf(recording, target.tabId));
  },
  status: (_args, context, target) => {
    const recording = recordingOf(context, target);
    return success(statusText(recording), statusOf(recording, target.tabId));
  },
  clear: (_args, context, target) => {
    if (!context.recordings.clear(context.workspace, target.tabId)) throw noRecording(target);
    return success(`Cleared the recording of tab ${target.tabId}.`, { tabId: target.tabId });
  },
  export: exportGif,
};

/** `gif_creator`. */
export const gifCreator: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  return await ACTIONS[args.action as string](args, context, target);
};
