/**
 * The per-user auto-start of the service, so the extension in a browser started at login finds
 * its service without waiting for an MCP client to start one: a systemd user unit (Linux), a
 * LaunchAgent (macOS), a Run value (Windows). Install writes the files (and, for systemd, a
 * drop-in by which `default.target` wants the unit, as `systemctl --user enable` would); it
 * starts nothing itself. A second entry, for a source install, runs `remote start --at-login`:
 * the shores of the remotes the person marked to start at login (decision 0532).
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

/** What an entry starts at login: the service, or the shores of the remotes marked for it. */
export type AtLogin = "service" | "remotes";

/** Per entry: its name's suffix, what it is called, and the command line it runs. */
const ENTRIES: Record<AtLogin, { suffix: string; what: string; args: string[] }> = {
  service: { suffix: "", what: "Ghostlight service", args: ["service"] },
  remotes: {
    suffix: "-remotes",
    what: "Ghostlight remote shores",
    args: ["remote", "start", "--at-login"],
  },
};

/** Exit code of `remote start` refusing (a compiled install, a usage error): not retried. */
const REFUSED_EXIT = 2;

function unitName(layout: Layout, which: AtLogin = "service"): string {
  return `${instanceCommand(layout.instance)}${ENTRIES[which].suffix}`;
}

function xmlEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The auto-start plan of an install: the service's, or the remote shores' (`which`). */
export function autostartPlan({ host, layout }: Placed, which: AtLogin = "service"): Autostart {
  const launcher = layout.launchers.service;
  const entry = ENTRIES[which];
  const described = layout.instance === null
    ? entry.what
    : `${entry.what} (instance ${layout.instance})`;
  switch (host.platform) {
    case "linux":
      return systemdPlan({ host, layout }, which, described);
    case "darwin": {
      const base = which === "service" ? "com.ghostlight.service" : "com.ghostlight.remotes";
      const label = layout.instance === null ? base : `${base}.${layout.instance}`;
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
        ...entry.args.map((arg) => `    <string>${arg}</string>`),
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
    case "windows": {
      const name = which === "service" ? "Ghostlight" : "Ghostlight remotes";
      const command = `"${launcher}" ${entry.args.join(" ")}`;
      return {
        kind: "registry",
        value: {
          key: "Software\\Microsoft\\Windows\\CurrentVersion\\Run",
          name: layout.instance === null ? name : `${name} ${layout.instance}`,
          data: command,
        },
        startNow: command,
      };
    }
  }
}

/** The systemd user unit of one login entry, enabled by a drop-in of `default.target`. */
function systemdPlan({ host, layout }: Placed, which: AtLogin, described: string): Autostart {
  const launcher = layout.launchers.service;
  const entry = ENTRIES[which];
  const dir = joinPath(host, configHome(host), "systemd", "user");
  const name = `${unitName(layout, which)}.service`;
  const path = joinPath(host, dir, name);
  const text = [
    `# ${LAUNCHER_MARK}`,
    "[Unit]",
    `Description=${described}`,
    // The shores reach the service, which this unit does not start itself.
    ...(which === "remotes" ? [`After=${unitName(layout)}.service`] : []),
    "",
    "[Service]",
    `ExecStart="${launcher}" ${entry.args.join(" ")}`,
    "Restart=on-failure",
    // A connector may already have started one on demand: not a failure to retry. A shore
    // that gave up (eight failed setups) waits a minute; a refusal is not retried.
    ...(which === "service"
      ? [`RestartPreventExitStatus=${ALREADY_RUNNING_EXIT}`]
      : ["RestartSec=60", `RestartPreventExitStatus=${REFUSED_EXIT}`]),
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
      path: joinPath(host, dir, "default.target.d", `${unitName(layout, which)}.conf`),
      text: enable,
    },
    legacyLink: which === "service"
      ? { path: joinPath(host, dir, "default.target.wants", name), target: path }
      : null,
    startNow: `systemctl --user daemon-reload && systemctl --user start ${name}`,
  };
}
