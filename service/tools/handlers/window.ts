/**
 * `resize_window`: resizes the browser window that holds an owned tab. A window is shared by
 * every tab in it, so this is a whole-browser resource. When the screen is too small for the
 * window Chrome refuses it; the tab's viewport is then emulated at the asked size instead, and
 * the answer says so.
 *
 * @module
 */

import { MAX_WINDOW_SIDE, MIN_WINDOW_SIDE } from "../../../shared/browser_protocol.ts";
import { BrowserError, type TabState } from "../../browser/mod.ts";
import { type Handler, success } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { inMainWorld, mainWorldCall } from "../page/frames.ts";
import { cdp, ownedTab, type TabTarget } from "../core/target.ts";

function side(value: unknown, field: string, tabId: number): number {
  const number = value as number;
  if (!Number.isFinite(number) || number < MIN_WINDOW_SIDE || number > MAX_WINDOW_SIDE) {
    throw new ToolError(
      "tool_failure",
      `${field} must be between ${MIN_WINDOW_SIDE} and ${MAX_WINDOW_SIDE} pixels, not ${value}.`,
      `Call {"width": 1280, "height": 800, "tabId": ${tabId}}.`,
    );
  }
  return Math.round(number);
}

/** The window's outer size and the page's viewport, or null when the page cannot be asked. */
async function viewportNow(target: TabTarget): Promise<number[] | null> {
  return await inMainWorld(target, mainWorldCall("windowSize")).catch(() => null);
}

/**
 * The window's frame around the page (outer size less the viewport), from a measure taken with
 * no emulation; none when it is unknown or would leave less than half the asked size.
 */
function frameOf(
  measured: number[] | null,
  width: number,
  height: number,
): { width: number; height: number } {
  const edge = (outer: number | undefined, inner: number | undefined, whole: number) => {
    const frame = (outer ?? 0) - (inner ?? 0);
    return Number.isFinite(frame) && frame > 0 && frame < whole / 2 ? Math.round(frame) : 0;
  };
  return {
    width: edge(measured?.[0], measured?.[2], width),
    height: edge(measured?.[1], measured?.[3], height),
  };
}

/**
 * Each tab's window measured before its first resize (outer size and viewport, no emulation):
 * the frame around the page as launched. A shrunk window may show a bar the launched one did not
 * (headless Chromium's automation bar), so the frame measured then would not give back the launch
 * viewport. Kept as long as the service knows the tab.
 */
const launched = new WeakMap<TabState, number[]>();

/** How long resize_window waits for the page to see its new size. */
const SETTLE_MS = 2_000;

/**
 * The page's viewport once the renderer has taken the new size: Chrome answers the resize
 * before the page is laid out again, and an agent that screenshots at once would see the old
 * size. When the window size changed, the page answers once its viewport moved (each frame is
 * looked at), or at the bound.
 */
async function settledViewport(
  target: TabTarget,
  before: number[] | null,
  size: { width: number; height: number },
): Promise<number[] | null> {
  const moving = before !== null && (before[0] !== size.width || before[1] !== size.height);
  const now = moving
    ? await inMainWorld(
      target,
      mainWorldCall("windowSizeOnceMoved", [before[2], before[3]], SETTLE_MS),
    ).catch(() => null)
    : await viewportNow(target);
  return now === null ? null : [now[2], now[3]];
}

/** `resize_window`. */
export const resizeWindow: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const width = side(args.width, "width", target.tabId);
  const height = side(args.height, "height", target.tabId);
  let lead: string;
  let size: { width: number; height: number };
  const before = await viewportNow(target);
  const tab = target.link.tab(target.native);
  if (before && !launched.has(tab)) launched.set(tab, before);
  try {
    const window = await target.link.call("window.resize", {
      tab_id: target.native,
      width,
      height,
    });
    // A real window size replaces any viewport emulated by an earlier call.
    await cdp(target, "Emulation.clearDeviceMetricsOverride");
    size = { width: window.width, height: window.height };
    lead = `The window of tab ${target.tabId} is ${window.width}×${window.height}`;
    if (window.width !== width || window.height !== height) {
      lead += ` (the browser allowed that, not ${width}×${height})`;
    }
  } catch (error) {
    if (!(error instanceof BrowserError && error.kind === "unsupported")) throw error;
    // The page gets the viewport such a window would show: the window's own frame (tab strip,
    // toolbar) taken off, as measured before the tab's first resize (else now, without any
    // emulation). Going back to a launch size larger than the screen then gives the page the
    // viewport it had at launch.
    await cdp(target, "Emulation.clearDeviceMetricsOverride");
    const frame = frameOf(launched.get(tab) ?? await viewportNow(target), width, height);
    const view = { width: width - frame.width, height: height - frame.height };
    await cdp(target, "Emulation.setDeviceMetricsOverride", {
      ...view,
      deviceScaleFactor: 0,
      mobile: false,
    });
    size = { width, height };
    lead = `The screen is too small for a ${width}×${height} window, so tab ${target.tabId}'s ` +
      `viewport is emulated at ${view.width}×${view.height} instead, what such a window shows`;
  }
  const view = await settledViewport(target, before, size);
  const inner = view ? ` (page viewport ${view[0]}×${view[1]} CSS px)` : "";
  return success(
    `${lead}${inner}. Take a new screenshot before using coordinates.`,
    {
      tabId: target.tabId,
      ...size,
      ...(view ? { viewport: { width: view[0], height: view[1] } } : {}),
    },
  );
};
