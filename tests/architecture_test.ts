/**
 * The process boundaries are code boundaries: each executable imports only `shared/` and its
 * own folder; inside the service each folder's mod.ts is its only door; the service never speaks
 * MCP, JSON-RPC or stdio; the connectors never write files; settings are read only through the
 * settings schemas.
 */

import { assertEquals } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";

const FOLDERS = ["mcp_connector", "service", "browser_connector", "extension", "shared"] as const;
type Folder = typeof FOLDERS[number];

/** Which of our folders each folder may import from. */
const ALLOWED: Record<Folder, Folder[]> = {
  mcp_connector: ["mcp_connector", "shared"],
  service: ["service", "shared"],
  browser_connector: ["browser_connector", "shared"],
  extension: ["extension", "shared"],
  shared: ["shared"],
};

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "dist") yield* sources(path);
    else if (entry.isFile && path.endsWith(".ts") && !path.endsWith("_test.ts")) yield path;
  }
}

function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s+["']([^"']+)["']/g;
  for (const match of text.matchAll(pattern)) specifiers.push(match[1] ?? match[2] ?? match[3]);
  return specifiers;
}

function folderOf(path: string): string {
  return path.slice(ROOT.length + 1).split("/")[0];
}

async function violations(check: (folder: Folder, file: string, text: string) => string[]) {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for await (const file of sources(`${ROOT}/${folder}`)) {
      found.push(...check(folder, file, await Deno.readTextFile(file)));
    }
  }
  return found;
}

/** Finds the breaches in a tree; exported so the test of the test can run it on a fixture. */
export function importBreaches(folder: Folder, file: string, text: string): string[] {
  const out: string[] = [];
  for (const specifier of importsOf(text)) {
    if (!specifier.startsWith(".")) continue;
    const target = folderOf(new URL(specifier, `file://${file}`).pathname);
    if (!ALLOWED[folder].includes(target as Folder)) {
      out.push(`${file.slice(ROOT.length + 1)} imports ${specifier} (${target}/)`);
    }
  }
  return out;
}

/** Words the service must never use: they belong to the MCP edge. */
const SERVICE_FORBIDDEN = /2025-11-25|2026-07-28|json-?rpc|\bstdio\b|Deno\.stdin|Deno\.stdout/i;

/**
 * The places the service may say "stdio": Chrome's native-messaging manifest names the browser
 * connector's transport so (`ghostlight browser launch` and `install` write it), and some MCP
 * clients' configuration files name the transport of a server entry so (`install` writes them).
 * Both are configuration words for other programs, not the MCP edge's.
 */
const SERVICE_MAY_SAY: Record<string, string[]> = {
  "service/install/browsers.ts": ['type: "stdio"', 'z.literal("stdio")'],
  "service/install/clients.ts": ['type: "stdio"', '{type: "stdio", command, args}'],
};

/** Filesystem writes the connectors must never make (their sets allow write only for sockets). */
const CONNECTOR_WRITES =
  /Deno\.(writeFile|writeTextFile|writeFileSync|writeTextFileSync|mkdir|mkdirSync|remove|removeSync|rename|renameSync|create|createSync|chmod|chmodSync|truncate|copyFile|symlink|link|makeTemp)/;

/** Reading one of our settings from the environment: only a settings schema names them. */
const SETTING_READ = /(?:Deno\.env\.get|\benv)\(\s*["'`]GHOSTLIGHT_/;

Deno.test("no code reads a GHOSTLIGHT_ variable but through a settings schema", async () => {
  const found = await violations((_folder, file, text) =>
    SETTING_READ.test(text)
      ? [`${file.slice(ROOT.length + 1)}: ${text.match(SETTING_READ)![0]}`]
      : []
  );
  assertEquals(found, []);
});

Deno.test("each executable imports only shared/ and its own folder", async () => {
  assertEquals(await violations(importBreaches), []);
});

/** The service folder a path is in (`service/<folder>/...`), or null for the service's root. */
function serviceFolderOf(path: string): string | null {
  const parts = path.slice(ROOT.length + 1).split("/");
  return parts[0] === "service" && parts.length > 2 ? parts[1] : null;
}

Deno.test("each service folder is entered only through its mod.ts", async () => {
  const found = await violations((folder, file, text) => {
    if (folder !== "service") return [];
    return importsOf(text)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => new URL(specifier, `file://${file}`).pathname)
      .filter((target) => {
        const entered = serviceFolderOf(target);
        return entered !== null && entered !== serviceFolderOf(file) &&
          target !== `${ROOT}/service/${entered}/mod.ts`;
      })
      .map((target) =>
        `${file.slice(ROOT.length + 1)} reaches into ${target.slice(ROOT.length + 1)}`
      );
  });
  assertEquals(found, []);
});

/** Every local module a program loads, following relative imports from its entry point. */
async function closure(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(await Deno.readTextFile(file))) {
      if (specifier.startsWith(".")) queue.push(new URL(specifier, `file://${file}`).pathname);
    }
  }
  return seen;
}

Deno.test("the architecture check catches a cross-import", () => {
  const file = `${ROOT}/service/daemon/mod.ts`;
  assertEquals(
    importBreaches("service", file, 'import "../../mcp_connector/jsonrpc.ts";').length,
    1,
  );
  assertEquals(
    importBreaches("service", file, 'import { x } from "../../mcp_connector/jsonrpc.ts";').length,
    1,
  );
  assertEquals(
    importBreaches("service", file, 'import { x } from "../../shared/bridge.ts";').length,
    0,
  );
});

Deno.test("the service never names an MCP revision, JSON-RPC or stdio", async () => {
  const found = await violations((folder, file, text) => {
    const name = file.slice(ROOT.length + 1);
    const checked = (SERVICE_MAY_SAY[name] ?? []).reduce(
      (rest, allowed) => rest.replaceAll(allowed, ""),
      text,
    );
    return folder === "service" && SERVICE_FORBIDDEN.test(checked)
      ? [`${name}: ${checked.match(SERVICE_FORBIDDEN)![0]}`]
      : [];
  });
  assertEquals(found, []);
});

Deno.test("the connectors write no files, in their own code or any module they load", async () => {
  const found: string[] = [];
  for (const entry of ["mcp_connector/main.ts", "browser_connector/main.ts"]) {
    for (const file of await closure(`${ROOT}/${entry}`)) {
      const text = await Deno.readTextFile(file);
      if (CONNECTOR_WRITES.test(text)) {
        found.push(
          `${entry} loads ${file.slice(ROOT.length + 1)}: ${text.match(CONNECTOR_WRITES)![0]}`,
        );
      }
    }
  }
  assertEquals(found, []);
});

Deno.test("the MCP connector loads no browser or service code", async () => {
  const loaded = [...await closure(`${ROOT}/mcp_connector/main.ts`)]
    .map((file) => file.slice(ROOT.length + 1))
    .filter((file) =>
      file === "shared/browser_protocol.ts" || !/^(mcp_connector|shared)\//.test(file)
    );
  assertEquals(loaded, []);
});

Deno.test("every decision record has its line in docs/decisions/README.md", async () => {
  const index = await Deno.readTextFile(`${ROOT}/docs/decisions/README.md`);
  const missing: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}/docs/decisions`)) {
    if (/^\d{4}-.*\.md$/.test(entry.name) && !index.includes(`(${entry.name})`)) {
      missing.push(entry.name);
    }
  }
  assertEquals(missing, []);
});
