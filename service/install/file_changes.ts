/**
 * The one place install and uninstall touch the filesystem. Every write compares first, so a
 * second run changes no byte; every change is listed, so `--dry-run` prints the same list
 * without making it.
 *
 * @module
 */

import { readRegularFile, statOrNull } from "../../shared/files.ts";
import { parentOf } from "./host.ts";

/**
 * The largest file install reads to compare or edit (a client's config is a few KiB; payload
 * files are compared whole): a larger one is refused, not read.
 */
export const MAX_COMPARED_BYTES = 512 * 1024 * 1024;

/** One change made (or, in a dry run, that would be made). */
export interface Change {
  action: "create" | "update" | "remove" | "mkdir" | "rmdir" | "link" | "backup" | "registry";
  path: string;
}

/** A file's bytes, or null when there is none; a FIFO, a device or a folder is refused. */
async function readBytes(path: string): Promise<Uint8Array | null> {
  try {
    return await readRegularFile(path, { noFollow: false, maxBytes: MAX_COMPARED_BYTES });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Why a client's config at `path` must not be edited, or null when it may: it must be a regular
 * file (a FIFO would hang the read), and a link is followed only to a file inside `home` (a link
 * out of it would have install edit a file elsewhere on the machine).
 */
export async function notEditable(path: string, home: string): Promise<string | null> {
  const own = await statOrNull(path, false);
  if (own === null) return null;
  if (own.isSymlink) {
    let real: string;
    try {
      real = await Deno.realPath(path);
    } catch (error) {
      return `it is a link that leads nowhere readable (${(error as Error).message})`;
    }
    const root = (await Deno.realPath(home).catch(() => home)).replace(/[\\/]+$/, "");
    const separator = root.includes("\\") ? "\\" : "/";
    if (!real.startsWith(`${root}${separator}`)) {
      return `it is a link to ${real}, outside your home folder`;
    }
  }
  const info = await statOrNull(path, true);
  if (info !== null && !info.isFile) {
    return `it is ${info.isFifo ? "a FIFO (named pipe)" : "not a regular file"}`;
  }
  if (info !== null && info.size > MAX_COMPARED_BYTES) return `it is ${info.size} bytes`;
  return null;
}

async function lstat(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The SHA-256 of `data`, in hex. */
export async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Makes (or, dry, lists) filesystem changes; skips every change that is already so. */
export class FileChanges {
  readonly changes: Change[] = [];
  #dry: boolean;
  #posix = Deno.build.os !== "windows";
  /** The folders a dry run would have made, so each is listed once (they are never made). */
  #madeDry = new Set<string>();

  constructor(options: { dryRun: boolean }) {
    this.#dry = options.dryRun;
  }

  /** Makes `path` and its missing parents; returns the folders it made, outermost first. */
  async ensureDir(path: string, mode = 0o755): Promise<string[]> {
    const missing: string[] = [];
    for (
      let dir = path;
      !this.#madeDry.has(dir) && (await lstat(dir)) === null;
      dir = parentOf(dir)
    ) {
      missing.unshift(dir);
      if (parentOf(dir) === dir) break;
    }
    for (const dir of missing) {
      this.changes.push({ action: "mkdir", path: dir });
      if (this.#dry) this.#madeDry.add(dir);
      else await Deno.mkdir(dir, { mode });
    }
    return missing;
  }

  /**
   * Writes `data` to `path` unless it holds exactly that with that mode; true when written.
   * `whole` writes a temporary file beside it and renames it over `path`, so no process ever
   * runs half of a script; other files are rewritten in place, keeping their links.
   */
  async writeFile(
    path: string,
    data: Uint8Array | string,
    mode: number,
    options: { whole?: boolean } = {},
  ): Promise<boolean> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const current = await readBytes(path);
    const info = current === null ? null : await Deno.stat(path);
    const modeRight = !this.#posix || info === null || (info.mode! & 0o777) === mode;
    if (current !== null && sameBytes(current, bytes) && modeRight) return false;
    this.changes.push({ action: current === null ? "create" : "update", path });
    if (this.#dry) return true;
    const target = options.whole ? `${path}.${crypto.randomUUID().slice(0, 8)}.tmp` : path;
    await Deno.writeFile(target, bytes, { mode });
    if (this.#posix) await Deno.chmod(target, mode);
    if (target !== path) await Deno.rename(target, path);
    return true;
  }

  /**
   * Puts a copy of the file `source` at `path`: a hard link where the filesystem allows (the
   * Deno runtime is large), else a copy. Nothing happens when `path` already has its bytes.
   */
  async linkOrCopy(source: string, path: string, mode: number): Promise<boolean> {
    const [from, to] = await Promise.all([Deno.stat(source), lstat(path)]);
    if (to !== null && to.isFile) {
      const linked = from.dev === to.dev && from.ino !== null && from.ino === to.ino;
      if (linked) return false;
      if (to.size === from.size) {
        const [a, b] = await Promise.all([Deno.readFile(source), Deno.readFile(path)]);
        if (sameBytes(a, b)) return false;
      }
    }
    this.changes.push({ action: to === null ? "create" : "update", path });
    if (this.#dry) return true;
    if (to !== null) await Deno.remove(path);
    try {
      await Deno.link(source, path);
    } catch {
      await Deno.copyFile(source, path);
      if (this.#posix) await Deno.chmod(path, mode);
    }
    return true;
  }

  /** Copies `path` to `backup` (never over an existing file). */
  async backup(path: string, backup: string): Promise<void> {
    this.changes.push({ action: "backup", path: backup });
    if (this.#dry) return;
    await Deno.copyFile(path, backup);
  }

  /** Removes a file or link if present; true when removed. */
  async remove(path: string): Promise<boolean> {
    if ((await lstat(path)) === null) return false;
    this.changes.push({ action: "remove", path });
    if (!this.#dry) await Deno.remove(path);
    return true;
  }

  /** Removes a folder and everything in it if present. */
  async removeTree(path: string): Promise<boolean> {
    if ((await lstat(path)) === null) return false;
    this.changes.push({ action: "remove", path });
    if (!this.#dry) await Deno.remove(path, { recursive: true });
    return true;
  }

  /** Removes a folder if it exists and is empty; true when removed. */
  async removeEmptyDir(path: string): Promise<boolean> {
    const info = await lstat(path);
    if (info === null || !info.isDirectory) return false;
    for await (const _ of Deno.readDir(path)) return false;
    this.changes.push({ action: "rmdir", path });
    if (!this.#dry) await Deno.remove(path);
    return true;
  }

  /** Lists a registry change made by someone else (the Windows executor). */
  registry(description: string): void {
    this.changes.push({ action: "registry", path: description });
  }
}

/** The file's text, or null when it does not exist. */
export async function readText(path: string): Promise<string | null> {
  const bytes = await readBytes(path);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}
