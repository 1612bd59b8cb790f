/**
 * `deno task release`: one archive per platform, `dist/ghostlight-<version>-<platform>.tar.gz`,
 * holding the app (sources, built extension, installed deno.json and lock), the installer body and
 * `install.sh`, and that platform's Deno in `runtime/`, taken from the npm registry's platform
 * package and checked against its recorded integrity (scripts/deno_platforms.ts); then
 * `dist/SHA256SUMS` over every archive of this version in the folder. `install.sh` run without a
 * checkout fetches the archive for its machine and this file, and refuses an archive whose sum
 * differs (decision 0351).
 *
 * Usage: `deno run -A scripts/release.ts [--platform NAME|all] [--out DIR] [--cache DIR]`
 *
 * @module
 */

import { SOURCE_ROOT as ROOT } from "../shared/executables.ts";
import { VERSION } from "../shared/version.ts";
import { writeApp } from "./app_payload.ts";
import {
  choosePlatforms,
  type Platform,
  PLATFORMS,
  sha256Hex,
  writeDeno,
} from "./deno_platforms.ts";

/** The archive's name (and its top folder's, without the extension) for `platform`. */
export function archiveName(platform: Platform, version = VERSION): string {
  return `ghostlight-${version}-${platform}.tar.gz`;
}

/** Writes `platform`'s archive into `out`; returns its path. */
export async function buildArchive(
  platform: Platform,
  out: string,
  cacheDir: string,
): Promise<string> {
  const top = archiveName(platform).replace(/\.tar\.gz$/, "");
  const stage = await Deno.makeTempDir({ prefix: "ghostlight-release-" });
  try {
    await writeApp(ROOT, `${stage}/${top}`, { installer: true });
    await writeDeno(platform, cacheDir, `${stage}/${top}/runtime/${PLATFORMS[platform].binary}`);
    await Deno.mkdir(out, { recursive: true });
    const file = `${out}/${archiveName(platform)}`;
    const partial = `${file}.partial`;
    const output = await new Deno.Command("tar", {
      args: ["-czf", partial, "-C", stage, top],
      stdin: "null",
    }).output();
    if (!output.success) {
      throw new Error(`tar failed: ${new TextDecoder().decode(output.stderr).trim()}`);
    }
    await Deno.rename(partial, file);
    return file;
  } finally {
    await Deno.remove(stage, { recursive: true }).catch(() => {});
  }
}

/** Writes `out/SHA256SUMS` over every archive of this version in `out`, in `sha256sum` form. */
export async function writeSums(out: string): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(out)) {
    if (
      entry.isFile && entry.name.startsWith(`ghostlight-${VERSION}-`) &&
      entry.name.endsWith(".tar.gz")
    ) names.push(entry.name);
  }
  names.sort();
  const lines = [];
  for (const name of names) {
    lines.push(`${await sha256Hex(await Deno.readFile(`${out}/${name}`))}  ${name}`);
  }
  const file = `${out}/SHA256SUMS`;
  await Deno.writeTextFile(file, lines.map((line) => `${line}\n`).join(""));
  return file;
}

function option(name: string): string | undefined {
  const index = Deno.args.indexOf(name);
  return index >= 0 ? Deno.args[index + 1] : undefined;
}

if (import.meta.main) {
  try {
    const out = option("--out") ?? `${ROOT}/dist`;
    const cache = option("--cache") ?? `${ROOT}/dist/cache`;
    for (const platform of choosePlatforms(option("--platform"))) {
      console.error(`Wrote ${await buildArchive(platform, out, cache)}.`);
    }
    console.error(`Wrote ${await writeSums(out)}.`);
  } catch (error) {
    console.error(`release: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
