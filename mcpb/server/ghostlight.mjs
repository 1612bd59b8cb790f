// Ghostlight's MCP server entry in the MCPB bundle, run by Claude Desktop's own Node.
// The bundle carries its platform's Deno (runtime/), the sources and the built extension (app/).
// On its first launch for an instance (no install receipt of this version in the instance's
// prefix) it sets up the browser side exactly as `ghostlight install --client none` does, through
// app/scripts/start.ts, which runs the installer with its own least privilege (decision 0084):
// the native host for the browsers found, the extension folder, the service entry, auto-start. It
// says what it did on stderr (stdout is the client's) and in `ghostlight status` (the installer's
// `--first-launch` record in the instance's state folder, decision 0354), and a later launch
// finds the receipt and changes nothing. Then it starts the MCP connector from the bundle's sources with stdio passed
// straight through, the way `deno task connector` does: start.ts writes the instance's service
// entry and starts the connector under its permission set plus the instance's own folders, secret
// and socket (decisions 0100, 0084), and ends it at once when this process is killed
// (starter.mjs).
// The Deno is the bundle's own; else GHOSTLIGHT_DENO, PATH, ~/.deno/bin or an install's.
// deno-lint-ignore-file no-process-global
import { spawnSync } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dataHome, exe, prefixOf, runStarter, starterArgs, windows } from "./starter.mjs";

// fileURLToPath decodes the URL: a bundle in "Claude Extensions" is found where it is.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const app = join(root, "app");
const instance = process.env.GHOSTLIGHT_INSTANCE ?? "";
const prefix = prefixOf(instance);

/** The bundle's own Deno, made executable if unpacking lost the bit. */
function ownDeno() {
  const path = join(root, "runtime", `deno${exe}`);
  if (!existsSync(path)) return undefined;
  if (!windows) {
    try {
      accessSync(path, constants.X_OK);
    } catch {
      chmodSync(path, 0o755);
    }
  }
  return path;
}

function findDeno() {
  const candidates = [
    ownDeno(),
    process.env.GHOSTLIGHT_DENO,
    ...(process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) =>
      join(dir, `deno${exe}`)
    ),
    join(homedir(), ".deno", "bin", `deno${exe}`),
    join(dataHome, "ghostlight", "runtime", `deno${exe}`),
  ];
  return candidates.find((path) => path && existsSync(path));
}

/** The version the install receipt of this instance records, or null when there is none. */
function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(prefix, "install.json"), "utf8")).version ?? null;
  } catch {
    return null;
  }
}

/**
 * Sets up the browser side when this instance has no install of this bundle's version, as
 * `ghostlight install --client none` does; its report goes to stderr.
 */
function firstLaunch(deno) {
  const version = JSON.parse(readFileSync(join(root, "manifest.json"), "utf8")).version;
  if (installedVersion() === version) return;
  process.stderr.write(
    "Ghostlight: first launch: setting up the browser side " +
      "(as 'ghostlight install --client none')\n",
  );
  const args = [
    ...starterArgs(app, deno, instance),
    "service",
    "install",
    "--client",
    "none",
    "--first-launch",
  ];
  if (instance) args.push("--instance", instance);
  const result = spawnSync(deno, args, { stdio: ["ignore", 2, 2] });
  if (result.status !== 0) {
    process.stderr.write(
      "Ghostlight: setting up the browser side did not finish; run 'ghostlight doctor' to see " +
        "what is missing. The connector starts anyway.\n",
    );
  }
}

// The Deno itself, not a link to it: start.ts runs the connector with the Deno it runs under,
// which Deno names by its real path, and a run grant names a file exactly.
const found = findDeno();
const deno = found && realpathSync(found);
if (!deno) {
  process.stderr.write(
    "Ghostlight: no Deno was found to run this bundle's connector; install Deno " +
      "(https://deno.com) or run Ghostlight's installer, then restart.\n",
  );
  process.exit(1);
}
firstLaunch(deno);
runStarter(app, deno, instance, ["mcp-connector", ...process.argv.slice(2)]);
