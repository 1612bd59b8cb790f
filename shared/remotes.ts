/**
 * The person's remotes (issue 31, decision 0400): agent hosts elsewhere that the remote shore
 * dials out to. One owner-only file in the instance's config folder lists them, each with its
 * address, its wire binding and its tool pin; each token lives in a file of its own beside it,
 * owner-only, read by the shore for its handshake and by nothing else. The service reads the list
 * to bind a shore's connection to `remote:NAME` and to its pin; the shore reads it to know where
 * to dial. Only `ghostlight remote ...` writes them.
 *
 * @module
 */

import { z } from "zod";
import { readRegularText } from "./files.ts";
import type { InstancePaths } from "./instance.ts";

/** A remote's name: what the person calls it, and the second half of its principal. */
export const RemoteName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, {
  message: "a remote's name is 1 to 32 lowercase letters, digits and dashes, starting with a " +
    "letter",
});
export type RemoteName = z.infer<typeof RemoteName>;

/** The principal of a remote's connection: bound by the service, never said by the remote. */
export const RemotePrincipal = z.string().regex(/^remote:[a-z][a-z0-9-]{0,31}$/, {
  message: "a remote principal is remote: and the remote's name",
});

/** The principal the service binds to a shore's connection for remote `name`. */
export function remotePrincipal(name: RemoteName): string {
  return `remote:${name}`;
}

/** The wire bindings of MCP-over-ACP (docs/remote.md, decision 0460). */
export const Binding = z.enum(["acp", "openab"]);
export type Binding = z.infer<typeof Binding>;

/** A tool's name as a pin lists it. */
const ToolName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/** Hosts a plain `ws://` may reach: this machine only (for tests and a local agent host). */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Reads an agent host's address: `wss://` anywhere, `ws://` to loopback only; no user name or
 * password in it (a token goes in its own file), no fragment. Throws with the reason.
 */
export function readRemoteUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${JSON.stringify(raw.slice(0, 200))} is not a URL (e.g. wss://host/acp)`);
  }
  if (url.protocol !== "wss:" && url.protocol !== "ws:") {
    throw new Error(
      `a remote's URL starts with wss:// (or ws:// to this machine), not ${url.protocol}`,
    );
  }
  if (url.protocol === "ws:" && !LOOPBACK.has(url.hostname)) {
    throw new Error(
      `ws:// is not encrypted, so it may reach only this machine (127.0.0.1, [::1], localhost); ` +
        `use wss://${url.host}${url.pathname}`,
    );
  }
  if (url.username || url.password) {
    throw new Error("a remote's URL carries no user name or password; pass --token-file instead");
  }
  if (url.hash) throw new Error("a remote's URL has no #fragment");
  if (url.href.length > 2_000) throw new Error("a remote's URL is at most 2,000 characters");
  return url;
}

/** The one host and port a remote's URL reaches: the shore's only network grant. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "wss:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/** One remote, as the file keeps it. */
export const Remote = z.object({
  name: RemoteName,
  url: z.string().max(2_000).refine((raw) => {
    try {
      readRemoteUrl(raw);
      return true;
    } catch {
      return false;
    }
  }, { message: "not a wss:// URL, or a ws:// URL to this machine" }),
  binding: Binding,
  /** The tools this remote may see and call; empty denies all (the default). */
  tools: z.array(ToolName).max(64),
  /** Whether a token file is kept for it. */
  token: z.boolean(),
  /** Whether `remote start --at-login` (the login entry install writes) starts it (decision 0532). */
  atLogin: z.boolean().optional(),
}).strict();
export type Remote = z.infer<typeof Remote>;

/** The remotes file. */
export const RemotesFile = z.object({
  version: z.literal(1),
  remotes: z.array(Remote).max(32).refine(
    (list) => new Set(list.map((remote) => remote.name)).size === list.length,
    { message: "two remotes have the same name" },
  ),
}).strict();
export type RemotesFile = z.infer<typeof RemotesFile>;

/** The largest remotes file read. */
export const MAX_REMOTES_BYTES = 256 * 1024;
/** The largest token file read. */
export const MAX_TOKEN_BYTES = 4 * 1024;

/** Where the remotes file is. */
export function remotesFile(paths: InstancePaths): string {
  return `${paths.configDir}/remotes.json`;
}

/** Where remote `name`'s token is kept. */
export function tokenFile(paths: InstancePaths, name: RemoteName): string {
  return `${paths.configDir}/remote-${name}.token`;
}

/** The remotes the person configured; none when there is no file. Throws on a bad file. */
export async function readRemotes(paths: InstancePaths): Promise<RemotesFile> {
  const file = remotesFile(paths);
  const text = await readRegularText(file, { maxBytes: MAX_REMOTES_BYTES });
  if (text === null) return { version: 1, remotes: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON; fix or remove it ('ghostlight remote list' says more)`);
  }
  const parsed = RemotesFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue.path.join(".") || "the file"}: ${issue.message}`);
  }
  return parsed.data;
}

/** Remote `name`, or null when the person has not configured one by that name. */
export async function findRemote(paths: InstancePaths, name: string): Promise<Remote | null> {
  const { remotes } = await readRemotes(paths);
  return remotes.find((remote) => remote.name === name) ?? null;
}

/** Reads a token: one line of visible ASCII, 16 to 2,048 characters. Never says its value. */
export function readToken(text: string, where: string): string {
  const token = text.replace(/\r?\n$/, "");
  if (!/^[\x21-\x7e]{16,2048}$/.test(token)) {
    throw new Error(
      `${where} must hold one line of 16 to 2,048 visible ASCII characters (no spaces)`,
    );
  }
  return token;
}

/** Remote `name`'s token, or null when it has none. */
export async function readTokenFile(paths: InstancePaths, name: RemoteName): Promise<string> {
  const file = tokenFile(paths, name);
  const text = await readRegularText(file, { maxBytes: MAX_TOKEN_BYTES });
  if (text === null) throw new Error(`remote ${name}'s token file ${file} is missing`);
  return readToken(text, file);
}
