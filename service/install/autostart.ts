/**
 * The per-user auto-start of the service, so the extension in a browser started at login finds
 * its service without waiting for an MCP client to start one: a systemd user unit (Linux), a
 * LaunchAgent (macOS), a Run value (Windows). Install writes the files (and, for systemd, a
 * drop-in by which `default.target` wants the unit, as `systemctl --user enable` would); it
 * starts nothing itself.
 *
 * @module
 */

import { instanceCommand } from "../../shared/instance.ts";
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
    /**
     * What enables it at login, if the host needs more than the file: for systemd a drop-in of
     * `default.target` that wants the unit. A regular file, not the link `systemctl enable`
     * makes: Deno lets a process make a symbolic link only with unscoped read and write access,
     * which the installer does not have (decision 0084).
     */
    enable: { path: string; text: string } | null;
    /** The enablement link an earlier install made, removed when found. */
    legacyLink: { path: string; target: string } | null;
    /** What the person runs to start it now rather than at the next login. */
    startNow: string;
  }
  | { kind: "registry"; value: RegistryValue; startNow: string };

function unitName(layout: Layout): string {
  return instanceCommand(layout.instance);
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
      const enable = [
        `# ${LAUNCHER_MARK}`,
        `# ${described} starts at login, as 'systemctl --user enable ${name}' would make it.`,
        "[Unit]",
        `Wants=${name}`,
        "",
      ].join("\n");
      return {
        kind: "files",
        file: { path, text },
        enable: {
          path: joinPath(host, dir, "default.target.d", `${unitName(layout)}.conf`),
          text: enable,
        },
        legacyLink: { path: joinPath(host, dir, "default.target.wants", name), target: path },
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
        enable: null,
        legacyLink: null,
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
