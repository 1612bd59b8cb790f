/**
 * One client's configuration file as install sees it: parsed in its format, its servers by
 * name, which of them are ours, and the edit that adds ours under a free name. Pure: text in,
 * text and inverse out.
 *
 * @module
 */

import { type ClientId, CLIENTS, type ServerCommand } from "./clients.ts";
import {
  type EditResult,
  insertJsonEntry,
  newJsonFile,
  parseJsonc,
  type ParseResult,
  removeJsonEntry,
} from "./jsonc_edit.ts";
import { insertTomlTable, parseToml, removeTomlTable, tomlTable } from "./toml_edit.ts";

/** A client's configuration, parsed. */
export interface ClientConfig {
  client: ClientId;
  document: unknown;
  /** The key path of the servers object. */
  container: string[];
  /** The servers by name; empty when the file has none yet. */
  servers: Record<string, unknown>;
}

/** Parses a client's file; an unparseable file or a servers key that is no object is refused. */
export function readClientConfig(
  client: ClientId,
  text: string,
): { ok: true; config: ClientConfig } | { ok: false; reason: string } {
  const row = CLIENTS[client];
  const parsed: ParseResult = row.format === "toml" ? parseToml(text) : parseJsonc(text);
  if (!parsed.ok) return parsed;
  const container = row.container(parsed.value);
  let node: unknown = parsed.value;
  for (const key of container) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) {
      return { ok: false, reason: `"${container.join(".")}" is not an object` };
    }
    node = (node as Record<string, unknown>)[key];
  }
  if (node === undefined) node = {};
  if (node === null || typeof node !== "object" || Array.isArray(node)) {
    return { ok: false, reason: `"${container.join(".")}" is not an object` };
  }
  return {
    ok: true,
    config: {
      client,
      document: parsed.value,
      container,
      servers: node as Record<string, unknown>,
    },
  };
}

/** The names of the entries that start exactly `server`. */
export function ourEntries(config: ClientConfig, server: ServerCommand): string[] {
  return Object.entries(config.servers)
    .filter(([, entry]) => {
      const read = CLIENTS[config.client].readEntry(entry);
      return read !== null && read.command === server.command &&
        JSON.stringify(read.args) === JSON.stringify(server.args);
    })
    .map(([name]) => name);
}

/** `name`, or the first of `name-2`, `name-3`, ... that the file does not use. */
export function freeName(config: ClientConfig, name: string): string {
  if (!(name in config.servers)) return name;
  for (let n = 2;; n++) {
    if (!(`${name}-${n}` in config.servers)) return `${name}-${n}`;
  }
}

/** An entry to write: the server, under a name. */
export interface NamedServer {
  name: string;
  server: ServerCommand;
}

/** Adds `server` as `name` to the file's `text`. */
export function addEntry(
  config: ClientConfig,
  { text, name, server }: NamedServer & { text: string },
): EditResult {
  const row = CLIENTS[config.client];
  const change = { path: [...config.container, name], value: row.entry(server) };
  return row.format === "toml" ? insertTomlTable(text, change) : insertJsonEntry(text, change);
}

/** The text of a new file holding only `server` as `name`. */
export function newConfigText(client: ClientId, { name, server }: NamedServer): string {
  const row = CLIENTS[client];
  const container = row.container({});
  const entry = row.entry(server);
  return row.format === "toml"
    ? tomlTable([...container, name], entry)
    : newJsonFile([...container, name], entry);
}

/** Removes the entry `name` from `text` when no exact inverse applies; null when it cannot. */
export function removeEntry(
  config: ClientConfig,
  { text, name }: { text: string; name: string },
): string | null {
  const path = [...config.container, name];
  return CLIENTS[config.client].format === "toml"
    ? removeTomlTable(text, path)
    : removeJsonEntry(text, path);
}
