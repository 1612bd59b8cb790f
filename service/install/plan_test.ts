/**
 * The install plan per operating system: where each file goes and what Windows writes to the
 * registry, checked on any machine because every location is a pure function of the host.
 */

import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { resolveInstancePaths } from "../../shared/instance.ts";
import { autostartPlan } from "./autostart.ts";
import { BrowserId, hostRegistration } from "./browsers.ts";
import { ClientId, CLIENTS } from "./clients.ts";
import type { Host, Platform } from "./host.ts";
import { LAUNCHER_MARK, launcherScript, serviceEntryScript } from "./launchers.ts";
import { installLayout } from "./layout.ts";
import { regAddArgs, regDeleteArgs } from "./windows.ts";

const HOMES: Record<Platform, Record<string, string>> = {
  linux: { HOME: "/home/u" },
  darwin: { HOME: "/Users/u" },
  windows: {
    USERPROFILE: "C:\\Users\\u",
    APPDATA: "C:\\Users\\u\\AppData\\Roaming",
    LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local",
  },
};

function hostOf(platform: Platform): Host {
  return { platform, env: (key) => HOMES[platform][key] };
}

function layoutOf(platform: Platform, instance: string | null = null) {
  const host = hostOf(platform);
  const paths = resolveInstancePaths(instance, (key) => key === "HOME" ? "/h" : undefined);
  return { host, layout: installLayout(host, paths) };
}

Deno.test("an instance keeps its own prefix, launchers, host name and server name", () => {
  const { layout } = layoutOf("linux", "work");
  assertEquals(layout.prefix, "/home/u/.local/share/ghostlight-work");
  assertEquals(layout.launchers, {
    "service": "/home/u/.local/bin/ghostlight-work",
    "mcp-connector": "/home/u/.local/bin/ghostlight-work-mcp-connector",
    "browser-connector": "/home/u/.local/bin/ghostlight-work-browser-connector",
  });
  assertEquals(layout.nativeHostName, "com.ghostlight.browser_work");
  assertEquals(layout.serverName, "ghostlight-work");
  const plain = layoutOf("linux").layout;
  assertEquals(plain.prefix, "/home/u/.local/share/ghostlight");
  assertEquals(plain.launchers["mcp-connector"], "/home/u/.local/bin/ghostlight-mcp-connector");
});

Deno.test("native host manifests go where each browser looks, per operating system", () => {
  const expected: Record<Exclude<Platform, "windows">, Record<BrowserId, string>> = {
    linux: {
      chromium: "/home/u/.config/chromium/NativeMessagingHosts",
      chrome: "/home/u/.config/google-chrome/NativeMessagingHosts",
      edge: "/home/u/.config/microsoft-edge/NativeMessagingHosts",
      brave: "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    },
    darwin: {
      chromium: "/Users/u/Library/Application Support/Chromium/NativeMessagingHosts",
      chrome: "/Users/u/Library/Application Support/Google/Chrome/NativeMessagingHosts",
      edge: "/Users/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts",
      brave:
        "/Users/u/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    },
  };
  for (const platform of ["linux", "darwin"] as const) {
    const { host, layout } = layoutOf(platform);
    for (const browser of BrowserId.options) {
      assertEquals(
        hostRegistration({ host, layout }, browser),
        {
          kind: "file",
          browser,
          manifestPath: `${expected[platform][browser]}/com.ghostlight.browser.json`,
        },
      );
    }
  }
});

Deno.test("on Windows each browser's HKCU key names one manifest in the prefix", () => {
  const { host, layout } = layoutOf("windows", "work");
  const manifest =
    "C:\\Users\\u\\AppData\\Local\\ghostlight-work\\native-host\\com.ghostlight.browser_work.json";
  const keys: Record<BrowserId, string> = {
    chromium: "Software\\Chromium\\NativeMessagingHosts\\com.ghostlight.browser_work",
    chrome: "Software\\Google\\Chrome\\NativeMessagingHosts\\com.ghostlight.browser_work",
    edge: "Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.ghostlight.browser_work",
    brave:
      "Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.ghostlight.browser_work",
  };
  for (const browser of BrowserId.options) {
    const registration = hostRegistration({ host, layout }, browser);
    assertEquals(registration, {
      kind: "registry",
      browser,
      manifestPath: manifest,
      value: { key: keys[browser], name: "", data: manifest },
    });
    if (registration.kind !== "registry") continue;
    assertEquals(regAddArgs(registration.value), [
      "add",
      `HKCU\\${keys[browser]}`,
      "/ve",
      "/t",
      "REG_SZ",
      "/d",
      manifest,
      "/f",
    ]);
    assertEquals(regDeleteArgs(registration.value), ["delete", `HKCU\\${keys[browser]}`, "/f"]);
  }
  assertEquals(
    layout.launchers["browser-connector"],
    "C:\\Users\\u\\AppData\\Local\\ghostlight-work\\bin\\ghostlight-work-browser-connector.cmd",
  );
});

Deno.test("each client's configuration file, per operating system", () => {
  const expected: Record<Platform, Record<ClientId, string>> = {
    linux: {
      "claude-desktop": "/home/u/.config/Claude/claude_desktop_config.json",
      "claude-code": "/home/u/.claude.json",
      "cursor": "/home/u/.cursor/mcp.json",
      "vscode": "/home/u/.config/Code/User/mcp.json",
      "windsurf": "/home/u/.codeium/windsurf/mcp_config.json",
      "zed": "/home/u/.config/zed/settings.json",
      "codex": "/home/u/.codex/config.toml",
      "opencode": "/home/u/.config/opencode/opencode.json",
      "crush": "/home/u/.config/crush/crush.json",
    },
    darwin: {
      "claude-desktop": "/Users/u/Library/Application Support/Claude/claude_desktop_config.json",
      "claude-code": "/Users/u/.claude.json",
      "cursor": "/Users/u/.cursor/mcp.json",
      "vscode": "/Users/u/Library/Application Support/Code/User/mcp.json",
      "windsurf": "/Users/u/.codeium/windsurf/mcp_config.json",
      "zed": "/Users/u/.config/zed/settings.json",
      "codex": "/Users/u/.codex/config.toml",
      "opencode": "/Users/u/.config/opencode/opencode.json",
      "crush": "/Users/u/.config/crush/crush.json",
    },
    windows: {
      "claude-desktop": "C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
      "claude-code": "C:\\Users\\u\\.claude.json",
      "cursor": "C:\\Users\\u\\.cursor\\mcp.json",
      "vscode": "C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json",
      "windsurf": "C:\\Users\\u\\.codeium\\windsurf\\mcp_config.json",
      "zed": "C:\\Users\\u\\AppData\\Roaming\\Zed\\settings.json",
      "codex": "C:\\Users\\u\\.codex\\config.toml",
      "opencode": "C:\\Users\\u\\.config\\opencode\\opencode.json",
      "crush": "C:\\Users\\u\\AppData\\Local\\crush\\crush.json",
    },
  };
  for (const platform of ["linux", "darwin", "windows"] as const) {
    for (const client of ClientId.options) {
      assertEquals(CLIENTS[client].configPath(hostOf(platform)), expected[platform][client]);
    }
  }
});

Deno.test("each client gets its own entry shape", () => {
  const server = { command: "/b/ghostlight-mcp-connector", args: [] };
  assertEquals(CLIENTS["claude-code"].entry(server), { type: "stdio", ...server });
  assertEquals(CLIENTS["zed"].entry(server), { source: "custom", ...server });
  assertEquals(CLIENTS["opencode"].entry(server), {
    type: "local",
    command: ["/b/ghostlight-mcp-connector"],
    enabled: true,
  });
  assertEquals(CLIENTS["opencode"].container({ mcp: { servers: {} } }), ["mcp", "servers"]);
  assertEquals(CLIENTS["opencode"].container({ mcp: { x: {} } }), ["mcp"]);
  assertEquals(CLIENTS["vscode"].container({}), ["servers"]);
});

Deno.test("launchers come from the start plan: pinned paths, each start's set and flags", () => {
  const { host, layout } = layoutOf("linux", "work");
  const prefix = "/home/u/.local/share/ghostlight-work";
  const sources = { kind: "sources" as const, denoDir: "/c/deno" };
  const cli = launcherScript({ host, layout }, { mode: sources, executable: "service" });
  const lines = cli.split("\n");
  assertEquals(lines.slice(2, 6), [
    `# ${LAUNCHER_MARK}`,
    "HOME='/home/u'; export HOME",
    "DENO_DIR='/c/deno'; export DENO_DIR",
    "GHOSTLIGHT_INSTANCE='work'; export GHOSTLIGHT_INSTANCE",
  ]);
  const after = (label: string) => lines[lines.indexOf(label) + 1];
  const run = `exec '${prefix}/runtime/deno' 'run' '-q' '--no-prompt'`;
  // doctor: the installer, reaching the sockets and the service entry, writing nothing else.
  assertMatch(after("  doctor)"), new RegExp(`^ {4}${run} '-P=installer' `));
  assertMatch(after("  doctor)"), new RegExp(`'--allow-run=${prefix}/service-entry' `));
  assertMatch(after("  doctor)"), /'--allow-write=[^']*\/bridge\.sock,[^']*\/control\.sock'/);
  // install, uninstall, audit and policy: the installer, writing the home folder, running
  // nothing.
  assertMatch(
    after("  install|uninstall|audit|policy)"),
    /'-P=installer' .*'--allow-write=\/home\/u' /,
  );
  assertEquals(after("  install|uninstall|audit|policy)").includes("--allow-run"), false);
  assertMatch(
    after("  install|uninstall|audit|policy)"),
    new RegExp(`'${prefix}/app/service/installer.ts'`),
  );
  // browser launch: the service, which may run Chromium's watcher (decision 0640); anything
  // else: the service.
  assertMatch(after("  browser)"), /'-P=service' .*'--allow-run=\/bin\/sh' /);
  assertMatch(
    lines.at(-2)!,
    new RegExp(`^${run} '-P=service' .*'${prefix}/app/service/main.ts' "\\$@"$`),
  );
  assertEquals(lines.at(-2)!.includes("--allow-run"), false);

  const plain = layoutOf("linux").layout;
  const compiled = { kind: "compiled" as const };
  const connector = launcherScript({ host, layout: plain }, {
    mode: compiled,
    executable: "mcp-connector",
  });
  assertMatch(connector, /\nunset GHOSTLIGHT_INSTANCE\n/);
  const libexec = "/home/u/.local/share/ghostlight/libexec";
  assertMatch(
    connector,
    new RegExp(
      `\nexec '${libexec}/ghostlight-mcp-connector' '--service-entry' ` +
        `'/home/u/.local/share/ghostlight/service-entry' "\\$@"\n$`,
    ),
  );
  const windows = layoutOf("windows", "work");
  const cmd = launcherScript(windows, { mode: sources, executable: "service" }).split("\r\n");
  const route = (command: string) => cmd.find((line) => line.includes(`"%~1"=="${command}"`));
  for (const command of ["install", "uninstall", "audit", "policy"]) {
    assertEquals(route(command), `if /i "%~1"=="${command}" goto installer`, command);
  }
  assertEquals(route("doctor"), 'if /i "%~1"=="doctor" goto doctor');
  assertEquals(route("browser"), 'if /i "%~1"=="browser" goto browser');
  const label = (name: string) => cmd[cmd.indexOf(name) + 1];
  assertMatch(label(":installer"), /"-P=installer"/);
  assertMatch(label(":browser"), /"-P=service" .*"--allow-run=/);

  const entry = serviceEntryScript({ host, layout: plain }, compiled);
  assertMatch(entry, new RegExp(`\n# ${LAUNCHER_MARK}\n`));
  assertMatch(
    entry,
    new RegExp(`\nexec /usr/bin/env -i 'HOME=/home/u' .* '${libexec}/ghostlight' "\\$@"\n$`),
  );
});

Deno.test("auto-start: a systemd user unit, a LaunchAgent, a Run value", () => {
  const linux = layoutOf("linux");
  const unit = autostartPlan(linux);
  assertEquals(
    unit.kind === "files" && unit.file.path,
    "/home/u/.config/systemd/user/ghostlight.service",
  );
  // Enabled by a drop-in of default.target, a regular file: Deno lets the installer make no
  // symbolic link (decision 0084).
  assertEquals(
    unit.kind === "files" && unit.enable?.path,
    "/home/u/.config/systemd/user/default.target.d/ghostlight.conf",
  );
  assertMatch(
    unit.kind === "files" ? unit.enable!.text : "",
    /\n\[Unit\]\nWants=ghostlight\.service\n/,
  );
  assertEquals(
    unit.kind === "files" && unit.legacyLink,
    {
      path: "/home/u/.config/systemd/user/default.target.wants/ghostlight.service",
      target: "/home/u/.config/systemd/user/ghostlight.service",
    },
  );
  assertMatch(
    unit.kind === "files" ? unit.file.text : "",
    /\nExecStart="\/home\/u\/.local\/bin\/ghostlight" service\n/,
  );
  const mac = layoutOf("darwin", "work");
  const agent = autostartPlan(mac);
  assertEquals(
    agent.kind === "files" && agent.file.path,
    "/Users/u/Library/LaunchAgents/com.ghostlight.service.work.plist",
  );
  const windows = layoutOf("windows");
  assertEquals(autostartPlan(windows), {
    kind: "registry",
    value: {
      key: "Software\\Microsoft\\Windows\\CurrentVersion\\Run",
      name: "Ghostlight",
      data: '"C:\\Users\\u\\AppData\\Local\\ghostlight\\bin\\ghostlight.cmd" service',
    },
    startNow: '"C:\\Users\\u\\AppData\\Local\\ghostlight\\bin\\ghostlight.cmd" service',
  });
});

Deno.test("auto-start of the remote shores: its own unit, agent and Run value, after the service", () => {
  const linux = layoutOf("linux", "work");
  const unit = autostartPlan(linux, "remotes");
  assert(unit.kind === "files");
  assertEquals(unit.file.path, "/home/u/.config/systemd/user/ghostlight-work-remotes.service");
  assertMatch(
    unit.file.text,
    /\nAfter=ghostlight-work\.service\n[\s\S]*\nExecStart="\/home\/u\/.local\/bin\/ghostlight-work" remote start --at-login\n/,
  );
  // A shore that gave up waits before the next try; a refusal (a compiled install) is final.
  assertMatch(unit.file.text, /\nRestartSec=60\nRestartPreventExitStatus=2\n/);
  assertEquals(
    unit.enable?.path,
    "/home/u/.config/systemd/user/default.target.d/ghostlight-work-remotes.conf",
  );
  assertMatch(unit.enable!.text, /\nWants=ghostlight-work-remotes\.service\n/);
  assertEquals(unit.legacyLink, null);
  // The service's own unit is unchanged by it.
  const service = autostartPlan(linux);
  assert(service.kind === "files");
  assertEquals(service.file.path, "/home/u/.config/systemd/user/ghostlight-work.service");
  assertMatch(service.file.text, /\nExecStart="[^"]+" service\n/);

  const agent = autostartPlan(layoutOf("darwin"), "remotes");
  assert(agent.kind === "files");
  assertEquals(agent.file.path, "/Users/u/Library/LaunchAgents/com.ghostlight.remotes.plist");
  assertMatch(
    agent.file.text,
    /<string>remote<\/string>\n {4}<string>start<\/string>\n {4}<string>--at-login<\/string>/,
  );
  assertEquals(autostartPlan(layoutOf("windows"), "remotes"), {
    kind: "registry",
    value: {
      key: "Software\\Microsoft\\Windows\\CurrentVersion\\Run",
      name: "Ghostlight remotes",
      data:
        '"C:\\Users\\u\\AppData\\Local\\ghostlight\\bin\\ghostlight.cmd" remote start --at-login',
    },
    startNow:
      '"C:\\Users\\u\\AppData\\Local\\ghostlight\\bin\\ghostlight.cmd" remote start --at-login',
  });
});
