/**
 * `file_upload`: files the client sends (base64) into a file input by ref, as if picked in the
 * file chooser; an element that is no file input (a drop zone) gets them dropped onto it. Paths
 * on disk are refused: the service does not read the user's files for a page (decision 0130).
 *
 * @module
 */

import { MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from "../../../shared/transfer.ts";
import { decodeBase64 } from "../../../shared/base64.ts";
import { ownEntry } from "../../../shared/own.ts";
import { type Handler } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { ownedTab } from "../core/target.ts";
import { deliverFiles } from "../input/deliver_files.ts";
import type { PageFile } from "../page/files.ts";

const MIB = 1024 * 1024;
/** Longest file name passed to the page. */
const MAX_NAME_CHARS = 255;

/** Types guessed from a file name's extension when the caller gives none. */
const TYPES: Record<string, string> = {
  txt: "text/plain",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
};

function example(tabId: number): string {
  return JSON.stringify({
    tabId,
    ref: "ref_3",
    files: [{ name: "notes.txt", data: "aGVsbG8=", mimeType: "text/plain" }],
  });
}

function bad(message: string, tabId: number): ToolError {
  return new ToolError("tool_failure", message, `A correct call looks like: ${example(tabId)}`);
}

/** The bytes of one file's `data`: base64, optionally as a `data:` URL; whitespace ignored. */
function decodeData(
  raw: string,
  field: string,
  tabId: number,
): { bytes: Uint8Array; type?: string } {
  const url = /^data:([^;,]*)(?:;[^,]*)?;base64,/i.exec(raw);
  const text = (url ? raw.slice(url[0].length) : raw).replace(/\s+/g, "")
    .replaceAll("-", "+").replaceAll("_", "/");
  const padded = text + "=".repeat((4 - text.length % 4) % 4);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(padded) || text.length % 4 === 1) {
    throw bad(`${field} is not base64.`, tabId);
  }
  return { bytes: decodeBase64(padded), type: url?.[1] || undefined };
}

/** The decoded size of base64 text, known before decoding it. */
function decodedSize(raw: string): number {
  return Math.floor(raw.replace(/\s+|=+$|^data:[^,]*,/g, "").length * 3 / 4);
}

/** The files of the call, checked against the bounds and decoded. */
export function uploadFiles(args: Record<string, unknown>, tabId: number): PageFile[] {
  if (Array.isArray(args.paths) && args.paths.length > 0) {
    throw new ToolError(
      "tool_failure",
      "paths is not supported: Ghostlight does not read files from the disk into a page.",
      `Send the file's bytes as base64 in files instead: ${example(tabId)}`,
    );
  }
  const files = (args.files ?? []) as { data: string; name: string; mimeType?: string }[];
  if (files.length === 0) throw bad("files is required: at least one file.", tabId);
  if (files.length > MAX_UPLOAD_FILES) {
    throw bad(`At most ${MAX_UPLOAD_FILES} files go in one call, not ${files.length}.`, tabId);
  }
  const total = files.reduce((sum, file) => sum + decodedSize(file.data), 0);
  if (total > MAX_UPLOAD_BYTES) {
    throw new ToolError(
      "tool_failure",
      `The files come to ${total} bytes; one upload carries at most ${MAX_UPLOAD_BYTES} bytes ` +
        `(${MAX_UPLOAD_BYTES / MIB} MiB).`,
      "Upload fewer or smaller files per call.",
    );
  }
  return files.map((file, i) => {
    const name = file.name.split(/[\\/]/).pop()!.trim();
    if (!name || name.length > MAX_NAME_CHARS) {
      throw bad(
        `files[${i}].name must be a file name of 1 to ${MAX_NAME_CHARS} characters.`,
        tabId,
      );
    }
    const { bytes, type } = decodeData(file.data, `files[${i}].data`, tabId);
    const extension = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
    const guessed = ownEntry(TYPES, extension);
    return {
      name,
      type: file.mimeType?.trim() || type || guessed || "application/octet-stream",
      bytes,
    };
  });
}

/** `file_upload`. */
export const fileUpload: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const files = uploadFiles(args, target.tabId);
  return await deliverFiles(context, target, { ref: args.ref as string }, files, {
    tool: "file_upload",
    mode: "auto",
  });
};
