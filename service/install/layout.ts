/**
 * Where an installed instance lives: its prefix (`~/.local/share/ghostlight[-NAME]`), the
 * launchers on PATH (`~/.local/bin`), and everything inside the prefix. Pure: derived from the
 * host and the instance, never from where this process happens to run.
 *
 * @module
 */

import type { Executable } from "../../shared/executables.ts";
import { EXECUTABLES } from "../../shared/executables.ts";
import { instanceCommand, type InstancePaths } from "../../shared/instance.ts";
import { homeOf, type Host, joinPath, localAppData } from "./host.ts";

/** Every location one installed instance uses. */
export interface Layout {
  /** The instance, or null for the default one. */
  instance: string | null;
  /** The folder that holds everything of this instance's install but the launchers. */
  prefix: string;
  /** Where the launchers go: a folder on the user's PATH. */
  binDir: string;
  /** The launcher of each executable: what clients, Chrome and the user run. */
  launchers: Record<Executable, string>;
  /**
   * The fixed entry the MCP connector may start the service with (decisions 0100, 0084): in the
   * prefix, which no executable may write, and not on PATH.
   */
  serviceEntry: string;
  /** Compiled executables, when the install has them. */
  libexecDir: string;
  /** The installed copy of the sources, when the install runs them with Deno. */
  appDir: string;
  /** The Deno that runs the installed sources. */
  runtime: string;
  /** The unpacked extension the user's browser loads. */
  extensionDir: string;
  /** Native-messaging manifests that the Windows registry points at. */
  nativeHostDir: string;
  /** What install wrote, for uninstall and doctor. */
  receipt: string;
  /** Chrome's native-messaging host name of this instance. */
  nativeHostName: string;
  /** The name MCP clients know this instance's server by (before any clash). */
  serverName: string;
}

/** An install's layout on its host: what most plans need. */
export interface Placed {
  host: Host;
  layout: Layout;
}

/** The launcher's file name: `ghostlight[-NAME][-mcp-connector|-browser-connector][.cmd]`. */
function launcherName(host: Host, instance: string | null, executable: Executable): string {
  const base = EXECUTABLES[executable].compiledName;
  const named = instance === null ? base : base.replace(/^ghostlight/, `ghostlight-${instance}`);
  return host.platform === "windows" ? `${named}.cmd` : named;
}

/** The layout of `paths.instance` on `host`. */
export function installLayout(host: Host, paths: InstancePaths): Layout {
  const home = homeOf(host);
  const base = instanceCommand(paths.instance);
  const prefix = host.platform === "windows"
    ? joinPath(host, localAppData(host), base)
    : joinPath(host, host.env("XDG_DATA_HOME") || joinPath(host, home, ".local", "share"), base);
  const binDir = host.platform === "windows"
    ? joinPath(host, prefix, "bin")
    : joinPath(host, home, ".local", "bin");
  const launcher = (executable: Executable) =>
    joinPath(host, binDir, launcherName(host, paths.instance, executable));
  return {
    instance: paths.instance,
    prefix,
    binDir,
    launchers: {
      "service": launcher("service"),
      "mcp-connector": launcher("mcp-connector"),
      "browser-connector": launcher("browser-connector"),
    },
    serviceEntry: joinPath(
      host,
      prefix,
      host.platform === "windows" ? "service-entry.cmd" : "service-entry",
    ),
    libexecDir: joinPath(host, prefix, "libexec"),
    appDir: joinPath(host, prefix, "app"),
    runtime: joinPath(host, prefix, "runtime", host.platform === "windows" ? "deno.exe" : "deno"),
    extensionDir: joinPath(host, prefix, "extension"),
    nativeHostDir: joinPath(host, prefix, "native-host"),
    receipt: joinPath(host, prefix, "install.json"),
    nativeHostName: paths.nativeHostName,
    serverName: paths.mcpServerName,
  };
}
