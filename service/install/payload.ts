/**
 * What install puts into the prefix: the compiled executables beside this one, or a copy of the
 * sources with the Deno that runs them; and the built extension. Nothing installed points back
 * into a checkout, a compile folder or a package cache.
 *
 * @module
 */

import { DOCTOR, EXECUTABLES, INSTALLER } from "../../shared/executables.ts";
import { extensionSourceDir } from "./extension.ts";
import { homeOf, type Host, joinPath, localAppData } from "./host.ts";
import type { InstallMode } from "./launchers.ts";

/** Where the executables install copies come from. */
export type Payload =
  | { kind: "compiled"; binDir: string; extensionDir: string }
  | { kind: "sources"; root: string; deno: string; denoDir: string; extensionDir: string };

/** The folders of the sources the three executables are built from. */
const SOURCE_FOLDERS = ["shared", "service", "mcp_connector", "browser_connector"];

/**
 * Deno's module cache for `host`: `DENO_DIR` when set, else Deno's own default. The launchers pin
 * it, so a client that starts Ghostlight with another environment still finds the packages the
 * sources need.
 */
export function denoDirOf(host: Host): string {
  const set = host.env("DENO_DIR");
  if (set) return set;
  switch (host.platform) {
    case "darwin":
      return joinPath(host, homeOf(host), "Library", "Caches", "deno");
    case "windows":
      return joinPath(host, localAppData(host), "deno");
    case "linux":
      return joinPath(
        host,
        host.env("XDG_CACHE_HOME") || joinPath(host, homeOf(host), ".cache"),
        "deno",
      );
  }
}

/** The payload of this process: compiled siblings, or the checkout it runs from. */
export function currentPayload(
  host: Host,
  source: { fromSource: boolean; root: string; execPath: string },
): Payload {
  const extensionDir = extensionSourceDir();
  if (source.fromSource) {
    return {
      kind: "sources",
      root: source.root,
      deno: source.execPath,
      denoDir: denoDirOf(host),
      extensionDir,
    };
  }
  return { kind: "compiled", binDir: source.execPath.replace(/[\\/][^\\/]*$/, ""), extensionDir };
}

/** The launchers' mode for a payload. */
export function modeOf(payload: Payload): InstallMode {
  return payload.kind === "compiled"
    ? { kind: "compiled" }
    : { kind: "sources", denoDir: payload.denoDir };
}

/** Every compiled program an install carries: the three executables, the installer, doctor. */
export const COMPILED: readonly string[] = [
  ...Object.values(EXECUTABLES),
  INSTALLER,
  DOCTOR,
].map((row) => row.compiledName);

/** The compiled program `name` (one of {@linkcode COMPILED}) in the folder `binDir`. */
export function compiledPath(host: Host, binDir: string, name: string): string {
  return joinPath(host, binDir, host.platform === "windows" ? `${name}.exe` : name);
}

/** Every source file the executables load, relative to the root: no tests. */
export async function sourceFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (relative: string) => {
    const entries = [];
    for await (const entry of Deno.readDir(`${root}/${relative}`)) entries.push(entry);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && !entry.name.endsWith("_test.ts")) files.push(path);
    }
  };
  for (const folder of SOURCE_FOLDERS) await walk(folder);
  return files;
}

/**
 * The installed copy's deno.json: the project's imports and permission sets, nothing else (its
 * tasks name scripts that are not installed).
 */
export function installedConfig(projectConfig: string): string {
  const config = JSON.parse(projectConfig);
  return `${
    JSON.stringify({ imports: config.imports, permissions: config.permissions }, null, 2)
  }\n`;
}
