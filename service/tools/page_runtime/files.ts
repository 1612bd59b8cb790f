/**
 * Putting files into the page as a user's file picker or drag and drop would: into a file input
 * (its `files` replaced through a DataTransfer, then `input` and `change`), or dropped onto an
 * element (`dragenter`, `dragover`, then `drop` only if the page accepted the drag, as a browser
 * does). The bytes arrive as base64 already verified by the extension.
 *
 * @module
 */

import type { FilePayload, HeldFile, PutResult } from "./contract.ts";
import { isDisabled, receiptElement } from "./describe.ts";
import { viewOf } from "./dom.ts";
import { byId } from "./registry.ts";

type Win = typeof globalThis;

function bytesOf(data: string): Uint8Array<ArrayBuffer> {
  const fromBase64 = (Uint8Array as unknown as {
    fromBase64?: (text: string) => Uint8Array<ArrayBuffer>;
  }).fromBase64;
  if (fromBase64) return fromBase64(data);
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A DataTransfer of the element's own window holding the files. */
function transferOf(el: Element, files: FilePayload[]): DataTransfer {
  const view = viewOf(el) as unknown as Win;
  const transfer = new view.DataTransfer();
  for (const file of files) {
    transfer.items.add(new view.File([bytesOf(file.data)], file.name, { type: file.type }));
  }
  return transfer;
}

function held(list: FileList | null): HeldFile[] {
  return Array.from(list ?? [], (file) => ({ name: file.name, size: file.size, type: file.type }));
}

/** The file input an element stands for: itself, the one its label controls, or its only one. */
function fileInputOf(el: Element): HTMLInputElement | null {
  const isFile = (node: Element | null | undefined): node is HTMLInputElement =>
    !!node && node.tagName === "INPUT" && (node as HTMLInputElement).type === "file";
  if (isFile(el)) return el;
  if (el.tagName === "LABEL" && isFile((el as HTMLLabelElement).control)) {
    return (el as HTMLLabelElement).control as HTMLInputElement;
  }
  const inside = el.querySelectorAll("input[type=file]");
  return inside.length === 1 ? inside[0] as HTMLInputElement : null;
}

function setInputFiles(input: HTMLInputElement, files: FilePayload[]): PutResult {
  if (isDisabled(input)) return { error: "disabled" };
  if (files.length > 1 && !input.multiple) {
    return { error: "not_multiple", target: receiptElement(input) };
  }
  input.files = transferOf(input, files).files;
  const view = viewOf(input) as unknown as Win;
  input.dispatchEvent(new view.Event("input", { bubbles: true, composed: true }));
  input.dispatchEvent(new view.Event("change", { bubbles: true }));
  return {
    kind: "input",
    target: receiptElement(input),
    files: held(input.files),
    accept: input.accept,
  };
}

function dropOnto(el: Element, files: FilePayload[], point: { x: number; y: number }): PutResult {
  const view = viewOf(el) as unknown as Win;
  const dataTransfer = transferOf(el, files);
  const drag = (type: string) =>
    el.dispatchEvent(
      new view.DragEvent(type, {
        bubbles: true,
        cancelable: true,
        composed: true,
        clientX: point.x,
        clientY: point.y,
        dataTransfer,
      }),
    );
  drag("dragenter");
  // A page takes a drop by cancelling dragover; otherwise a browser never fires drop.
  const accepted = !drag("dragover");
  if (accepted) drag("drop");
  else drag("dragleave");
  return { kind: "drop", target: receiptElement(el), accepted, files: held(dataTransfer.files) };
}

/** The innermost element at a viewport point, looking into open shadow roots. */
function elementAt(x: number, y: number): Element | null {
  let el = document.elementFromPoint(x, y);
  while (el?.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/**
 * Puts `files` into the element with registry number `id`, or into the element at `point` (the
 * frame's viewport CSS pixels). `mode` "auto" sets a file input when the element is one (or is
 * its label, or holds exactly one) and drops onto it otherwise; "drop" always drops.
 */
export function putFiles(
  id: number | null,
  point: { x: number; y: number } | null,
  files: FilePayload[],
  mode: "auto" | "drop",
): PutResult {
  // A null call argument arrives as undefined.
  const byRef = typeof id === "number";
  const el = byRef ? byId(id) : point ? elementAt(point.x, point.y) : null;
  if (!el) return { error: byRef ? "gone" : "nothing_there" };
  const input = mode === "auto" ? fileInputOf(el) : null;
  if (input) return setInputFiles(input, files);
  const rect = el.getBoundingClientRect();
  const at = point ?? { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
  return dropOnto(el, files, at);
}
