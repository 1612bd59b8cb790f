/**
 * `computer`: mouse, keyboard and screenshots. Coordinates are pixels of the tab's latest
 * screenshot, mapped back to viewport CSS pixels by the input layer (`input/coordinates.ts`).
 * The handler checks the call's arguments, states each pointer or key action as an intent for
 * the input layer (`input/act.ts`: real `Input.*` events, batched into one round trip; typed
 * text inserted at once where the page listens for no key events, decision 0170) and renders
 * the receipt it gets back.
 *
 * @module
 */

import type { ContentBlock, Outcome } from "../../../shared/bridge.ts";
import type { OpenDialog } from "../../browser/mod.ts";
import { keepImage, type Workspace } from "../../workspace/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { actedOutcome, type At, type Intent, perform } from "../input/act.ts";
import { toViewport } from "../input/coordinates.ts";
import { answerDialog } from "../input/dialogs.ts";
import { scrollBy, scrollToRef } from "../input/scroll.ts";
import { capture, screenshot } from "../page/screenshot.ts";
import { type Cover, coveredNote, pixelGuard } from "../page/withheld_pixels.ts";

/** Longest text one `type` call sends. */
const MAX_TYPE_CHARS = 2_000;

type Args = Record<string, unknown>;

function example(action: string, extra: Args): string {
  return JSON.stringify({ action, ...extra, tabId: 123 });
}

function missing(field: string, action: string, extra: Args): ToolError {
  return new ToolError(
    "tool_failure",
    `${field} is required for ${action}.`,
    `Call ${example(action, extra)}.`,
  );
}

async function shotContent(context: ToolContext, target: TabTarget) {
  const { image, covers } = await screenshot(
    context.workspace,
    target,
    pixelGuard(context, target),
  );
  const block: ContentBlock = { type: "image", data: image.data, mimeType: "image/jpeg" };
  return { image, block, ...withheldParts(covers, image.scale, { x: 0, y: 0 }) };
}

/**
 * The note (with a leading space) and the structured field on the regions an image leaves out,
 * in that image's pixels.
 */
function withheldParts(covers: Cover[], cssPerPixel: number, from: { x: number; y: number }) {
  const note = coveredNote(covers);
  if (note === null) return { note: "", withheld: {} };
  const px = (css: number, origin: number) => Math.round((css - origin) / cssPerPixel);
  return {
    note: ` ${note}`,
    withheld: {
      withheldRegions: covers.map((cover) => ({
        x: px(cover.x, from.x),
        y: px(cover.y, from.y),
        width: Math.round(cover.width / cssPerPixel),
        height: Math.round(cover.height / cssPerPixel),
        why: cover.why,
      })),
    },
  };
}

async function scroll(args: Args, context: ToolContext, target: TabTarget) {
  const direction = args.scroll_direction as string | undefined;
  if (!direction) {
    throw missing("scroll_direction", "scroll", { scroll_direction: "down", scroll_amount: 3 });
  }
  const amount = (args.scroll_amount as number | undefined) ?? 3;
  const coordinate = args.coordinate as number[] | undefined;
  const { from, to } = await scrollBy(context, target, { direction, amount, coordinate });
  const { image, block, note, withheld } = await shotContent(context, target);
  const same = (a?: number[], b?: number[]) => a?.[0] === b?.[0] && a?.[1] === b?.[1];
  const pageMoved = from && to && !same(from.page, to.page);
  const innerMoved = from?.inner && to?.inner && from.inner.name === to.inner.name &&
    !same(from.inner.at, to.inner.at);
  const text = pageMoved
    ? `Scrolled ${direction} ${amount}; the page is now at x ${to.page[0]}, y ${to.page[1]}.`
    : innerMoved
    ? `Scrolled ${direction} ${amount} inside "${to.inner!.name}", now at x ${to.inner!.at[0]}, y ${
      to.inner!.at[1]
    }; the page itself did not move.`
    : `Scrolled ${direction} ${amount}, but nothing moved: the page or the area under that ` +
      "point is already at its end, or does not scroll that way.";
  return success(
    `${text} Screenshot ${image.id} (${image.width}×${image.height}) follows.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      scroll: to?.page,
      ...(innerMoved ? { innerScroll: to!.inner } : {}),
      ...withheld,
    },
    [block],
  );
}

async function zoom(args: Args, context: ToolContext, target: TabTarget) {
  const region = args.region as number[] | undefined;
  if (!region) throw missing("region", "zoom", { region: [0, 0, 400, 300] });
  const [x0, y0, x1, y1] = region;
  if (!(x1 > x0 && y1 > y0)) {
    throw new ToolError(
      "tool_failure",
      `region must be [x0, y0, x1, y1] with x1 > x0 and y1 > y0; got [${region.join(", ")}].`,
      `Call ${example("zoom", { region: [100, 100, 500, 400] })}.`,
    );
  }
  const topLeft = await toViewport(context.workspace, target, [x0, y0], "region");
  const bottomRight = await toViewport(context.workspace, target, [x1, y1], "region");
  const cssRegion = {
    x: topLeft.x,
    y: topLeft.y,
    width: bottomRight.x - topLeft.x,
    height: bottomRight.y - topLeft.y,
  };
  const shot = await capture(target, pixelGuard(context, target), {
    region: cssRegion,
    quality: 90,
    upscale: true,
  });
  const { note, withheld } = withheldParts(shot.covers, shot.cssPerPixel, cssRegion);
  const image = keepImage(context.workspace, {
    tabId: target.tabId,
    data: shot.data,
    width: shot.width,
    height: shot.height,
    scale: shot.cssPerPixel,
    region: cssRegion,
  });
  return success(
    `Zoom ${image.id} of [${region.join(", ")}] at ${image.width}×${image.height}. Coordinates ` +
      `for clicks still refer to your latest full screenshot, not to this zoom.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      ...withheld,
    },
    [{ type: "image", data: image.data, mimeType: "image/jpeg" }],
  );
}

async function wait(args: Args, context: ToolContext, target: TabTarget) {
  const seconds = args.duration as number | undefined;
  if (seconds === undefined) throw missing("duration", "wait", { duration: 2 });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    context.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
  return success(`Waited ${seconds} s on tab ${target.tabId}.`, {
    tabId: target.tabId,
    waited: seconds,
  });
}

/**
 * While a JavaScript dialog is open, `key` Return/Escape and `type` (for a prompt) answer it,
 * as a user's keyboard would.
 */
async function answerByKeyboard(
  args: Args,
  workspace: Workspace,
  target: TabTarget,
  dialog: OpenDialog,
) {
  const text = String(args.text ?? "").trim();
  if (args.action === "type") {
    if (dialog.type !== "prompt") {
      throw new ToolError(
        "tool_failure",
        `A JavaScript ${dialog.type} dialog is open; it takes no text.`,
        howToAnswer(dialog.type, target.tabId),
      );
    }
    return await answerDialog(workspace, target, dialog, {
      accept: true,
      promptText: String(args.text ?? ""),
    });
  }
  if (/^(return|enter|kp_enter)$/i.test(text)) {
    return await answerDialog(workspace, target, dialog, { accept: true });
  }
  if (/^(escape|esc)$/i.test(text)) {
    return await answerDialog(workspace, target, dialog, { accept: false });
  }
  throw new ToolError(
    "tool_failure",
    `A JavaScript ${dialog.type} dialog is open; only Return (accept) or Escape (dismiss) ` +
      `reach it, not "${text}".`,
    howToAnswer(dialog.type, target.tabId),
  );
}

/** One computer action: what it does with the call's arguments on an owned tab. */
type Action = (args: Args, context: ToolContext, target: TabTarget) => Promise<Outcome>;

async function screenshotAction(_args: Args, context: ToolContext, target: TabTarget) {
  const { image, block, note, withheld } = await shotContent(context, target);
  // When the viewport was larger than the image, say by how much: find and read_page give
  // boxes in page (CSS) pixels.
  const scaled = Math.abs(image.scale - 1) > 0.001
    ? ` (the page's viewport is ${Math.round(image.width * image.scale)}×${
      Math.round(image.height * image.scale)
    } CSS px: divide page coordinates by ${image.scale.toFixed(3)})`
    : "";
  return success(
    `Screenshot ${image.id} of tab ${target.tabId}: ${image.width}×${image.height} px${scaled}. ` +
      `Coordinates you pass to computer refer to this image's pixels.${note}`,
    {
      tabId: target.tabId,
      imageId: image.id,
      width: image.width,
      height: image.height,
      cssPerPixel: image.scale,
      ...withheld,
    },
    [block],
  );
}

/** Where a pointer action lands, from the call's ref or coordinate. */
function atOf(args: Args, action: string): At {
  if (typeof args.ref === "string") return { ref: args.ref };
  const coordinate = args.coordinate as number[] | undefined;
  if (!coordinate) throw missing("coordinate (or ref)", action, { coordinate: [400, 300] });
  return { coordinate };
}

/** An action through the input layer: the intent from the call, the receipt rendered. */
async function acting(context: ToolContext, target: TabTarget, intent: Intent) {
  return actedOutcome(context, await perform(context, target, intent));
}

/** A click action: left, right, double or triple, with optional modifiers. */
function clickAction(action: string, button: "left" | "right", clicks: number): Action {
  return (args, context, target) =>
    acting(context, target, {
      kind: "click",
      action,
      at: atOf(args, action),
      button,
      clicks,
      modifiers: args.modifiers as string | undefined,
    });
}

function hover(args: Args, context: ToolContext, target: TabTarget) {
  return acting(context, target, { kind: "hover", at: atOf(args, "hover") });
}

function drag(args: Args, context: ToolContext, target: TabTarget) {
  const from = args.start_coordinate as number[] | undefined;
  const to = args.coordinate as number[] | undefined;
  const shape = { start_coordinate: [100, 200], coordinate: [300, 200] };
  if (!from) throw missing("start_coordinate", "left_click_drag", shape);
  if (!to) throw missing("coordinate", "left_click_drag", shape);
  return acting(context, target, { kind: "drag", from, to });
}

async function typeText(args: Args, context: ToolContext, target: TabTarget) {
  const text = args.text as string | undefined;
  if (text === undefined) throw missing("text", "type", { text: "hello" });
  if (text.length > MAX_TYPE_CHARS) {
    throw new ToolError(
      "tool_failure",
      `text is ${text.length} characters; type sends at most ${MAX_TYPE_CHARS} per call.`,
      "Split it over several type calls, or set the field at once with form_input.",
    );
  }
  if (text === "") {
    return success("Nothing to type: text is empty.", { tabId: target.tabId });
  }
  return await acting(context, target, { kind: "type", text });
}

function pressKey(args: Args, context: ToolContext, target: TabTarget) {
  const keys = args.text as string | undefined;
  if (keys === undefined) throw missing("text", "key", { text: "Return" });
  const repeat = Math.floor((args.repeat as number | undefined) ?? 1);
  return acting(context, target, { kind: "key", keys, repeat });
}

function scrollTo(args: Args, context: ToolContext, target: TabTarget) {
  if (typeof args.ref !== "string") throw missing("ref", "scroll_to", { ref: "ref_12" });
  return scrollToRef(context, target, args.ref);
}

/** Every computer action, by its name in the contract. */
const ACTIONS: Readonly<Record<string, Action>> = {
  left_click: clickAction("left_click", "left", 1),
  right_click: clickAction("right_click", "right", 1),
  double_click: clickAction("double_click", "left", 2),
  triple_click: clickAction("triple_click", "left", 3),
  hover,
  left_click_drag: drag,
  type: typeText,
  key: pressKey,
  scroll,
  scroll_to: scrollTo,
  wait,
  screenshot: screenshotAction,
  zoom,
};

/** `computer`. */
export const computer: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const action = args.action as string;
  const dialog = target.link.tab(target.native).dialog;
  if (dialog && (action === "key" || action === "type")) {
    return await answerByKeyboard(args, context.workspace, target, dialog);
  }
  const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (!run) {
    throw new ToolError(
      "tool_failure",
      `action "${action}" is not a computer action.`,
      `Use one of ${Object.keys(ACTIONS).join(", ")}; e.g. {"action": "screenshot", ` +
        '"tabId": 123}.',
    );
  }
  return await run(args, context, target);
};
