/**
 * `deno task mcpb`: assembles Ghostlight's MCPB bundle for Claude Desktop in `dist/mcpb/` and
 * packs it into `dist/ghostlight.mcpb` with the pinned `@anthropic-ai/mcpb` CLI.
 *
 * The bundle holds the manifest, the Node entry (`server/ghostlight.mjs`), the sources with
 * their deno.json (`app/`), and every compiled connector `deno task build` left in `dist/`
 * (`bin/<target>/`). Where no binary was built, the entry runs the sources with a Deno found on
 * the machine, so the server entry never points at a missing file.
 *
 * Usage: `deno run -A mcpb/build.ts [--out DIR] [--pack FILE]`
 *
 * @module
 */

import { EXECUTABLES } from "../shared/executables.ts";
import { VERSION } from "../shared/version.ts";
import { Catalog } from "../service/catalog/mod.ts";
import { EXTENSION_FILES, installedConfig, sourceFiles } from "../service/install/mod.ts";
import { TOOLS } from "../service/tools/mod.ts";
import { targetDir, TARGETS } from "../scripts/compile.ts";
import { ENTRY_POINT, mcpbManifest } from "./manifest.ts";

/** The MCPB command line, pinned. */
export const MCPB_CLI = "@anthropic-ai/mcpb@2.1.2";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

async function copy(from: string, to: string, mode = 0o644): Promise<void> {
  await Deno.mkdir(to.replace(/\/[^/]*$/, ""), { recursive: true });
  await Deno.copyFile(from, to);
  await Deno.chmod(to, mode);
}

/** Assembles the bundle's folder at `out`; returns the targets it carries binaries for. */
export async function assembleBundle(out: string): Promise<string[]> {
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(out, { recursive: true });
  const tools = new Catalog(TOOLS).descriptors();
  const manifest = mcpbManifest(VERSION, tools);
  await Deno.writeTextFile(`${out}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await copy(`${ROOT}/mcpb/server/ghostlight.mjs`, `${out}/${ENTRY_POINT}`, 0o755);
  for (const file of await sourceFiles(ROOT)) await copy(`${ROOT}/${file}`, `${out}/app/${file}`);
  await Deno.writeTextFile(
    `${out}/app/deno.json`,
    installedConfig(await Deno.readTextFile(`${ROOT}/deno.json`)),
  );
  await copy(`${ROOT}/deno.lock`, `${out}/app/deno.lock`);
  for (const file of EXTENSION_FILES) {
    await copy(`${ROOT}/extension/${file}`, `${out}/app/extension/${file}`);
  }
  const carried: string[] = [];
  for (const target of Object.keys(TARGETS) as (keyof typeof TARGETS)[]) {
    const exe = target.startsWith("windows") ? ".exe" : "";
    const names = Object.values(EXECUTABLES).map((row) => `${row.compiledName}${exe}`);
    const dir = targetDir(target);
    const present = await Promise.all(
      names.map((name) => Deno.stat(`${dir}/${name}`).then(() => true, () => false)),
    );
    if (!present.every(Boolean)) continue;
    for (const name of names) await copy(`${dir}/${name}`, `${out}/bin/${target}/${name}`, 0o755);
    carried.push(target);
  }
  return carried;
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
    const carried = await assembleBundle(out);
    console.error(
      carried.length > 0
        ? `The bundle carries compiled connectors for ${carried.join(", ")}.`
        : "No compiled connector in dist/ (see deno task build): the bundle runs its sources " +
          "with the Deno it finds on the machine.",
    );
    await packBundle(out, file);
    console.error(`Packed ${file}.`);
  } catch (error) {
    console.error(`mcpb: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
