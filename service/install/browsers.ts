/**
 * The Chromium-family browsers Ghostlight registers its native-messaging host with, and where
 * each one looks for host manifests per operating system: a folder in the browser's per-user
 * data directory on Linux and macOS, a registry key under HKCU on Windows whose default value is
 * the manifest's path.
 *
 * @module
 */

import { z } from "zod";
import { applicationSupport, configHome, type Host, joinPath, localAppData } from "./host.ts";
import type { Placed } from "./layout.ts";

/** The browsers install knows. */
export const BrowserId = z.enum(["chromium", "chrome", "edge", "brave"]);
export type BrowserId = z.infer<typeof BrowserId>;

interface BrowserRow {
  name: string;
  /** The default user data directory, relative to `$XDG_CONFIG_HOME` (Linux). */
  linux: string;
  /** The same, relative to `~/Library/Application Support` (macOS). */
  darwin: string;
  /** The browser's key under `HKCU\Software` (Windows). */
  windowsKey: string;
  /** The user data directory, relative to `%LOCALAPPDATA%` (Windows). */
  windowsData: string;
}

/** Each browser's per-user locations. */
export const BROWSERS: Readonly<Record<BrowserId, BrowserRow>> = {
  chromium: {
    name: "Chromium",
    linux: "chromium",
    darwin: "Chromium",
    windowsKey: "Chromium",
    windowsData: "Chromium/User Data",
  },
  chrome: {
    name: "Google Chrome",
    linux: "google-chrome",
    darwin: "Google/Chrome",
    windowsKey: "Google\\Chrome",
    windowsData: "Google/Chrome/User Data",
  },
  edge: {
    name: "Microsoft Edge",
    linux: "microsoft-edge",
    darwin: "Microsoft Edge",
    windowsKey: "Microsoft\\Edge",
    windowsData: "Microsoft/Edge/User Data",
  },
  brave: {
    name: "Brave",
    linux: "BraveSoftware/Brave-Browser",
    darwin: "BraveSoftware/Brave-Browser",
    windowsKey: "BraveSoftware\\Brave-Browser",
    windowsData: "BraveSoftware/Brave-Browser/User Data",
  },
};

/** The browser's default user data directory: its presence means the browser is used here. */
export function browserDataDir(host: Host, id: BrowserId): string {
  const row = BROWSERS[id];
  switch (host.platform) {
    case "linux":
      return joinPath(host, configHome(host), row.linux);
    case "darwin":
      return joinPath(host, applicationSupport(host), row.darwin);
    case "windows":
      return joinPath(host, localAppData(host), row.windowsData);
  }
}

/** One value to set under HKCU: the plan Windows needs instead of a manifest folder. */
export const RegistryValue = z.object({
  /** The key, below `HKCU`. */
  key: z.string(),
  /** The value's name; empty for the key's default value. */
  name: z.string(),
  data: z.string(),
});
export type RegistryValue = z.infer<typeof RegistryValue>;

/** How one browser learns about the host: a manifest file, or a registry value naming one. */
export type HostRegistration =
  | { kind: "file"; browser: BrowserId; manifestPath: string }
  | { kind: "registry"; browser: BrowserId; manifestPath: string; value: RegistryValue };

/** Where the host manifest for `browser` goes. */
export function hostRegistration({ host, layout }: Placed, browser: BrowserId): HostRegistration {
  const file = `${layout.nativeHostName}.json`;
  if (host.platform !== "windows") {
    return {
      kind: "file",
      browser,
      manifestPath: joinPath(host, browserDataDir(host, browser), "NativeMessagingHosts", file),
    };
  }
  // One manifest in the prefix serves every browser; each browser's key points at it.
  const manifestPath = joinPath(host, layout.nativeHostDir, file);
  return {
    kind: "registry",
    browser,
    manifestPath,
    value: {
      key: `Software\\${
        BROWSERS[browser].windowsKey
      }\\NativeMessagingHosts\\${layout.nativeHostName}`,
      name: "",
      data: manifestPath,
    },
  };
}

/** Chrome's native-messaging host manifest, as install writes it and doctor reads it. */
export const NativeHostManifest = z.object({
  name: z.string(),
  description: z.string(),
  path: z.string(),
  type: z.literal("stdio"),
  allowed_origins: z.array(z.string()),
});
export type NativeHostManifest = z.infer<typeof NativeHostManifest>;

/** Builds the manifest that lets the extension with `extensionId` start the host at `path`. */
export function nativeHostManifest(
  options: { name: string; path: string; extensionId: string },
): NativeHostManifest {
  return {
    name: options.name,
    description: "Ghostlight browser connector",
    path: options.path,
    // Chrome's only transport for native hosts: frames on the host's standard streams.
    type: "stdio",
    allowed_origins: [`chrome-extension://${options.extensionId}/`],
  };
}
