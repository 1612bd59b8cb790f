// Ghostlight's MCP server entry in the MCPB bundle, run by Claude Desktop's own Node.
// It starts the MCP connector with stdio passed straight through:
//   1. the compiled connector for this platform, when the bundle carries one (bin/<target>/);
//   2. else the bundle's sources (app/) under the connector's permission set, with a Deno found
//      in GHOSTLIGHT_DENO, on PATH, in ~/.deno/bin, or installed by `ghostlight install`;
//   3. else one sentence on stderr saying what to install, and exit code 1.
// The connector's folder is put first on PATH, since it starts the service by a bare name.
// deno-lint-ignore-file no-process-global
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const windows = process.platform === "win32";
const exe = windows ? ".exe" : "";
const targets = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "darwin-x64": "macos-x64",
  "darwin-arm64": "macos-arm64",
  "win32-x64": "windows-x64",
};
const target = targets[`${process.platform}-${process.arch}`];

function findDeno() {
  const data = windows
    ? join(process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"), "ghostlight")
    : join(process.env.XDG_DATA_HOME ?? join(homedir(), ".local", "share"), "ghostlight");
  const candidates = [
    process.env.GHOSTLIGHT_DENO,
    ...(process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) =>
      join(dir, `deno${exe}`)
    ),
    join(homedir(), ".deno", "bin", `deno${exe}`),
    join(data, "runtime", `deno${exe}`),
  ];
  return candidates.find((path) => path && existsSync(path));
}

function connector() {
  const binary = target && join(root, "bin", target, `ghostlight-mcp-connector${exe}`);
  if (binary && existsSync(binary)) return { command: binary, args: [] };
  const deno = findDeno();
  if (!deno) return null;
  return {
    command: deno,
    args: [
      "run",
      "-q",
      "-P=mcp-connector",
      "--config",
      join(root, "app", "deno.json"),
      join(root, "app", "mcp_connector", "main.ts"),
    ],
  };
}

const found = connector();
if (found === null) {
  process.stderr.write(
    "Ghostlight: this bundle has no compiled connector for this platform and no Deno was " +
      "found; install Deno (https://deno.com) or run Ghostlight's installer, then restart.\n",
  );
  process.exit(1);
}
const child = spawn(found.command, [...found.args, ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, PATH: `${dirname(found.command)}${delimiter}${process.env.PATH ?? ""}` },
});
child.on("error", (error) => {
  process.stderr.write(`Ghostlight: could not start ${found.command}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
