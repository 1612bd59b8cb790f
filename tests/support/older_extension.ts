/**
 * An older extension, built for a test from this tree's own extension code: only its declared
 * version (the manifest) and its declared features differ. The background script is bundled as
 * `deno task build:extension` bundles it, with an import map that gives it a features module
 * declaring `features` instead of `shared/extension_features.ts`.
 *
 * @module
 */

import { ROOT } from "./env.ts";

/**
 * Writes the older extension into `dir` (the built one supplies the popup, which says nothing
 * of features); `work` is a folder for the build's own files.
 */
export async function buildOlderExtension(
  dir: string,
  work: string,
  declared: { version: string; features: readonly string[] },
): Promise<void> {
  const built = `${ROOT}/extension`;
  await Deno.mkdir(`${dir}/dist`, { recursive: true, mode: 0o700 });
  const manifest = JSON.parse(await Deno.readTextFile(`${built}/manifest.json`));
  manifest.version = declared.version;
  await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest, null, 2));
  for (const file of ["popup.html", "dist/popup.js", "panel.html", "dist/panel.js", "theme.css"]) {
    await Deno.copyFile(`${built}/${file}`, `${dir}/${file}`);
  }
  const features = `${work}/older_features.ts`;
  await Deno.writeTextFile(
    features,
    `export const EXTENSION_FEATURES: readonly string[] = ${JSON.stringify(declared.features)};\n`,
  );
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const importMap = `${work}/older_import_map.json`;
  await Deno.writeTextFile(
    importMap,
    JSON.stringify({
      imports: {
        ...config.imports,
        [`file://${ROOT}/shared/extension_features.ts`]: `file://${features}`,
      },
    }),
  );
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "-q",
      "--platform",
      "browser",
      "--import-map",
      importMap,
      "--output",
      `${dir}/dist/background.js`,
      `${ROOT}/extension/src/background.ts`,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!bundled.success) {
    throw new Error(
      `bundling the older extension failed:\n${new TextDecoder().decode(bundled.stderr)}`,
    );
  }
}
