/**
 * `deno task pack`: the `ghostlight` npm package, `dist/ghostlight-<version>.tgz`, so a client's
 * entry is `{ "command": "npx", "args": ["-y", "ghostlight"] }`. It holds the bin
 * (`mcpb/server/npm_bin.mjs` with the Node starter it shares with the MCPB bundle) and the app
 * (scripts/app_payload.ts), and depends on the `deno` npm package at the pinned version, whose
 * platform package brings the Deno that runs it, like the MCP servers that ship on npm
 * (decision 0353). `npm pack` writes the tarball.
 *
 * Usage: `deno run -A scripts/pack.ts [--out DIR]`
 *
 * @module
 */

import { SOURCE_ROOT as ROOT } from "../shared/executables.ts";
import { VERSION } from "../shared/version.ts";
import { writeApp } from "./app_payload.ts";
import { DENO_VERSION } from "./deno_platforms.ts";

/** The package's name on the registry and the command its bin installs. */
export const PACKAGE_NAME = "ghostlight";

/** The package.json of the npm package. */
export function packageJson(version = VERSION): Record<string, unknown> {
  return {
    name: PACKAGE_NAME,
    version,
    description:
      "Lets an AI agent work in the Chromium you already use, in a tab group of its own.",
    type: "module",
    bin: { ghostlight: "bin/ghostlight.mjs" },
    files: ["bin", "app"],
    dependencies: { deno: DENO_VERSION },
    engines: { node: ">=18" },
    license: "UNLICENSED",
  };
}

/** Writes the package's folder at `stage` and packs it into `out`; returns the tarball's path. */
export async function buildPackage(out: string): Promise<string> {
  const stage = await Deno.makeTempDir({ prefix: "ghostlight-npm-" });
  try {
    await Deno.writeTextFile(
      `${stage}/package.json`,
      `${JSON.stringify(packageJson(), null, 2)}\n`,
    );
    await Deno.mkdir(`${stage}/bin`);
    await Deno.copyFile(`${ROOT}/mcpb/server/npm_bin.mjs`, `${stage}/bin/ghostlight.mjs`);
    await Deno.chmod(`${stage}/bin/ghostlight.mjs`, 0o755);
    await Deno.copyFile(`${ROOT}/mcpb/server/starter.mjs`, `${stage}/bin/starter.mjs`);
    await writeApp(ROOT, `${stage}/app`);
    await Deno.mkdir(out, { recursive: true });
    const output = await new Deno.Command("npm", {
      args: ["pack", "--silent", stage, "--pack-destination", out],
      stdin: "null",
    }).output();
    if (!output.success) {
      throw new Error(`npm pack failed: ${new TextDecoder().decode(output.stderr).trim()}`);
    }
    return `${out}/${PACKAGE_NAME}-${VERSION}.tgz`;
  } finally {
    await Deno.remove(stage, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const index = Deno.args.indexOf("--out");
  try {
    console.error(
      `Wrote ${await buildPackage(index >= 0 ? Deno.args[index + 1] : `${ROOT}/dist`)}.`,
    );
  } catch (error) {
    console.error(`pack: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
