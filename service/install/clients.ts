/**
 * The MCP clients install registers Ghostlight with: where each keeps its user-level
 * configuration per operating system, in which format, under which key, and what one
 * server entry looks like there. One row per client; the JSONC and TOML editors do the rest.
 *
 * @module
 */

import { z } from "zod";
import {
  appData,
  applicationSupport,
  configHome,
  homeOf,
  type Host,
  joinPath,
  localAppData,
} from "./host.ts";

/** The clients install knows. */
export const ClientId = z.enum([
  "claude-desktop",
  "claude-code",
  "cursor",
  "vscode",
  "windsurf",
  "zed",
  "codex",
  "opencode",
  "crush",
]);
export type ClientId = z.infer<typeof ClientId>;

/** The command line an entry starts. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** One client's configuration file and entry format. */
export interface ClientRow {
  name: string;
  format: "json" | "toml";
  /** The user-level configuration file on `host`. */
  configPath(host: Host): string;
  /** Paths whose existence shows the client is used on this machine. */
  markers(host: Host): string[];
  /**
   * The key path of the object that holds servers by name, given the parsed document (OpenCode
   * has two layouts).
   */
  container(document: unknown): string[];
  /** The entry install writes. */
  entry(server: ServerCommand): Record<string, unknown>;
  /** Reads the command line of an entry in this client's format; null when it has none. */
  readEntry(entry: unknown): ServerCommand | null;
}

const StdioEntry = z.object({
  command: z.string(),
  args: z.array(z.string()).optional(),
}).passthrough();

function readStdio(entry: unknown): ServerCommand | null {
  const parsed = StdioEntry.safeParse(entry);
  return parsed.success ? { command: parsed.data.command, args: parsed.data.args ?? [] } : null;
}

/** `{command, args}`: Claude Desktop, Cursor and Windsurf. */
function plainEntry(server: ServerCommand): Record<string, unknown> {
  return { command: server.command, args: server.args };
}

/** `{type: "stdio", command, args}`: Claude Code, VS Code and Crush name the transport. */
function typedEntry(server: ServerCommand): Record<string, unknown> {
  return { type: "stdio", command: server.command, args: server.args };
}

const OpenCodeEntry = z.object({
  type: z.literal("local"),
  command: z.array(z.string()).min(1),
}).passthrough();

const OpenCodeDocument = z.object({
  mcp: z.object({ servers: z.record(z.string(), z.unknown()) }).passthrough(),
}).passthrough();

const fixed = (key: string) => () => [key];

/** Every client, by id. */
export const CLIENTS: Readonly<Record<ClientId, ClientRow>> = {
  "claude-desktop": {
    name: "Claude Desktop",
    format: "json",
    configPath: (host) => joinPath(host, claudeDesktopDir(host), "claude_desktop_config.json"),
    markers: (host) => [claudeDesktopDir(host)],
    container: fixed("mcpServers"),
    entry: plainEntry,
    readEntry: readStdio,
  },
  "claude-code": {
    name: "Claude Code",
    format: "json",
    configPath: (host) => joinPath(host, homeOf(host), ".claude.json"),
    markers: (host) => [
      joinPath(host, homeOf(host), ".claude.json"),
      joinPath(host, homeOf(host), ".claude"),
    ],
    container: fixed("mcpServers"),
    entry: typedEntry,
    readEntry: readStdio,
  },
  "cursor": {
    name: "Cursor",
    format: "json",
    configPath: (host) => joinPath(host, homeOf(host), ".cursor", "mcp.json"),
    markers: (host) => [joinPath(host, homeOf(host), ".cursor")],
    container: fixed("mcpServers"),
    entry: plainEntry,
    readEntry: readStdio,
  },
  "vscode": {
    name: "VS Code",
    format: "json",
    configPath: (host) => joinPath(host, vscodeUserDir(host), "mcp.json"),
    markers: (host) => [vscodeUserDir(host)],
    container: fixed("servers"),
    entry: typedEntry,
    readEntry: readStdio,
  },
  "windsurf": {
    name: "Windsurf",
    format: "json",
    configPath: (host) => joinPath(host, homeOf(host), ".codeium", "windsurf", "mcp_config.json"),
    markers: (host) => [joinPath(host, homeOf(host), ".codeium", "windsurf")],
    container: fixed("mcpServers"),
    entry: plainEntry,
    readEntry: readStdio,
  },
  "zed": {
    name: "Zed",
    format: "json",
    configPath: (host) => joinPath(host, zedDir(host), "settings.json"),
    markers: (host) => [zedDir(host)],
    container: fixed("context_servers"),
    entry: (server) => ({ source: "custom", command: server.command, args: server.args }),
    readEntry: readStdio,
  },
  "codex": {
    name: "Codex",
    format: "toml",
    configPath: (host) => joinPath(host, codexDir(host), "config.toml"),
    markers: (host) => [codexDir(host)],
    container: fixed("mcp_servers"),
    entry: plainEntry,
    readEntry: readStdio,
  },
  "opencode": {
    name: "OpenCode",
    format: "json",
    configPath: (host) => joinPath(host, configHome(host), "opencode", "opencode.json"),
    markers: (host) => [joinPath(host, configHome(host), "opencode")],
    // OpenCode 1 keeps servers right under "mcp"; 2 under "mcp.servers". A file that already
    // has the second shape is written in it; otherwise the first, which both read.
    container: (document) =>
      OpenCodeDocument.safeParse(document).success ? ["mcp", "servers"] : ["mcp"],
    entry: (server) => ({
      type: "local",
      command: [server.command, ...server.args],
      enabled: true,
    }),
    readEntry: (entry) => {
      const parsed = OpenCodeEntry.safeParse(entry);
      if (!parsed.success) return null;
      const [command, ...args] = parsed.data.command;
      return { command, args };
    },
  },
  "crush": {
    name: "Crush",
    format: "json",
    configPath: (host) => joinPath(host, crushDir(host), "crush.json"),
    markers: (host) => [crushDir(host)],
    container: fixed("mcp"),
    entry: typedEntry,
    readEntry: readStdio,
  },
};

function claudeDesktopDir(host: Host): string {
  switch (host.platform) {
    case "darwin":
      return joinPath(host, applicationSupport(host), "Claude");
    case "windows":
      return joinPath(host, appData(host), "Claude");
    case "linux":
      // No official Linux build; the community builds keep Anthropic's layout under XDG.
      return joinPath(host, configHome(host), "Claude");
  }
}

function vscodeUserDir(host: Host): string {
  switch (host.platform) {
    case "darwin":
      return joinPath(host, applicationSupport(host), "Code", "User");
    case "windows":
      return joinPath(host, appData(host), "Code", "User");
    case "linux":
      return joinPath(host, configHome(host), "Code", "User");
  }
}

function zedDir(host: Host): string {
  return host.platform === "windows"
    ? joinPath(host, appData(host), "Zed")
    : joinPath(host, configHome(host), "zed");
}

function codexDir(host: Host): string {
  return host.env("CODEX_HOME") || joinPath(host, homeOf(host), ".codex");
}

function crushDir(host: Host): string {
  return host.platform === "windows"
    ? joinPath(host, localAppData(host), "crush")
    : joinPath(host, configHome(host), "crush");
}
