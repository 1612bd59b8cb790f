/**
 * `ghostlight install` and `uninstall` against a temporary HOME seeded with the kind of client
 * configurations people really have: comments, trailing commas, other servers, odd indentation,
 * CRLF, a file that does not parse, a foreign entry under our name. Install, install again (no
 * byte changes), uninstall (every seeded file as before; nothing of ours left but backups).
 */

import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc } from "jsonc-parser";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { cli, makeTestEnv, type TestEnv } from "./support/env.ts";
import { ghostlight, runCommand } from "./support/processes.ts";

/** Every file, folder and link under `root`, with the bytes' digest and the mode. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      const info = await Deno.lstat(path);
      const mode = (info.mode ?? 0) & 0o777;
      if (entry.isSymlink) seen.set(path, `link ${await Deno.readLink(path)}`);
      else if (entry.isDirectory) {
        seen.set(path, `dir ${mode.toString(8)}`);
        await walk(path);
      } else {
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
        seen.set(
          path,
          `file ${mode.toString(8)} ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`,
        );
      }
    }
  };
  await walk(root);
  return seen;
}

function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [path, what] of after) {
    if (before.get(path) !== what) out.push(`${before.has(path) ? "changed" : "added"} ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) out.push(`removed ${path}`);
  return out.sort();
}

/** The seeded files, relative to HOME (XDG_CONFIG_HOME is HOME/config in tests). */
function seeds(server: string): Record<string, string> {
  return {
    // Claude Code: a big state file it rewrites itself, another server, our name taken.
    ".claude.json": JSON.stringify(
      {
        numStartups: 12,
        projects: { "/home/u/src": { allowedTools: [], history: [{ display: "hi" }] } },
        mcpServers: {
          github: { type: "stdio", command: "npx", args: ["-y", "@github/mcp"] },
          [server]: { type: "stdio", command: "/opt/other/thing", args: ["--serve"] },
        },
      },
      null,
      2,
    ),
    // Cursor: comments and trailing commas.
    ".cursor/mcp.json": '{\n  // my servers\n  "mcpServers": {\n    "fs": {\n' +
      '      "command": "npx", // pinned below\n      "args": ["-y", "@mcp/fs@1.0.0",],\n' +
      "    },\n  },\n}\n",
    // VS Code: tabs, an inputs list, a block comment.
    "config/Code/User/mcp.json": '{\n\t/* managed by hand */\n\t"servers": {\n\t\t"py": {\n' +
      '\t\t\t"type": "stdio",\n\t\t\t"command": "uvx",\n\t\t\t"args": ["mcp-py"]\n\t\t}\n\t},\n' +
      '\t"inputs": []\n}\n',
    // Windsurf: three-space indentation and CRLF line ends.
    ".codeium/windsurf/mcp_config.json":
      '{\r\n   "mcpServers": {\r\n      "a": { "command": "a" }\r\n   }\r\n}\r\n',
    // Zed: a settings file with no context servers yet.
    "config/zed/settings.json": '// Zed settings\n{\n  "theme": "One Dark",\n' +
      '  "vim_mode": true, // yes\n  "ui_font_size": 16,\n}\n',
    // Codex: TOML with comments and another server.
    ".codex/config.toml": '# Codex\nmodel = "o3"  # the good one\n\n[mcp_servers.docs]\n' +
      'command = "docs-mcp"\nargs = ["--stdio"]\n',
    // OpenCode: half-written, does not parse.
    "config/opencode/opencode.json":
      '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n',
    // Claude Desktop: one line, no servers yet.
    "config/Claude/claude_desktop_config.json": '{"globalShortcut":"Alt+Space"}',
  };
}

async function seed(testEnv: TestEnv): Promise<Record<string, string>> {
  const files = seeds(`ghostlight-${testEnv.instance}`);
  for (const [relative, text] of Object.entries(files)) {
    const path = `${testEnv.home}/${relative}`;
    await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  // Crush is used here but has no file yet; Chromium has its profile folder.
  await Deno.mkdir(`${testEnv.home}/config/crush`, { recursive: true });
  await Deno.mkdir(`${testEnv.home}/config/chromium`, { recursive: true });
  return files;
}

function valueAt(document: unknown, path: string[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string, unknown> | undefined)?.[key],
    document,
  );
}

Deno.test("install, install again, uninstall: seeded configs come back byte for byte", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const files = await seed(testEnv);
    const server = `ghostlight-${testEnv.instance}`;
    const launcher = `${testEnv.home}/.local/bin/${server}-mcp-connector`;
    const seeded = await snapshot(testEnv.home);

    const dry = await ghostlight(testEnv, ["install", "--dry-run"]);
    assertMatch(dry.stdout, /Would install/);
    assertEquals(
      differences(seeded, await snapshot(testEnv.home)),
      [],
      "a dry run changes nothing",
    );

    const first = await ghostlight(testEnv, ["install"]);
    // OpenCode's file does not parse: reported, left alone, and the exit code says so.
    assertEquals(first.code, 1, first.stderr);
    assertMatch(first.stdout, /OpenCode: left untouched, not valid JSON/);
    assertMatch(first.stdout, new RegExp(`the entry "${server}" there runs something else`));
    const home = testEnv.home;
    const read = (relative: string) => Deno.readTextFile(`${home}/${relative}`);

    // Each client's entry starts the launcher with that client's own principal.
    const expectations: [string, string[], string][] = [
      [".claude.json", ["mcpServers", `${server}-2`], "claude-code"],
      [".cursor/mcp.json", ["mcpServers", server], "cursor"],
      ["config/Code/User/mcp.json", ["servers", server], "vscode"],
      [".codeium/windsurf/mcp_config.json", ["mcpServers", server], "windsurf"],
      ["config/zed/settings.json", ["context_servers", server], "zed"],
      ["config/Claude/claude_desktop_config.json", ["mcpServers", server], "claude-desktop"],
      ["config/crush/crush.json", ["mcp", server], "crush"],
    ];
    for (const [relative, path, principal] of expectations) {
      const document = parseJsonc(await read(relative), [], { allowTrailingComma: true });
      const entry = valueAt(document, path) as { command: string; args: string[] };
      assertEquals([entry.command, entry.args], [launcher, ["--principal", principal]], relative);
    }
    const codex = parseToml(await read(".codex/config.toml"));
    assertEquals(valueAt(codex, ["mcp_servers", server]), {
      command: launcher,
      args: ["--principal", "codex"],
    });
    assertEquals(valueAt(codex, ["mcp_servers", "docs", "command"]), "docs-mcp");
    // The foreign entry under our name is still there, untouched.
    const claude = JSON.parse(await read(".claude.json"));
    assertEquals(claude.mcpServers[server].command, "/opt/other/thing");
    assertEquals(
      await read("config/opencode/opencode.json"),
      files["config/opencode/opencode.json"],
    );
    // Every edited file was backed up first, as it was.
    for (const relative of Object.keys(files)) {
      if (relative.startsWith("config/opencode")) continue;
      assertEquals(await read(`${relative}.ghostlight-backup`), files[relative], relative);
    }
    // Comments stay where they were.
    assertMatch(await read(".cursor/mcp.json"), /\/\/ my servers[\s\S]*\/\/ pinned below/);
    assertMatch(await read("config/zed/settings.json"), /^\/\/ Zed settings\n\{\n {2}"theme"/);
    assertMatch(await read(".codeium/windsurf/mcp_config.json"), /\r\n {6}"ghostlight-/);
    // The native host manifest is in Chromium's folder, pointing at the launcher.
    const manifest = JSON.parse(
      await read(
        `config/chromium/NativeMessagingHosts/com.ghostlight.browser_${
          testEnv.instance.replaceAll("-", "_")
        }.json`,
      ),
    );
    assertEquals(manifest.path, `${home}/.local/bin/${server}-browser-connector`);
    assertMatch(manifest.allowed_origins[0], /^chrome-extension:\/\/[a-p]{32}\/$/);

    const installed = await snapshot(home);
    const second = await ghostlight(testEnv, ["install"]);
    assertEquals(second.code, 1, second.stderr);
    assertMatch(second.stdout, /Nothing to change/);
    assertEquals(second.stdout.match(/^ {2}added .*/m), null, "nothing is 'added' a second time");
    assertEquals(
      differences(installed, await snapshot(home)),
      [],
      "a second install changes no byte",
    );

    const removed = await ghostlight(testEnv, ["uninstall"]);
    assertEquals(removed.code, 0, removed.stdout + removed.stderr);
    const again = await ghostlight(testEnv, ["uninstall"]);
    assertEquals(again.code, 0, again.stdout + again.stderr);
    assertMatch(again.stdout, /^Nothing to remove: Ghostlight is not installed in /);
    const left = differences(seeded, await snapshot(home));
    assertEquals(
      left.filter((line) => !/^added .*\.ghostlight-backup$/.test(line)),
      [],
      "only backups are left",
    );
    for (const [relative, text] of Object.entries(files)) {
      assertEquals(await read(relative), text, relative);
    }
    assert(left.length === Object.keys(files).length - 1, left.join("\n"));
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("with no client and no browser found, install says what to give a client by hand", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const dry = await ghostlight(testEnv, ["install", "--dry-run", "--no-autostart"]);
    const connector = `${testEnv.home}/.local/bin/ghostlight-${testEnv.instance}-mcp-connector`;
    assert(dry.stdout.includes(`No MCP client was found`), dry.stdout);
    assert(
      dry.stdout.includes(`the local server command ${connector} with the arguments --principal`),
      dry.stdout,
    );
    assertMatch(dry.stdout, /No Chromium-family browser's profile folder was found/);
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("two instances in one client file: each uninstall takes out its own entry alone", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const home = testEnv.home;
    const files: Record<string, string> = {
      "config/Claude/claude_desktop_config.json": '{\n  "globalShortcut": "Alt+Space",\n' +
        '  "mcpServers": {\n    "x": { "command": "x" }\n  }\n}\n',
      ".codex/config.toml": '# Codex\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
    };
    for (const [relative, text] of Object.entries(files)) {
      await Deno.mkdir(`${home}/${relative}`.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(`${home}/${relative}`, text);
    }
    const claude = `${home}/config/Claude/claude_desktop_config.json`;
    const servers = async () => Object.keys(JSON.parse(await Deno.readTextFile(claude)).mcpServers);
    const codex = async () =>
      Object.keys(parseToml(await Deno.readTextFile(`${home}/.codex/config.toml`)).mcp_servers);
    const [a, b] = [testEnv.instance, `${testEnv.instance}b`];
    const run = async (instance: string, args: string[]) => {
      const { command, args: full } = cli(testEnv, ["--instance", instance, ...args]);
      const result = await runCommand(testEnv, command, full);
      assertEquals(result.code, 0, `${instance} ${args[0]}: ${result.stdout}${result.stderr}`);
    };
    // Taken out first-in-first-out, then last-in-first-out: each time the other instance's entry
    // stays as it is, and the file ends as it began, byte for byte.
    for (const order of [[a, b], [b, a]]) {
      await run(a, ["install", "--no-autostart"]);
      await run(b, ["install", "--no-autostart"]);
      assertEquals(await servers(), ["x", `ghostlight-${a}`, `ghostlight-${b}`]);
      await run(order[0], ["uninstall"]);
      assertEquals(await servers(), ["x", `ghostlight-${order[1]}`]);
      assertEquals(await codex(), ["docs", `ghostlight-${order[1]}`]);
      await run(order[1], ["uninstall"]);
      for (const [relative, text] of Object.entries(files)) {
        assertEquals(await Deno.readTextFile(`${home}/${relative}`), text, relative);
      }
    }
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("an entry from before principals: install leaves it and says so, uninstall removes it", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const home = testEnv.home;
    const server = `ghostlight-${testEnv.instance}`;
    const launcher = `${home}/.local/bin/${server}-mcp-connector`;
    const path = `${home}/.cursor/mcp.json`;
    const before = '{\n  "mcpServers": {\n    "fs": { "command": "npx" }\n  }\n}\n';
    // What an install from before principals wrote: the launcher with no arguments.
    const old = '{\n  "mcpServers": {\n    "fs": { "command": "npx" },\n' +
      `    "${server}": { "command": "${launcher}", "args": [] }\n  }\n}\n`;
    await Deno.mkdir(`${home}/.cursor`, { recursive: true });
    await Deno.writeTextFile(path, old);
    const installed = await ghostlight(testEnv, [
      "install",
      "--client",
      "cursor",
      "--no-autostart",
    ]);
    assertEquals(installed.code, 0, installed.stdout + installed.stderr);
    assertMatch(
      installed.stdout,
      /started without a principal \(your policy's grants see it as unnamed\)/,
    );
    assertEquals(await Deno.readTextFile(path), old, "no second entry beside the old one");
    const removed = await ghostlight(testEnv, ["uninstall"]);
    assertEquals(removed.code, 0, removed.stdout + removed.stderr);
    assertEquals(JSON.parse(await Deno.readTextFile(path)), JSON.parse(before));
    // Installed afresh, the entry has its principal, and uninstall gives the bytes back.
    await Deno.writeTextFile(path, before);
    const fresh = await ghostlight(testEnv, ["install", "--client", "cursor", "--no-autostart"]);
    assertEquals(fresh.code, 0, fresh.stdout + fresh.stderr);
    const entry = JSON.parse(await Deno.readTextFile(path)).mcpServers[server];
    assertEquals(entry, { command: launcher, args: ["--principal", "cursor"] });
    assertEquals((await ghostlight(testEnv, ["uninstall"])).code, 0);
    assertEquals(await Deno.readTextFile(path), before);
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("install refuses a client config linked outside home and one that is a FIFO, without hanging", async () => {
  const testEnv = await makeTestEnv("inst");
  const outside = await Deno.makeTempFile({ prefix: "ghostlight-outside-", suffix: ".json" });
  try {
    const home = testEnv.home;
    const outsideText = '{ "mcpServers": {} }\n';
    await Deno.writeTextFile(outside, outsideText);
    await Deno.mkdir(`${home}/.cursor`, { recursive: true });
    await Deno.symlink(outside, `${home}/.cursor/mcp.json`);
    // A FIFO nobody writes to: reading it would wait forever.
    const made = await new Deno.Command("mkfifo", { args: [`${home}/.claude.json`] }).output();
    assert(made.success);
    // A link that stays inside home is a person's dotfiles: it is followed and edited.
    await Deno.mkdir(`${home}/dotfiles`, { recursive: true });
    await Deno.writeTextFile(`${home}/dotfiles/windsurf.json`, '{ "mcpServers": {} }\n');
    await Deno.mkdir(`${home}/.codeium/windsurf`, { recursive: true });
    await Deno.symlink(
      `${home}/dotfiles/windsurf.json`,
      `${home}/.codeium/windsurf/mcp_config.json`,
    );

    const { command, args } = cli(testEnv, ["--instance", testEnv.instance, "install"]);
    const output = await new Deno.Command(command, {
      args,
      env: testEnv.env,
      clearEnv: true,
      stdin: "null",
      // A hang is a failure, not a stuck suite.
      signal: AbortSignal.timeout(120_000),
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assertEquals(output.signal, null, `install hung: ${stdout}`);
    assertMatch(stdout, /Cursor: left untouched, it is a link to .*, outside your home folder/);
    assertMatch(stdout, /Claude Code: left untouched, it is a FIFO \(named pipe\)/);
    assertEquals(
      await Deno.readTextFile(outside),
      outsideText,
      "the file outside home is as it was",
    );
    assert((await Deno.lstat(`${home}/.claude.json`)).isFifo);
    assertMatch(await Deno.readTextFile(`${home}/dotfiles/windsurf.json`), /ghostlight-/);
    assert((await Deno.lstat(`${home}/.codeium/windsurf/mcp_config.json`)).isSymlink);
  } finally {
    await Deno.remove(outside);
    await testEnv.dispose();
  }
});
