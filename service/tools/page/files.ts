/**
 * Putting files into a page: the bytes go to the browser as verified transfers, then one call in
 * the element's frame (page runtime `putFiles`) sets a file input or drops them onto an element,
 * with all the files or none.
 *
 * @module
 */

import { BrowserError, withTransfers } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { ToolError } from "../core/errors.ts";
import type { TabTarget } from "../core/target.ts";
import type { PutResult } from "../page_runtime/contract.ts";
import {
  type Frame,
  isLostContext,
  lookupRef,
  mainFrame,
  refGone,
  resolveRef,
  runtimeArguments,
  runtimeFunction,
  tabPages,
  valueOf,
} from "./frames.ts";

export type { HeldFile, PutResult } from "../page_runtime/contract.ts";

/** A file to put into the page. */
export interface PageFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** Where the files go: an element by ref, or the element at a point of the main frame. */
export type FileTarget = { ref: string } | { point: { x: number; y: number } };

/** How long the page may take to decode and take the files. */
const PUT_TIMEOUT_MS = 60_000;

/**
 * Puts `files` into the page at `where`. `mode` "auto" sets a file input (the element, its
 * label's, or the only one inside it) and drops onto anything else; "drop" always drops.
 */
export async function putFilesInPage(
  workspace: Workspace,
  target: TabTarget,
  where: FileTarget,
  files: PageFile[],
  options: { mode: "auto" | "drop"; signal?: AbortSignal },
): Promise<PutResult> {
  const pages = tabPages(workspace, target.tabId);
  let frame: Frame;
  let localId: number | null = null;
  if ("ref" in where) {
    // Resolving first proves the element still lives in the document its ref came from.
    await resolveRef(workspace, target, where.ref);
    ({ frame, localId } = lookupRef(pages, where.ref, { tabId: target.tabId }));
  } else {
    frame = await mainFrame(target, pages);
  }
  const point = "point" in where ? where.point : null;
  let reply: Record<string, unknown>;
  try {
    reply = await withTransfers(target.link, files.map((file) => file.bytes), (placeholders) => ({
      tab_id: target.native,
      method: "Runtime.callFunctionOn",
      ...(frame.sessionId ? { session_id: frame.sessionId } : {}),
      params: {
        functionDeclaration: runtimeFunction("putFiles"),
        executionContextId: frame.contextId,
        arguments: runtimeArguments(
          "putFiles",
          localId,
          point,
          files.map((file, i) => ({ name: file.name, type: file.type, data: placeholders[i] })),
          options.mode,
        ),
        returnByValue: true,
        awaitPromise: true,
      },
    }), { signal: options.signal, timeoutMs: PUT_TIMEOUT_MS });
  } catch (error) {
    throw putFailure(error, where);
  }
  if (reply.exceptionDetails) {
    throw new ToolError(
      "tool_failure",
      "The page refused the files (it threw while they were being set).",
      "Read the page (read_page) to see its state, then try again.",
    );
  }
  return valueOf(runtimeFunction("putFiles"), reply);
}

/**
 * A failure of the call that puts the files, in the model's words. A refused transfer is known by
 * its kind, never by its message's words (issue 27).
 */
export function putFailure(error: unknown, where: FileTarget): unknown {
  if (!(error instanceof BrowserError)) return error;
  if (error.kind === "transfer_refused") {
    return new ToolError(
      "not_dispatched",
      `The browser refused the upload, so nothing was put into the page: ${error.message}.`,
      "Try again; if it repeats, upload fewer or smaller files.",
    );
  }
  // The browser's own words for a world that went with its document, read in one place.
  if (isLostContext(error)) {
    return "ref" in where ? refGone(where.ref) : new ToolError(
      "tool_failure",
      "The page navigated while the files were on their way; nothing was put into it.",
      "Take a new screenshot and try again.",
    );
  }
  return error;
}
