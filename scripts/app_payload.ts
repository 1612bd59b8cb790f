/**
 * The files every distribution of Ghostlight carries as its app: the sources the executables load
 * (no tests), the starter, the installed deno.json (imports and permission sets) with the lock,
 * and the built extension. The MCPB bundle, the npm package and the release archive each write
 * this one set (decision 0350), so what runs from any of them is the same program.
 *
 * @module
 */

import { EXTENSION_FILES, installedConfig, sourceFiles } from "../service/install/mod.ts";

/** Extra files a distribution that installs itself carries: the installer body and script. */
export const INSTALLER_FILES: readonly string[] = [
  "install.ts",
  "install.sh",
  "scripts/compile.ts",
];

async function copy(from: string, to: string, mode = 0o644): Promise<void> {
  await Deno.mkdir(to.replace(/\/[^/]*$/, ""), { recursive: true });
  await Deno.copyFile(from, to);
  await Deno.chmod(to, mode);
}

/**
 * Writes the app of the checkout `root` into `dir`; with `installer`, also the installer body and
 * script. The extension must be built (`deno task build:extension`).
 */
export async function writeApp(
  root: string,
  dir: string,
  options: { installer?: boolean } = {},
): Promise<void> {
  for (const file of await sourceFiles(root)) await copy(`${root}/${file}`, `${dir}/${file}`);
  await copy(`${root}/scripts/start.ts`, `${dir}/scripts/start.ts`);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    installedConfig(await Deno.readTextFile(`${root}/deno.json`)),
  );
  await copy(`${root}/deno.lock`, `${dir}/deno.lock`);
  for (const file of EXTENSION_FILES) {
    const from = `${root}/extension/${file}`;
    if (!(await Deno.stat(from).catch(() => null))) {
      throw new Error(`${from} is missing; run 'deno task build:extension' first`);
    }
    await copy(from, `${dir}/extension/${file}`);
  }
  if (options.installer) {
    for (const file of INSTALLER_FILES) {
      await copy(`${root}/${file}`, `${dir}/${file}`, file.endsWith(".sh") ? 0o755 : 0o644);
    }
  }
}
