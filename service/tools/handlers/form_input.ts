/**
 * `form_input`: sets one field found by ref (text, textarea, select, checkbox, radio,
 * contenteditable) the way a user's input would reach the page: the native value setter, then
 * the input and change events frameworks listen to. Returns a receipt with the value after.
 *
 * @module
 */

import { BrowserError } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { dialogAfterEffect, openDialog, pageAfterEffect } from "../page/after_dialog.ts";
import { type Handler, success } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { howToAnswer } from "../core/dialog_help.ts";
import { fence, originOf } from "../core/fence.ts";
import { runtimeCall } from "../page/in_page.ts";
import { provenance } from "../page/provenance.ts";
import { redactSecrets } from "../page/redact.ts";
import {
  FrameGone,
  frameOrigin,
  inFrame,
  lookupRef,
  refFor,
  refGone,
  tabPages,
} from "../page/refs.ts";
import { displayUrl } from "../core/redact_url.ts";
import { pageInfo } from "../page/main_frame_read.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";

interface Described {
  role: string;
  name: string;
  value?: string;
  states?: string[];
  enabled: boolean;
  box: { x: number; y: number; width: number; height: number; visible: boolean } | null;
}

type SetResult =
  | { kind: string; after: Described; actual?: boolean; chose?: number }
  | { error: "gone" | "disabled" | "readonly" | "radio_off" }
  | { error: "no_option"; options: { value: string; label: string }[] }
  | { error: "not_settable"; type: string }
  | { error: "not_a_field"; role: string }
  | { error: "not_boolean"; role: string };

function refusal(
  ref: string,
  tabId: number,
  result: Exclude<SetResult, { kind: string }>,
  fenceOptions: (text: string) => string,
) {
  switch (result.error) {
    case "gone":
      return refGone(ref);
    case "disabled":
      return new ToolError(
        "tool_failure",
        `${ref} is disabled, so it cannot take a value now.`,
        "Fill the fields it depends on first, then read_page again to see whether it is enabled.",
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
          `"tabId": ${tabId}}.`,
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
        `${ref} is a ${result.role}: "value" must be true or false.`,
        `A correct call looks like: {"ref": "${ref}", "value": true, "tabId": ${tabId}}`,
      );
    case "not_a_field":
      return new ToolError(
        "tool_failure",
        `${ref} is not a form field (it is a ${result.role}).`,
        'Click it with computer (action "left_click", ref), or find the field itself ' +
          '(e.g. find "email field").',
      );
  }
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

/** `form_input`. */
export const formInput: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const pages = tabPages(context.workspace, target.tabId);
  const ref = args.ref as string;
  const value = args.value as string | boolean | number;
  const { frame, localId } = lookupRef(pages, ref, { tabId: target.tabId });
  let result: SetResult;
  try {
    result = await inFrame<SetResult>(
      target,
      pages,
      frame,
      runtimeCall("setValue", localId, value),
    );
  } catch (error) {
    if (error instanceof FrameGone) throw refGone(ref);
    if (error instanceof BrowserError && error.kind === "dialog_open") {
      throw setMayHaveHappened(context.workspace, target);
    }
    throw error;
  }
  if ("error" in result) {
    const { url } = await pageInfo(context.workspace, target);
    throw refusal(
      ref,
      target.tabId,
      result,
      (text) => fence(context.workspace, originOf(url), text),
    );
  }
  const after = result.after;
  // A group given a radio's label answers with the radio it chose.
  const targetRef = result.chose === undefined ? ref : refFor(pages, frame, result.chose);
  if (after.box) {
    // The field is set; a dialog its events opened since leaves the box in frame coordinates.
    const origin = await frameOrigin(target, pages, frame).catch((error) => {
      if (!target.link.tab(target.native).dialog) throw error;
      return null;
    });
    after.box = origin
      ? { ...after.box, x: after.box.x + origin.x, y: after.box.y + origin.y }
      : null;
  }
  const page = await pageAfterEffect(context.workspace, target);
  const shownValue = after.value === undefined ? undefined : redactSecrets(after.value);
  const states = after.states?.length ? ` (${after.states.join(", ")})` : "";
  const summary = shownValue !== undefined
    ? `${after.role} ${JSON.stringify(after.name)} [${targetRef}] now holds ${
      JSON.stringify(shownValue)
    }${states}.`
    : `${after.role} ${JSON.stringify(after.name)} [${targetRef}] is now${states || " set"}.`;
  const mismatch = result.actual === false
    ? "\nThe page changed the value after it was set (it may format or reject input)."
    : "";
  const dialog = openDialog(target);
  return success(
    `Set ${result.kind} field; fired input and change events.\n` +
      fence(context.workspace, originOf(page.url), summary) + mismatch +
      dialogAfterEffect(context.workspace, target, "the field was set"),
    {
      tabId: target.tabId,
      url: displayUrl(page.url),
      action: "form_input",
      targetAssurance: "ref",
      target: {
        ref: targetRef,
        role: after.role,
        name: after.name,
        enabled: after.enabled,
        visible: after.box?.visible ?? false,
        ...(shownValue !== undefined ? { value: shownValue } : {}),
        ...(after.states?.length ? { states: after.states } : {}),
        ...(after.box
          ? {
            box: {
              x: after.box.x,
              y: after.box.y,
              width: after.box.width,
              height: after.box.height,
            },
          }
          : {}),
      },
      mechanicalActions: ["focus", "native value setter", "input event", "change event"],
      valueKept: result.actual !== false,
      provenance: provenance(context.workspace, page.url),
      ...(dialog ? { dialog } : {}),
    },
  );
};
