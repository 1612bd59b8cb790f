/**
 * Delivering files into a page for `file_upload` and `upload_image`: put them in (see
 * `page/files.ts`), then answer what the page holds now, in the page's words fenced, with the
 * dialog a change handler opened if any.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { BrowserError } from "../../browser/mod.ts";
import { success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { displayUrl, fence, originOf, redactSecrets } from "../core/safe_text.ts";
import type { TabTarget } from "../core/target.ts";
import { dialogAfterEffect, openDialog, pageAfterEffect } from "../page/after_dialog.ts";
import {
  type FileTarget,
  type HeldFile,
  type PageFile,
  putFilesInPage,
  type PutResult,
} from "../page/files.ts";
import { provenance } from "../page/provenance.ts";
import { lookupRef, refGone, tabPages } from "../page/frames.ts";
import { checkRefFrame, frameGuard } from "../page/collect.ts";
import { capabilitiesFor } from "../../catalog/mod.ts";

/** What the caller names the target by, for messages. */
function targetWords(where: FileTarget): string {
  return "ref" in where ? where.ref : `the element at the point`;
}

function refusal(where: FileTarget, result: Extract<PutResult, { error: string }>): ToolError {
  switch (result.error) {
    case "gone":
      return refGone("ref" in where ? where.ref : "");
    case "nothing_there":
      return new ToolError(
        "tool_failure",
        "There is no element at that point of the page.",
        "Take a screenshot and pick a point on the drop area, or pass its ref.",
      );
    case "disabled":
      return new ToolError(
        "tool_failure",
        `The file input at ${targetWords(where)} is disabled; nothing was put into it.`,
        "Do what enables it first (often another field or a checkbox), then try again.",
      );
    case "not_multiple":
      return new ToolError(
        "tool_failure",
        `The file input at ${targetWords(where)} takes one file; nothing was put into it.`,
        "Send one file per call.",
      );
  }
}

/** Whether a file matches an input's `accept` list (empty accepts anything). */
export function accepts(accept: string, file: HeldFile): boolean {
  const tokens = accept.split(",").map((token) => token.trim().toLowerCase()).filter(Boolean);
  if (tokens.length === 0) return true;
  const name = file.name.toLowerCase();
  const type = file.type.toLowerCase();
  return tokens.some((token) =>
    token.startsWith(".")
      ? name.endsWith(token)
      : token.endsWith("/*")
      ? type.startsWith(token.slice(0, -1))
      : type === token
  );
}

function fileList(files: HeldFile[]): string {
  return files.map((file) => `${file.name} (${file.size} bytes, ${file.type || "no type"})`)
    .join(", ");
}

/** The sentence saying what the page did with the files. */
function summary(result: Exclude<PutResult, { error: string }>): string {
  const target = result.target
    ? `${result.target.role} ${JSON.stringify(result.target.name)}`
    : "the element";
  if (result.kind === "input") {
    const refused = result.files.filter((file) => !accepts(result.accept, file));
    const warning = refused.length
      ? ` It accepts ${JSON.stringify(result.accept)}, which ${
        refused.map((file) => file.name).join(", ")
      } does not match: the page may reject it.`
      : "";
    return `The file input ${target} now holds ${fileList(result.files)}.${warning}`;
  }
  return result.accepted
    ? `Dropped ${fileList(result.files)} onto ${target}; the page accepted the drop.`
    : `${target} did not accept a drop (its dragover was not cancelled), so no drop fired.`;
}

/** A dialog a change or drop handler opened: the files are likely in, the handler waits. */
function heldByDialog(context: ToolContext, target: TabTarget): ToolError {
  const dialog = target.link.tab(target.native).dialog;
  const says = dialog
    ? " It says:\n" + fence(context.workspace, originOf(dialog.url), redactSecrets(dialog.message))
    : "";
  return new ToolError(
    "outcome_unknown",
    `The page opened a JavaScript${dialog ? ` ${dialog.type}` : ""} dialog while the files ` +
      `were being put in; they are probably in and its handler waits on the dialog.${says}`,
    `Answer it with computer {"action": "key", "text": "Return", "tabId": ${target.tabId}}, ` +
      "then check the page before uploading again.",
  );
}

/** Puts the files into the page and answers what it holds now. */
export async function deliverFiles(
  context: ToolContext,
  target: TabTarget,
  where: FileTarget,
  files: PageFile[],
  options: { tool: string; mode: "auto" | "drop"; extra?: Record<string, unknown> },
): Promise<Outcome> {
  if ("ref" in where) {
    // Files are data put into the page: a ref's frame must allow the tool's own capabilities.
    const pages = tabPages(context.workspace, target.tabId);
    const { frame } = lookupRef(pages, where.ref, { tabId: target.tabId });
    checkRefFrame(pages, frame, where.ref, frameGuard(context, capabilitiesFor(options.tool, {})));
  }
  let result: PutResult;
  try {
    result = await putFilesInPage(context.workspace, target, where, files, {
      mode: options.mode,
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "dialog_open") {
      throw heldByDialog(context, target);
    }
    throw error;
  }
  if ("error" in result) throw refusal(where, result);
  const page = await pageAfterEffect(context.workspace, target);
  const dialog = openDialog(target);
  const how = result.kind === "input" ? "set the input's files, fired input and change" : (
    result.accepted ? "fired dragenter, dragover and drop" : "fired dragenter and dragover"
  );
  return success(
    `${how[0].toUpperCase()}${how.slice(1)}.\n` +
      fence(context.workspace, originOf(page.url), summary(result)) +
      dialogAfterEffect(context.workspace, target, "the files arrived"),
    {
      tabId: target.tabId,
      url: displayUrl(page.url),
      action: options.tool,
      targetAssurance: "ref" in where ? "ref" : "coordinate",
      ...("ref" in where ? { ref: where.ref } : {}),
      ...(result.target ? { target: result.target } : {}),
      delivery: result.kind,
      ...(result.kind === "drop" ? { dropAccepted: result.accepted } : {}),
      files: result.files,
      ...options.extra,
      provenance: provenance(context.workspace, page.url),
      ...(dialog ? { dialog } : {}),
    },
  );
}
