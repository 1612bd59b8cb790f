/**
 * The per-user auto-start of the service, so the extension in a browser started at login finds
 * its service without waiting for an MCP client to start one: a systemd user unit (Linux), a
 * LaunchAgent (macOS), a Run value (Windows). Install writes the files (and, for systemd, the
 * link `systemctl --user enable` would make); it starts nothing itself.
 *
 * @module
 */

import type { RegistryValue } from "./browsers.ts";
import { configHome, homeOf, joinPath } from "./host.ts";
import type { Layout, Placed } from "./layout.ts";
import { LAUNCHER_MARK } from "./launchers.ts";

/** Exit code of `ghostlight service` when another process already serves the instance. */
const ALREADY_RUNNING_EXIT = 4;

/** The auto-start of one instance on one host. */
export type Autostart =
  | {
    kind: "files";
    /** The unit or agent file and its text. */
    file: { path: string; text: string };
    /** systemd's enablement link, if the host uses one. */
    link: { path: string; target: string } | null;
    /** What the person runs to start it now rather than at the next login. */
    startNow: string;
  }
  | { kind: "registry"; value: RegistryValue; startNow: string };

function unitName(layout: Layout): string {
  return layout.instance === null ? "ghostlight" : `ghostlight-${layout.instance}`;
}

function xmlEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The auto-start plan of an install. */
export function autostartPlan({ host, layout }: Placed): Autostart {
  const launcher = layout.launchers.service;
  const described = layout.instance === null
    ? "Ghostlight service"
    : `Ghostlight service (instance ${layout.instance})`;
  switch (host.platform) {
    case "linux": {
      const dir = joinPath(host, configHome(host), "systemd", "user");
      const name = `${unitName(layout)}.service`;
      const path = joinPath(host, dir, name);
      const text = [
        `# ${LAUNCHER_MARK}`,
        "[Unit]",
        `Description=${described}`,
        "",
        "[Service]",
        `ExecStart="${launcher}" service`,
        "Restart=on-failure",
        // A connector may already have started one on demand: not a failure to retry.
        `RestartPreventExitStatus=${ALREADY_RUNNING_EXIT}`,
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
      ].join("\n");
      return {
        kind: "files",
        file: { path, text },
        link: { path: joinPath(host, dir, "default.target.wants", name), target: path },
        startNow: `systemctl --user daemon-reload && systemctl --user start ${name}`,
      };
    }
    case "darwin": {
      const label = layout.instance === null
        ? "com.ghostlight.service"
        : `com.ghostlight.service.${layout.instance}`;
      const path = joinPath(host, homeOf(host), "Library", "LaunchAgents", `${label}.plist`);
      const text = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" ' +
        '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        `<!-- ${LAUNCHER_MARK} -->`,
        '<plist version="1.0">',
        "<dict>",
        "  <key>Label</key>",
        `  <string>${label}</string>`,
        "  <key>ProgramArguments</key>",
        "  <array>",
        `    <string>${xmlEscape(launcher)}</string>`,
        "    <string>service</string>",
        "  </array>",
        "  <key>RunAtLoad</key>",
        "  <true/>",
        "  <key>KeepAlive</key>",
        "  <dict>",
        "    <key>SuccessfulExit</key>",
        "    <false/>",
        "  </dict>",
        "</dict>",
        "</plist>",
        "",
      ].join("\n");
      return {
        kind: "files",
        file: { path, text },
        link: null,
        startNow: `launchctl load -w '${path}'`,
      };
    }
    case "windows":
      return {
        kind: "registry",
        value: {
          key: "Software\\Microsoft\\Windows\\CurrentVersion\\Run",
          name: layout.instance === null ? "Ghostlight" : `Ghostlight ${layout.instance}`,
          data: `"${launcher}" service`,
        },
        startNow: `"${launcher}" service`,
      };
  }
}
