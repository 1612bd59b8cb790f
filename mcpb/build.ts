/**
 * `deno task mcpb`: one MCPB bundle per platform for Claude Desktop, assembled in
 * `dist/mcpb/<platform>/` and packed into `dist/ghostlight-<version>-<platform>.mcpb` with the
 * pinned `@anthropic-ai/mcpb` CLI.
 *
 * A bundle holds the manifest (for its platform's OS), the Node entry (`server/ghostlight.mjs`),
 * the app (sources, deno.json, starter, built extension: scripts/app_payload.ts) and that
 * platform's Deno in `runtime/`, from the npm registry's platform package checked against its
 * recorded integrity (scripts/deno_platforms.ts). The entry runs the connector from the sources
 * with the bundle's own Deno through the starter, which gives it its instance's flags (decisions
 * 0100, 0084); its first launch sets up the browser side (decision 0352). It carries no compiled
 * connector: a compiled program carries the flags it was compiled with, and a bundle for everyone
 * cannot name a user's folders.
 *
 * Usage: `deno run -A mcpb/build.ts [--platform NAME|all] [--out DIR] [--cache DIR]`
 *
 * @module
 */

import { VERSION } from "../shared/version.ts";
import { pathOfFileUrl } from "../shared/file_url.ts";
import { Catalog } from "../service/catalog/mod.ts";
import { TOOLS } from "../service/tools/mod.ts";
import { writeApp } from "../scripts/app_payload.ts";
import { choosePlatforms, type Platform, PLATFORMS, writeDeno } from "../scripts/deno_platforms.ts";
import { ENTRY_POINT, mcpbManifest } from "./manifest.ts";

/** The MCPB command line, pinned. */
export const MCPB_CLI = "@anthropic-ai/mcpb@2.1.2";

const ROOT = pathOfFileUrl(new URL("..", import.meta.url)).replace(/\/$/, "");

/** The packed bundle's file name for `platform`. */
export function bundleName(platform: Platform): string {
  return `ghostlight-${VERSION}-${platform}.mcpb`;
}

/**
 * Assembles `platform`'s bundle folder at `out`, its Deno taken from `cacheDir`; returns the
 * SHA-256 of the Deno it carries.
 */
export async function assembleBundle(
  platform: Platform,
  out: string,
  cacheDir: string,
): Promise<string> {
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${out}/server`, { recursive: true });
  const tools = new Catalog(TOOLS).descriptors();
  const manifest = mcpbManifest(VERSION, tools, PLATFORMS[platform].os);
  await Deno.writeTextFile(`${out}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await Deno.copyFile(`${ROOT}/mcpb/server/ghostlight.mjs`, `${out}/${ENTRY_POINT}`);
  await Deno.chmod(`${out}/${ENTRY_POINT}`, 0o755);
  await Deno.copyFile(`${ROOT}/mcpb/server/starter.mjs`, `${out}/server/starter.mjs`);
  await writeApp(ROOT, `${out}/app`);
  return await writeDeno(platform, cacheDir, `${out}/runtime/${PLATFORMS[platform].binary}`);
}

/** Packs the folder `dir` into `file` with the pinned MCPB CLI; throws with its output. */
export async function packBundle(dir: string, file: string): Promise<void> {
  const output = await new Deno.Command("npx", {
    args: ["-y", MCPB_CLI, "pack", dir, file],
    stdin: "null",
  }).output();
  if (!output.success) {
    const decoder = new TextDecoder();
    throw new Error(
      `mcpb pack failed: ${decoder.decode(output.stdout)}${decoder.decode(output.stderr)}`,
    );
  }
}

function option(name: string): string | undefined {
  const index = Deno.args.indexOf(name);
  return index >= 0 ? Deno.args[index + 1] : undefined;
}

if (import.meta.main) {
  const out = option("--out") ?? `${ROOT}/dist`;
  const cache = option("--cache") ?? `${ROOT}/dist/cache`;
  try {
    for (const platform of choosePlatforms(option("--platform"))) {
      const deno = await assembleBundle(platform, `${out}/mcpb/${platform}`, cache);
      await packBundle(`${out}/mcpb/${platform}`, `${out}/${bundleName(platform)}`);
      console.error(`Packed ${out}/${bundleName(platform)} (its Deno: sha256 ${deno}).`);
    }
  } catch (error) {
    console.error(`mcpb: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
