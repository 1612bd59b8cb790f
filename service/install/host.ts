/**
 * The machine an install is planned for: its operating system and environment. Every location
 * `install`, `uninstall` and `doctor` use derives from this, so each plan is a pure function that
 * tests can run for macOS and Windows on Linux.
 *
 * @module
 */

import { type EnvReader, loginRuntimeDir } from "../../shared/instance.ts";

/** The operating systems Ghostlight installs on. */
export type Platform = "linux" | "darwin" | "windows";

/** The operating system and environment an install is planned for. */
export interface Host {
  platform: Platform;
  env: EnvReader;
  /**
   * The user's login runtime folder (`/run/user/<uid>`) when XDG_RUNTIME_DIR is unset and that
   * folder is usable: the instance's sockets are there, and the launchers pin it.
   */
  loginRuntimeDir?: string | null;
}

/** The host this process runs on. */
export function currentHost(): Host {
  const os = Deno.build.os;
  const platform: Platform = os === "darwin" ? "darwin" : os === "windows" ? "windows" : "linux";
  const env: EnvReader = (key) => Deno.env.get(key);
  return { platform, env, loginRuntimeDir: env("XDG_RUNTIME_DIR") ? null : loginRuntimeDir() };
}

/** Joins path parts with the host's separator. */
export function joinPath(host: Host, ...parts: string[]): string {
  const separator = host.platform === "windows" ? "\\" : "/";
  return parts
    .flatMap((part) => part.split(/[\\/]/))
    .filter((part, index) => part !== "" || index === 0)
    .join(separator);
}

/** The folder that holds `path`. */
export function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut <= 0 ? path.slice(0, cut + 1) || "/" : path.slice(0, cut);
}

/** The user's home folder; throws a readable error when the environment has none. */
export function homeOf(host: Host): string {
  const home = host.platform === "windows"
    ? host.env("USERPROFILE") || host.env("HOME")
    : host.env("HOME");
  if (!home) {
    throw new Error(
      "HOME is not set; Ghostlight installs into the home folder, so run this as the user " +
        "who will use it",
    );
  }
  return home;
}

/** `$XDG_CONFIG_HOME`, else `~/.config` (also what Zed, OpenCode and Crush use on macOS). */
export function configHome(host: Host): string {
  return host.env("XDG_CONFIG_HOME") || joinPath(host, homeOf(host), ".config");
}

/** `%APPDATA%` (roaming), for Windows only. */
export function appData(host: Host): string {
  return host.env("APPDATA") || joinPath(host, homeOf(host), "AppData", "Roaming");
}

/** `%LOCALAPPDATA%`, for Windows only. */
export function localAppData(host: Host): string {
  return host.env("LOCALAPPDATA") || joinPath(host, homeOf(host), "AppData", "Local");
}

/** `~/Library/Application Support`, for macOS only. */
export function applicationSupport(host: Host): string {
  return joinPath(host, homeOf(host), "Library", "Application Support");
}
