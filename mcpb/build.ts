/**
 * `deno task mcpb`: assembles Ghostlight's MCPB bundle for Claude Desktop in `dist/mcpb/` and
 * packs it into `dist/ghostlight.mcpb` with the pinned `@anthropic-ai/mcpb` CLI.
 *
 * The bundle holds the manifest, the Node entry (`server/ghostlight.mjs`), and the sources with
 * their deno.json and the starter `scripts/start.ts` (`app/`). The entry runs the connector from
 * the sources with a Deno found on the machine, through the starter, which gives it its
 * instance's flags (decisions 0100, 0084). It carries no compiled connector: a compiled program
 * carries the flags it was compiled with, and a bundle for everyone cannot name a user's folders.
 *
 * Usage: `deno run -A mcpb/build.ts [--out DIR] [--pack FILE]`
 *
 * @module
 */

import { VERSION } from "../shared/version.ts";
import { pathOfFileUrl } from "../shared/file_url.ts";
import { Catalog } from "../service/catalog/mod.ts";
import { EXTENSION_FILES, installedConfig, sourceFiles } from "../service/install/mod.ts";
import { TOOLS } from "../service/tools/mod.ts";
import { ENTRY_POINT, mcpbManifest } from "./manifest.ts";

/** The MCPB command line, pinned. */
export const MCPB_CLI = "@anthropic-ai/mcpb@2.1.2";

const ROOT = pathOfFileUrl(new URL("..", import.meta.url)).replace(/\/$/, "");

async function copy(from: string, to: string, mode = 0o644): Promise<void> {
  await Deno.mkdir(to.replace(/\/[^/]*$/, ""), { recursive: true });
  await Deno.copyFile(from, to);
  await Deno.chmod(to, mode);
}

/** Assembles the bundle's folder at `out`. */
export async function assembleBundle(out: string): Promise<void> {
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(out, { recursive: true });
  const tools = new Catalog(TOOLS).descriptors();
  const manifest = mcpbManifest(VERSION, tools);
  await Deno.writeTextFile(`${out}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await copy(`${ROOT}/mcpb/server/ghostlight.mjs`, `${out}/${ENTRY_POINT}`, 0o755);
  for (const file of await sourceFiles(ROOT)) await copy(`${ROOT}/${file}`, `${out}/app/${file}`);
  await copy(`${ROOT}/scripts/start.ts`, `${out}/app/scripts/start.ts`);
  await Deno.writeTextFile(
    `${out}/app/deno.json`,
    installedConfig(await Deno.readTextFile(`${ROOT}/deno.json`)),
  );
  await copy(`${ROOT}/deno.lock`, `${out}/app/deno.lock`);
  for (const file of EXTENSION_FILES) {
    await copy(`${ROOT}/extension/${file}`, `${out}/app/extension/${file}`);
  }
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

function option(name: string, fallback: string): string {
  const index = Deno.args.indexOf(name);
  return index >= 0 ? Deno.args[index + 1] : fallback;
}

if (import.meta.main) {
  const out = option("--out", `${ROOT}/dist/mcpb`);
  const file = option("--pack", `${ROOT}/dist/ghostlight.mcpb`);
  try {
    await assembleBundle(out);
    await packBundle(out, file);
    console.error(`Packed ${file}.`);
  } catch (error) {
    console.error(`mcpb: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
