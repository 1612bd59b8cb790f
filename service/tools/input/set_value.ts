/**
 * Setting a field's value (form_input, act_on's set_value): one field found by ref (text, textarea, select, checkbox, radio,
 * contenteditable) the way a user's input would reach the page: the native value setter, then
 * the input and change events frameworks listen to. Returns a receipt with the value after.
 *
 * @module
 */

import { capabilitiesFor } from "../../catalog/mod.ts";
import { checkRefFrame, frameGuard } from "../page/collect.ts";
import { BrowserError } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { dialogAfterEffect, openDialog, pageAfterEffect } from "../page/after_dialog.ts";
import type { Outcome } from "../../../shared/bridge.ts";
import { success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { displayUrl, fence, fencedUrl, originOf, redactSecrets } from "../core/safe_text.ts";
import { NAMEABLE_ROLES } from "../page_runtime/contract.ts";
import {
  type Frame,
  FrameGone,
  FrameHeld,
  frameOrigin,
  inFrame,
  knownMain,
  lookupRef,
  pageInfo,
  refFor,
  refGone,
  refHeldForAction,
  runtimeCall,
  type TabPages,
  tabPages,
} from "../page/frames.ts";
import { provenance } from "../page/provenance.ts";
import {
  type FieldAfter,
  type FillRefusal,
  type FillResult,
  fillWords,
  roleWord,
} from "./fill_receipt.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { NAVIGATION_WAIT_MS, NavigationWatch } from "./send.ts";

/** The error for a field that could not take its value. */
function refusal(
  ref: string,
  tabId: number,
  result: FillRefusal,
  fenceOptions: (text: string) => string,
): ToolError {
  switch (result.error) {
    case "gone":
      return refGone(ref);
    case "held":
      return stillBusy("setting the field");
    case "disabled":
      return new ToolError(
        "tool_failure",
        `${ref} is disabled, so it cannot take a value now.`,
        "Fill the fields it depends on first, then read_page again to see whether it is enabled.",
      );
    case "fieldset_disabled":
      return new ToolError(
        "tool_failure",
        `${ref} is in a disabled group (a fieldset), so it cannot take a value now; the field ` +
          "itself is not disabled.",
        "The page enables the whole group when it is ready for it (often after a choice or a " +
          "step outside the group); read_page to see what the page asks for first.",
      );
    case "hidden":
      return new ToolError(
        "tool_failure",
        `${ref} is not visible on the page now, so it was not set: a person could not fill it, ` +
          "and pages hide fields to catch automated fills (honeypots).",
        "Take a screenshot or read_page again to find the visible field meant; if it is shown " +
          "only after another step, do that step first.",
      );
    case "readonly":
      return new ToolError(
        "tool_failure",
        `${ref} is read-only.`,
        "Look for another control that sets it (a picker or a button); find can help.",
      );
    case "radio_off":
      return new ToolError(
        "tool_failure",
        `A radio button cannot be turned off directly (${ref}).`,
        "Set the radio button you want in the same group to true instead.",
      );
    case "no_option": {
      const options = result.options.map((o) =>
        o.label === o.value ? JSON.stringify(o.label) : `${JSON.stringify(o.label)} (${o.value})`
      ).join(", ");
      return new ToolError(
        "tool_failure",
        `${ref} has no option with that value or label. Its options:\n${fenceOptions(options)}`,
        `Pass one of the labels above as value, e.g. {"ref": "${ref}", "value": "<label>", ` +
          `"tabId": ${tabId}}` +
          (result.multiple
            ? `; it takes several as a JSON list in the string: {"ref": "${ref}", ` +
              `"value": "[\\"<label>\\", \\"<label>\\"]", "tabId": ${tabId}}.`
            : "."),
      );
    }
    case "not_settable":
      return new ToolError(
        "tool_failure",
        `${ref} is an input of type ${result.type}, which form_input cannot set.`,
        result.type === "file"
          ? "Use file_upload for file inputs."
          : 'Click it instead: computer with action "left_click" and this ref.',
      );
    case "not_boolean":
      return new ToolError(
        "tool_failure",
        `${ref} is a ${knownRole(result.role)}: "value" must be true or false.`,
        `A correct call looks like: {"ref": "${ref}", "value": true, "tabId": ${tabId}}`,
      );
    case "not_a_field":
      return new ToolError(
        "tool_failure",
        `${ref} is not a form field (it is a ${knownRole(result.role)}).`,
        'Click it with computer (action "left_click", ref), or find the field itself ' +
          '(e.g. find "email field").',
      );
  }
}

function knownRole(role: string): string {
  return NAMEABLE_ROLES.has(role) ? role : "page element";
}

/**
 * A dialog opened while the value was being set: the page's input or change handler opened it
 * and now waits on it, so the value may be set and the handler half run.
 */
function setMayHaveHappened(workspace: Workspace, target: TabTarget): ToolError {
  const dialog = target.link.tab(target.native).dialog;
  const says = dialog
    ? " It says:\n" + fence(workspace, originOf(dialog.url), redactSecrets(dialog.message))
    : "";
  return new ToolError(
    "outcome_unknown",
    `The page opened a JavaScript${dialog ? ` ${dialog.type}` : ""} dialog while the field ` +
      "was being set; the value may be set and the page's handler is " +
      `waiting on the dialog.${says}`,
    `${howToAnswer(dialog?.type ?? "alert", target.tabId)} Then read the field before ` +
      "setting it again.",
  );
}

/** The longest a fill may keep the page busy before the answer says so (decision 0175). */
export const FILL_BOUND_MS = 5_000;

/**
 * The page ran the fill's events for longer than the bound: say so, and that it may be set. The
 * tab takes no other call until the page's handlers return (the command's outcome is unknown).
 */
function stillBusy(what: string): ToolError {
  return new ToolError(
    "outcome_unknown",
    `The page was still busy ${FILL_BOUND_MS / 1000} s into ${what} (its own handlers had ` +
      "not returned); the value may be set, and the tab takes no other call until they return.",
    "Then take a screenshot or read_page to see what the page holds before setting it again.",
  );
}

/** Runs one fill in the page: one evaluation that checks, sets and reads back. */
async function fillInPage(
  context: ToolContext,
  target: TabTarget,
  ref: string,
  value: string | boolean | number,
): Promise<{ result: FillResult; frame: Frame }> {
  const pages = tabPages(context.workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { tabId: target.tabId });
  checkRefFrame(pages, frame, ref, frameGuard(context, capabilitiesFor("form_input", {})));
  try {
    const result = await inFrame(
      target,
      pages,
      frame,
      runtimeCall("fill", localId, value),
      // In a frame of its own renderer a bounded look goes first: a held one would run the fill
      // once free, long after the call gave up on it (decision 0750).
      { checkedInPage: true, timeoutMs: FILL_BOUND_MS, lookFirst: true },
    );
    return { result, frame };
  } catch (error) {
    if (error instanceof FrameGone) throw refGone(ref);
    if (error instanceof FrameHeld) throw refHeldForAction(ref);
    if (error instanceof BrowserError && error.kind === "dialog_open") {
      throw setMayHaveHappened(context.workspace, target);
    }
    if (error instanceof BrowserError && error.kind === "timeout") {
      throw stillBusy("setting the field");
    }
    throw error;
  }
}

/** The field's box in top-level viewport pixels, or null when it has none or cannot be placed. */
async function topBox(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
  box: FieldAfter["box"],
): Promise<FieldAfter["box"]> {
  if (!box || !frame.parent) return box;
  // The field is set; a dialog its events opened since leaves the box in frame coordinates.
  const origin = await frameOrigin(target, pages, frame).catch((error) => {
    if (!target.link.tab(target.native).dialog) throw error;
    return null;
  });
  return origin ? { ...box, x: box.x + origin.x, y: box.y + origin.y } : null;
}

/** What setting a field asks: the field's ref on an owned tab, and its new value. */
export interface SetValue {
  tabId: number;
  ref: string;
  value: string | boolean | number;
}

/** Sets the field and answers its receipt, rendered (form_input's and act_on's set_value's). */
export async function setFieldValue(intent: SetValue, context: ToolContext): Promise<Outcome> {
  const target = ownedTab(context.workspace, context.browsers, intent.tabId);
  const pages = tabPages(context.workspace, target.tabId);
  const { ref, value } = intent;
  // Watched from before the fill: a handler that sets `location` starts loading another page.
  const main = knownMain(target, pages);
  const watch = main?.loaderId
    ? new NavigationWatch(
      target.link.tab(target.native),
      { frameId: main.frameId, loaderId: main.loaderId },
      NAVIGATION_WAIT_MS,
    )
    : null;
  const { result, frame } = await fillInPage(context, target, ref, value).catch((error) => {
    watch?.stop();
    throw error;
  });
  // Stopped at once unless the fill began to leave the page; then once the new page arrived.
  const left = !("error" in result) && (result.leaving !== undefined || watch?.started === true);
  if (!left) watch?.stop();
  if ("error" in result) {
    const { url } = await pageInfo(context.workspace, target);
    throw refusal(
      ref,
      target.tabId,
      result,
      (text) => fence(context.workspace, originOf(url), text),
    );
  }
  // A group given a radio's label answers with the radio it chose.
  const targetRef = result.chose === undefined ? ref : refFor(pages, frame, result.chose);
  if (left && watch) {
    await watch.arrived();
    watch.stop();
  }
  const url = left || !result.url
    ? (await pageAfterEffect(context.workspace, target)).url
    : result.url;
  const words = fillWords(targetRef, value, result);
  const after = result.after;
  const box = await topBox(target, pages, frame, after?.box ?? null);
  const shownValue = after?.value === undefined ? undefined : redactSecrets(after.value);
  const dialog = openDialog(target);
  return success(
    words.line +
      (words.notes.length
        ? `\n${fence(context.workspace, originOf(url), words.notes.join("\n"))}`
        : "") +
      (left ? ` The page then went to ${fencedUrl(context.workspace, url)}.` : "") +
      dialogAfterEffect(context.workspace, target, "the field was set"),
    {
      tabId: target.tabId,
      url: displayUrl(url),
      ...(left ? { urlChanged: displayUrl(url) } : {}),
      action: "form_input",
      targetAssurance: "ref",
      target: {
        ref: targetRef,
        role: after?.role ?? roleWord(result),
        name: after?.name ?? "",
        enabled: after?.enabled ?? false,
        visible: box?.visible ?? false,
        ...(shownValue !== undefined ? { value: shownValue } : {}),
        ...(after?.states?.length ? { states: after.states } : {}),
        ...(box ? { box: { x: box.x, y: box.y, width: box.width, height: box.height } } : {}),
      },
      valueKept: result.kept,
      ...(result.invalid !== undefined ? { invalid: result.invalid } : {}),
      provenance: provenance(context.workspace, url),
      ...(dialog ? { dialog } : {}),
    },
  );
}
