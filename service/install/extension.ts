/**
 * The built extension: the files that make it up, where a running Ghostlight finds them (the
 * source tree, or the files compiled into the binary), and the id Chrome gives it.
 *
 * @module
 */

import { decodeBase64 } from "../../shared/base64.ts";
import { runningFromSource, SOURCE_ROOT } from "../../shared/executables.ts";
import { pathOfFileUrl } from "../../shared/file_url.ts";
import { FileRefused, readRegularText } from "../../shared/files.ts";

/** The files of the built extension, relative to its folder. */
export const EXTENSION_FILES: readonly string[] = [
  "manifest.json",
  "popup.html",
  "panel.html",
  "theme.css",
  "dist/background.js",
  "dist/popup.js",
  "dist/panel.js",
];

/** Where the built extension lives: the source tree, or the files compiled into the binary. */
export function extensionSourceDir(): string {
  return runningFromSource()
    ? `${SOURCE_ROOT}/extension`
    : pathOfFileUrl(new URL("../../extension", import.meta.url));
}

/** The extension id Chrome derives from the manifest's public key. */
export async function extensionIdFromKey(keyBase64: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", decodeBase64(keyBase64) as Uint8Array<ArrayBuffer>),
  );
  return [...digest.slice(0, 16)]
    .map((byte) => String.fromCharCode(97 + (byte >> 4)) + String.fromCharCode(97 + (byte & 15)))
    .join("");
}

/** The most bytes an extension's manifest may be. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

/**
 * The text of the extension manifest in `dir`: a regular file of at most
 * {@linkcode MAX_MANIFEST_BYTES}, never read through a link (decision 0339); NotFound when absent.
 */
export async function readManifest(dir: string): Promise<string> {
  const path = `${dir}/manifest.json`;
  const text = await readRegularText(path, { maxBytes: MAX_MANIFEST_BYTES });
  if (text === null) throw new Deno.errors.NotFound(`${path} is missing`);
  return text;
}

/** The id and version of the built extension in `dir`; says how to build it when it is missing. */
export async function readExtension(dir: string): Promise<{ id: string; version: string }> {
  let manifest: { key?: unknown; version?: unknown };
  try {
    for (const file of EXTENSION_FILES) await Deno.stat(`${dir}/${file}`);
    manifest = JSON.parse(await readManifest(dir));
  } catch (error) {
    if (error instanceof FileRefused) throw error;
    throw new Error(
      `the extension is not built (${dir} lacks ${EXTENSION_FILES.join(" or ")}); ` +
        "run 'deno task build:extension'",
    );
  }
  if (typeof manifest.key !== "string" || typeof manifest.version !== "string") {
    throw new Error(`${dir}/manifest.json has no key or version`);
  }
  return { id: await extensionIdFromKey(manifest.key), version: manifest.version };
}
