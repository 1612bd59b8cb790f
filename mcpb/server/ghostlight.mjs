// Ghostlight's MCP server entry in the MCPB bundle, run by Claude Desktop's own Node.
// It starts the MCP connector from the bundle's sources (app/) with stdio passed straight
// through, the way `deno task connector` does: app/scripts/start.ts writes the instance's service
// entry and starts the connector under its permission set plus the instance's own folders, secret
// and socket (decisions 0100, 0084). start.ts itself runs with flags naming only what it touches.
// The Deno comes from GHOSTLIGHT_DENO, PATH, ~/.deno/bin, or `ghostlight install`; without one it
// says what to install, and exits 1. The bundle carries no compiled connector: a compiled program
// carries the flags it was compiled with, which cannot name a user's folders in advance.
// deno-lint-ignore-file no-process-global
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const windows = process.platform === "win32";
const exe = windows ? ".exe" : "";
const dataHome = windows
  ? process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local")
  : process.env.XDG_DATA_HOME || join(homedir(), ".local", "share");

function findDeno() {
  const candidates = [
    process.env.GHOSTLIGHT_DENO,
    ...(process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) =>
      join(dir, `deno${exe}`)
    ),
    join(homedir(), ".deno", "bin", `deno${exe}`),
    join(dataHome, "ghostlight", "runtime", `deno${exe}`),
  ];
  return candidates.find((path) => path && existsSync(path));
}

/** start.ts's own grants: the variables it reads, its entry folder, the Deno it starts. */
function starter(deno) {
  const instance = process.env.GHOSTLIGHT_INSTANCE ?? "";
  const entries = join(dataHome, instance ? `ghostlight-${instance}` : "ghostlight", "from-source");
  const uid = process.getuid?.();
  return [
    "run",
    "-q",
    "--config",
    join(root, "app", "deno.json"),
    "--allow-env=HOME,XDG_DATA_HOME,XDG_RUNTIME_DIR,XDG_STATE_HOME,XDG_CONFIG_HOME," +
    "XDG_CACHE_HOME,TMPDIR,DENO_DIR,GHOSTLIGHT_INSTANCE",
    "--allow-sys=uid",
    // Its entry folder (writing an entry whole renames it into place), and the login runtime
    // folder, which it looks at when XDG_RUNTIME_DIR is not set.
    `--allow-read=${[entries, ...(uid === undefined ? [] : [`/run/user/${uid}`])].join(",")}`,
    `--allow-write=${entries}`,
    `--allow-run=${deno}`,
    join(root, "app", "scripts", "start.ts"),
    "mcp-connector",
  ];
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
const child = spawn(deno, [...starter(deno), ...process.argv.slice(2)], { stdio: "inherit" });
child.on("error", (error) => {
  process.stderr.write(`Ghostlight: could not start ${deno}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
