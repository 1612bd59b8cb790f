/**
 * The process boundaries are code boundaries: each executable imports only `shared/` and its
 * own folder; inside the service each folder's mod.ts is its only door; the service never speaks
 * MCP, JSON-RPC or stdio; the connectors never write files; settings are read only through the
 * settings schemas.
 */

import { documentedRows } from "../shared/settings_doc.ts";
import { ARCHITECTURE_DOC, LAYERS_KIND, layerTables } from "./support/layers_doc.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";
import { SERVICE_LAYERS, TOOL_LAYERS } from "./support/layers.ts";

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

/** Where a service file imports a service folder its layer may not use. */
export function layerBreaches(file: string, text: string): string[] {
  const from = serviceFolderOf(file);
  if (from === null) return [];
  const allowed = SERVICE_LAYERS[from];
  if (!allowed) return [`service/${from}/ has no row in SERVICE_LAYERS: add one`];
  return importsOf(text)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => serviceFolderOf(new URL(specifier, `file://${file}`).pathname))
    .filter((to): to is string => to !== null && to !== from && !allowed.includes(to))
    .map((to) => `${file.slice(ROOT.length + 1)} imports service/${to}/`);
}

Deno.test("service folders import only the layers below them", async () => {
  const found = await violations((folder, file, text) =>
    folder === "service" ? layerBreaches(file, text) : []
  );
  assertEquals([...new Set(found)], []);
});

Deno.test("the layer check catches tools reaching into the bridge", () => {
  const file = `${ROOT}/service/tools/handlers/navigate.ts`;
  assertEquals(layerBreaches(file, 'import { x } from "../../bridge/mod.ts";').length, 1);
  assertEquals(layerBreaches(file, 'import { x } from "../../browser/mod.ts";').length, 0);
});

/** The sub-folder of `service/tools/` a path is in, or null outside them (or at their root). */
function toolFolderOf(path: string): string | null {
  const parts = path.slice(ROOT.length + 1).split("/");
  return parts[0] === "service" && parts[1] === "tools" && parts.length > 3 ? parts[2] : null;
}

/**
 * Where a file in `service/tools/` imports a sub-folder its layer may not use, or (in
 * `handlers/`) another handler.
 */
export function toolLayerBreaches(file: string, text: string): string[] {
  const from = toolFolderOf(file);
  if (from === null) return [];
  const allowed = TOOL_LAYERS[from];
  if (!allowed) return [`service/tools/${from}/ has no row in TOOL_LAYERS: add one`];
  const name = file.slice(ROOT.length + 1);
  return importsOf(text)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => new URL(specifier, `file://${file}`).pathname)
    .flatMap((target) => {
      const to = toolFolderOf(target);
      if (to === null) return [];
      if (to === from) {
        return from === "handlers" && target !== file
          ? [`${name} imports another handler, ${target.slice(ROOT.length + 1)}`]
          : [];
      }
      return allowed.includes(to) ? [] : [`${name} imports service/tools/${to}/`];
    });
}

Deno.test("the tools' folders import only the layers below them, and no handler another", async () => {
  const found = await violations((folder, file, text) =>
    folder === "service" ? toolLayerBreaches(file, text) : []
  );
  assertEquals([...new Set(found)], []);
});

Deno.test("the tool layer check catches a handler importing a handler, and input reaching up", () => {
  const handler = `${ROOT}/service/tools/handlers/act_on.ts`;
  assertEquals(toolLayerBreaches(handler, 'import { ACTIONS } from "./computer.ts";'), [
    "service/tools/handlers/act_on.ts imports another handler, service/tools/handlers/computer.ts",
  ]);
  assertEquals(toolLayerBreaches(handler, 'import { perform } from "../input/act.ts";'), []);
  const input = `${ROOT}/service/tools/input/act.ts`;
  assertEquals(toolLayerBreaches(input, 'import { find } from "../handlers/find.ts";'), [
    "service/tools/input/act.ts imports service/tools/handlers/",
  ]);
  assertEquals(toolLayerBreaches(input, 'import { x } from "./send.ts";'), []);
  const core = `${ROOT}/service/tools/core/errors.ts`;
  assertEquals(toolLayerBreaches(core, 'import { x } from "../page/frames.ts";').length, 1);
  const fresh = `${ROOT}/service/tools/newfolder/x.ts`;
  assertEquals(toolLayerBreaches(fresh, ""), [
    "service/tools/newfolder/ has no row in TOOL_LAYERS: add one",
  ]);
});

/** The longest a production function may be, in lines: longer ones become named steps. */
const MAX_FUNCTION_LINES = 100;

/** Functions of a source longer than {@linkcode MAX_FUNCTION_LINES}, found by the parser. */
const longFunctions: Deno.lint.Plugin = {
  name: "ghostlight-length",
  rules: {
    "max-function-lines": {
      create(context) {
        const check = (node: Deno.lint.Node) => {
          const text = context.sourceCode.text;
          const [start, end] = node.range;
          const lines = text.slice(start, end).split("\n").length;
          if (lines > MAX_FUNCTION_LINES) {
            context.report({ node, message: `a function of ${lines} lines` });
          }
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
  },
};

/** Where a source holds a function over the limit, as `path:line: message`. */
export function longFunctionBreaches(file: string, text: string): string[] {
  return Deno.lint.runPlugin(longFunctions, file, text).map((found) =>
    `${file.slice(ROOT.length + 1)}:${text.slice(0, found.range[0]).split("\n").length}: ` +
    found.message
  );
}

Deno.test(`no production function is longer than ${MAX_FUNCTION_LINES} lines`, async () => {
  const found: string[] = [];
  for (const folder of [...FOLDERS, "scripts", "demo"]) {
    for await (const file of sources(`${ROOT}/${folder}`)) {
      if (file.endsWith("runtime_bundle.ts")) continue;
      found.push(...longFunctionBreaches(file, await Deno.readTextFile(file)));
    }
  }
  assertEquals(found, []);
});

Deno.test("the length check counts a function's lines", () => {
  const file = `${ROOT}/service/example.ts`;
  const body = (n: number) =>
    Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join("\n");
  assertEquals(longFunctionBreaches(file, `function f() {\n${body(98)}\n}`).length, 0);
  assertEquals(longFunctionBreaches(file, `function f() {\n${body(99)}\n}`).length, 1);
  assertEquals(longFunctionBreaches(file, `const f = () => {\n${body(99)}\n};`).length, 1);
  assertEquals(
    longFunctionBreaches(file, `class C {\n  m() {\n${body(99)}\n  }\n}`).length,
    1,
  );
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

/** A record's status, its third line: accepted, or amended or superseded by later records. */
const STATUS_LINE =
  /^Status: (?:accepted|(?:amended|superseded) by \[\d{4}\]\([^)]+\)(?:(?:, | and )\[\d{4}\]\([^)]+\))*(?: \([^)]*\))?)$/;

/** A journal entry of `docs/performance.md`: a former record, kept under its number. */
const JOURNAL_ENTRY = /<a id="(\d{4})"><\/a>/g;

/** "decision 0239", "decisions 0244–0246", "decisions 0270, 0272 and 0301": numbers cited. */
const CITATION = /\bdecisions?\s+(0\d{3}(?:(?:,\s*|,?\s+and\s+|\s*[–-]\s*)0\d{3})*)/gi;

/** What the index shows of a status: nothing when accepted, else "amended by 0100, 0101". */
function statusTag(status: string): string {
  const match = status.match(/^Status: ((?:amended|superseded) by)/);
  if (!match) return "";
  return `${match[1]} ${[...status.matchAll(/\[(\d{4})\]/g)].map((m) => m[1]).join(", ")}`;
}

/** The status tag of a record's index line (`_(amended by 0100)_`), "" without one, null unlisted. */
function indexTag(index: string, name: string): string | null {
  const start = index.indexOf(`(${name})`);
  if (start < 0) return null;
  const head = index.slice(start, index.indexOf("—", start)).replace(/\s+/g, " ");
  return head.match(/_\((.*)\)_/)?.[1] ?? "";
}

/** The decision records and the journal, as the index check reads them. */
export interface DecisionDocs {
  /** `docs/decisions/README.md`. */
  index: string;
  /** Each record's file name and text. */
  records: Map<string, string>;
  /** `docs/performance.md`. */
  performance: string;
}

/**
 * Where the records, their index and the journal disagree: a record without its index line or its
 * status line, a status naming a number that is neither a record nor a journal entry, a journal
 * entry missing from the index or also still a record.
 */
export function decisionIndexBreaches(docs: DecisionDocs): string[] {
  const numbers = new Set([...docs.records.keys()].map((name) => name.slice(0, 4)));
  const journal = [...docs.performance.matchAll(JOURNAL_ENTRY)].map((match) => match[1]);
  const known = new Set([...numbers, ...journal]);
  const out: string[] = [];
  for (const [name, text] of docs.records) {
    if (!docs.index.includes(`(${name})`)) out.push(`${name}: no line in the index`);
    // The status is the paragraph after the title: `deno fmt` may wrap it.
    const status = (text.split("\n\n")[1] ?? "").replaceAll("\n", " ").trim();
    if (!STATUS_LINE.test(status)) out.push(`${name}: no status line after the title`);
    for (const cited of status.match(/\[(\d{4})\]/g) ?? []) {
      if (!known.has(cited.slice(1, 5))) out.push(`${name}: its status names ${cited}`);
    }
    const tag = indexTag(docs.index, name);
    const said = statusTag(status);
    if (tag !== null && tag !== said) {
      out.push(`${name}: the index says "${tag}", the record "${said}"`);
    }
  }
  for (const number of journal) {
    if (numbers.has(number)) out.push(`${number}: both a record and a journal entry`);
    if (!docs.index.includes(`(../performance.md#${number})`)) {
      out.push(`${number}: journal entry with no line in the index`);
    }
  }
  return out;
}

/** The decision numbers `text` cites that are neither a record nor a journal entry. */
export function unknownCitations(text: string, known: Set<string>): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(CITATION)) {
    for (const number of match[1].match(/0\d{3}/g)!) if (!known.has(number)) out.push(number);
  }
  return out;
}

async function decisionDocs(): Promise<DecisionDocs> {
  const records = new Map<string, string>();
  for await (const entry of Deno.readDir(`${ROOT}/docs/decisions`)) {
    if (/^\d{4}-.*\.md$/.test(entry.name)) {
      records.set(entry.name, await Deno.readTextFile(`${ROOT}/docs/decisions/${entry.name}`));
    }
  }
  return {
    index: await Deno.readTextFile(`${ROOT}/docs/decisions/README.md`),
    records,
    performance: await Deno.readTextFile(`${ROOT}/docs/performance.md`),
  };
}

/** Every markdown page of the project: the README, CONTRIBUTING and `docs/`. */
async function* markdownPages(dir = `${ROOT}/docs`): AsyncGenerator<string> {
  if (dir === `${ROOT}/docs`) yield* [`${ROOT}/README.md`, `${ROOT}/CONTRIBUTING.md`];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* markdownPages(path);
    else if (path.endsWith(".md")) yield path;
  }
}

Deno.test("every decision record has its index line and a status; moved ones are in the journal", async () => {
  assertEquals(decisionIndexBreaches(await decisionDocs()), []);
});

Deno.test("every decision number cited in code or docs is a record or a journal entry", async () => {
  const docs = await decisionDocs();
  const known = new Set([
    ...[...docs.records.keys()].map((name) => name.slice(0, 4)),
    ...[...docs.performance.matchAll(JOURNAL_ENTRY)].map((match) => match[1]),
  ]);
  const found: string[] = [];
  const files = [...await productionFiles()];
  for await (const file of testModules(ROOT)) files.push(file);
  for await (const file of markdownPages()) files.push(file);
  for (const file of files) {
    for (const number of unknownCitations(await Deno.readTextFile(file), known)) {
      found.push(`${file.slice(ROOT.length + 1)} cites decision ${number}`);
    }
  }
  assertEquals(found, []);
});

/**
 * Where a page's relative links lead nowhere: a file that does not exist, or a journal number
 * (`performance.md#0218`) the journal does not hold. `exists` answers for a path from the root.
 */
export function brokenLinks(
  page: string,
  text: string,
  exists: (path: string) => string | null,
): string[] {
  const out: string[] = [];
  for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(link)) continue;
    const [path, anchor] = link.split("#");
    const target = path === "" ? page : new URL(path, `file:///${page}`).pathname.slice(1);
    const content = exists(target.replace(/\/$/, ""));
    if (content === null) out.push(`${page}: ${link}`);
    else if (/^\d{4}$/.test(anchor ?? "") && !content.includes(`<a id="${anchor}"></a>`)) {
      out.push(`${page}: ${link}`);
    }
  }
  return out;
}

Deno.test("every relative link in the README, CONTRIBUTING and docs/ leads somewhere", async () => {
  const exists = (path: string) => {
    try {
      const info = Deno.statSync(`${ROOT}/${path}`);
      return info.isFile ? Deno.readTextFileSync(`${ROOT}/${path}`) : "";
    } catch {
      return null;
    }
  };
  const found: string[] = [];
  for await (const file of markdownPages()) {
    found.push(...brokenLinks(file.slice(ROOT.length + 1), await Deno.readTextFile(file), exists));
  }
  assertEquals(found, []);
  const pages: Record<string, string> = {
    "docs/performance.md": '<a id="0218"></a>',
    "docs/design": "",
  };
  const fixture = (path: string) => pages[path] ?? null;
  assertEquals(
    brokenLinks(
      "docs/x.md",
      "[a](performance.md#0218) [b](design/) [c](https://e.invalid/) [d](gone.md) " +
        "[e](performance.md#0219)",
      fixture,
    ),
    ["docs/x.md: gone.md", "docs/x.md: performance.md#0219"],
  );
});

Deno.test("the decision check catches a missing line, a missing status and a lost number", () => {
  const record = "0001-a.md";
  const docs = (index: string, text: string, performance = ""): DecisionDocs => ({
    index,
    records: new Map([[record, text]]),
    performance,
  });
  const listed = "- [0001](0001-a.md) — a\n";
  assertEquals(decisionIndexBreaches(docs(listed, "# 0001 — a\n\nStatus: accepted\n")), []);
  assertEquals(
    decisionIndexBreaches(docs(listed, "# 0001 — a\n\nStatus: amended by [0002](0002-b.md)\n")),
    [
      "0001-a.md: its status names [0002]",
      '0001-a.md: the index says "", the record "amended by 0002"',
    ],
  );
  assertEquals(
    decisionIndexBreaches(
      docs(
        "- [0001](0001-a.md) _(superseded by 0002)_ — a\n- [0002](../performance.md#0002) — b\n",
        "# 0001 — a\n\nStatus: superseded by [0002](../performance.md#0002) (why)\n",
        '<a id="0002"></a>\n\n### 0002 — b\n',
      ),
    ),
    [],
  );
  assertEquals(
    decisionIndexBreaches(
      docs(listed, "# 0001 — a\n\nStatus: superseded by [0001](0001-a.md) (itself)\n"),
    ),
    ['0001-a.md: the index says "", the record "superseded by 0001"'],
  );
  assertEquals(
    decisionIndexBreaches(
      docs("- [0001](0001-a.md) _(amended by 0001)_ — a\n", "# 0001 — a\n\nStatus: accepted\n"),
    ),
    ['0001-a.md: the index says "amended by 0001", the record ""'],
  );
  assertEquals(decisionIndexBreaches(docs("", "# 0001 — a\n\nStatus: accepted\n")), [
    "0001-a.md: no line in the index",
  ]);
  assertEquals(decisionIndexBreaches(docs(listed, "# 0001 — a\n\n## Decision\n")), [
    "0001-a.md: no status line after the title",
  ]);
  assertEquals(decisionIndexBreaches(docs(listed, "# 0001 — a\n\nStatus: maybe\n")), [
    "0001-a.md: no status line after the title",
  ]);
  assertEquals(
    decisionIndexBreaches(
      docs(listed, "# 0001 — a\n\nStatus: accepted\n", '<a id="0001"></a>\n<a id="0003"></a>'),
    ),
    [
      "0001: both a record and a journal entry",
      "0001: journal entry with no line in the index",
      "0003: journal entry with no line in the index",
    ],
  );
  const known = new Set(["0001", "0002"]);
  // Written through `cite` so that this test's own source cites no number.
  const cite = (words: string) => `decision${words}`;
  assertEquals(unknownCitations(cite(" 0001; ") + cite("s 0002 and 0009, 0001–0003"), known), [
    "0009",
    "0003",
  ]);
  assertEquals(unknownCitations(cite(" 0002 (0600 mode)"), known), []);
});

Deno.test("docs/architecture.md's layer tables are the layers the test enforces", async () => {
  const page = await Deno.readTextFile(ARCHITECTURE_DOC);
  for (const table of layerTables()) {
    assertEquals(
      documentedRows(page, table.section, LAYERS_KIND),
      table.rows,
      `docs/architecture.md disagrees with tests/support/layers.ts (${table.section}); run ` +
        "deno run -A scripts/architecture_doc.ts",
    );
  }
});

Deno.test("the layer tables show a tools table's imports once declared, and refuse a gap", () => {
  const source = {
    SERVICE_LAYERS: { log: [], tools: ["log"] },
    SERVICE_OWNS: { log: "the log", tools: "the tools" },
    TOOL_OWNS: { input: "input", handlers: "handlers" },
  };
  const [service, tools] = layerTables(source);
  assertEquals(service.rows, [["`log/`", "the log", "—"], ["`tools/`", "the tools", "`log`"]]);
  assertEquals(tools.rows, [["`input/`", "input"], ["`handlers/`", "handlers"]]);
  const declared = layerTables({ ...source, TOOL_LAYERS: { input: [], handlers: ["input"] } })[1];
  assertEquals(declared.rows, [["`input/`", "input", "—"], [
    "`handlers/`",
    "handlers",
    "`input`",
  ]]);
  const refused = (changed: Record<string, unknown>) => {
    try {
      layerTables({ ...source, ...changed });
      return "";
    } catch (error) {
      return String(error);
    }
  };
  assert(refused({ TOOL_LAYERS: { input: [], page: [] } }).includes("page has no prose"));
  assert(refused({ TOOL_LAYERS: { input: [] } }).includes("handlers is not a layer"));
  assert(refused({ SERVICE_OWNS: { log: "the log" } }).includes("tools has no prose"));
});

/** Where test code may start a timer: the one module tests wait through. */
const TIMER_HOME = "tests/support/wait.ts";

/** Every test module: `tests/` and the `*_test.ts` files beside the code. */
async function* testModules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && !["dist", "fixtures", "golden", "node_modules"].includes(entry.name)) {
      yield* testModules(path);
    } else if (
      entry.isFile && path.endsWith(".ts") &&
      (path.startsWith(`${ROOT}/tests/`) || path.endsWith("_test.ts"))
    ) yield path;
  }
}

/**
 * The code of a module with its string literals and comments blanked, so a timer inside a
 * script sent to the page (a string) is not taken for the test's own.
 */
export function codeOnly(text: string): string {
  return text.replace(
    // Quotes are written \x22 \x27 \x60 so that this pattern is not taken for a string itself.
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|\x22(?:\\.|[^\x22\\\n])*\x22|\x27(?:\\.|[^\x27\\\n])*\x27|\x60(?:\\.|[^\x60\\])*\x60/g,
    // Blanked, not removed: newlines stay, so line numbers still point into the file.
    (match) => {
      const lines = "\n".repeat(match.split("\n").length - 1);
      return match.startsWith("/") ? ` ${lines}` : `""${lines}`;
    },
  );
}

Deno.test("tests wait on observable state: no timer outside tests/support/wait.ts", async () => {
  const found: string[] = [];
  for await (const file of testModules(ROOT)) {
    const name = file.slice(ROOT.length + 1);
    if (name === TIMER_HOME) continue;
    const code = codeOnly(await Deno.readTextFile(file));
    for (const [index, line] of code.split("\n").entries()) {
      if (/\bset(Timeout|Interval)\s*\(/.test(line)) found.push(`${name}:${index + 1}`);
    }
  }
  assertEquals(found, []);
});

/** The one module allowed to hold page code as text: what `deno task build:page` writes. */
const GENERATED_PAGE_SOURCE = "service/tools/page/runtime_bundle.ts";

/** DOM and browser globals and element members: in code-shaped text, they are page code. */
const PAGE_API =
  /\b(?:document|window|location|globalThis|performance)\.|querySelector|getComputedStyle|elementFromPoint|getBoundingClientRect|MutationObserver|addEventListener|requestAnimationFrame|getAttribute|\.closest\(|innerText|textContent|activeElement|shadowRoot/;
/** Text shaped like code: a function, or an expression in parentheses or brackets. */
const CODE_SHAPE = /=>|\bfunction\s*\w*\s*\(|^\s*[([]/;

/**
 * Whether a string's text is page logic: DOM use over several lines, inside a function, or as a
 * bracketed expression.
 */
function isPageCode(text: string): boolean {
  return PAGE_API.test(text) && (text.includes("\n") || CODE_SHAPE.test(text));
}

/**
 * Page code kept as a string escapes the type check, lint and format: it belongs in
 * `service/tools/page_runtime/`, checked against the DOM. Found by the parser, so an example
 * in a description (`"document.title"`) or a regular expression is not mistaken for it.
 */
const pageCodeInStrings: Deno.lint.Plugin = {
  name: "ghostlight",
  rules: {
    "no-page-code-in-strings": {
      create(context) {
        return {
          TaggedTemplateExpression(node) {
            const tag = context.sourceCode.getText(node.tag);
            if (tag === "String.raw") {
              context.report({ node, message: "String.raw: code kept as a string" });
            }
          },
          TemplateLiteral(node) {
            if (isPageCode(node.quasis.map((quasi) => quasi.raw).join("${}"))) {
              context.report({ node, message: "a template literal holds page code" });
            }
          },
          Literal(node) {
            if (typeof node.value === "string" && isPageCode(node.value)) {
              context.report({ node, message: "a string holds page code" });
            }
          },
        };
      },
    },
  },
};

/** Where a service source keeps page code in a string, as `path:line: message`. */
export function pageCodeBreaches(file: string, text: string): string[] {
  return Deno.lint.runPlugin(pageCodeInStrings, file, text).map((found) =>
    `${file.slice(ROOT.length + 1)}:${text.slice(0, found.range[0]).split("\n").length}: ` +
    found.message
  );
}

Deno.test("no page code lives in a string in the service", async () => {
  const found: string[] = [];
  for await (const file of sources(`${ROOT}/service`)) {
    if (file === `${ROOT}/${GENERATED_PAGE_SOURCE}`) continue;
    found.push(...pageCodeBreaches(file, await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
});

Deno.test("the timer check sees code and skips strings and comments", () => {
  const sleep = "await new Promise((resolve) => setTimeout(resolve, 100));";
  assertEquals(/setTimeout\(/.test(codeOnly(sleep)), true);
  assertEquals(/setTimeout\(/.test(codeOnly('s.call({ text: "setTimeout(() => 1, 5)" });')), false);
  assertEquals(/setTimeout\(/.test(codeOnly("const t = `x ${1} setTimeout(f, 1)`;")), false);
  assertEquals(/setTimeout\(/.test(codeOnly("// setTimeout(f, 1)")), false);
});

Deno.test("the page-code check catches code in strings and spares prose", () => {
  const file = `${ROOT}/service/tools/example.ts`;
  const breaches = (text: string) => pageCodeBreaches(file, text).length;
  assertEquals(breaches("const a = String.raw`x`;"), 1);
  assertEquals(breaches("const a = `(() => {\n  return document.title;\n})()`;"), 1);
  assertEquals(breaches('const a = `(el) => el.querySelector("a")`;'), 1);
  assertEquals(breaches('const a = "function f() { return location.href; }";'), 1);
  assertEquals(breaches("const a = `({ url: location.href, title: document.title })`;"), 1);
  assertEquals(breaches('const a = "Write it like a console line: \\"document.title\\".";'), 0);
  assertEquals(breaches("const a = `Run ${x}: document.title`;"), 0);
  assertEquals(breaches("const a = `__ghostlight.describe(${id})`;"), 0);
  assertEquals(breaches("const a = /document\\.\\w+ =>/;"), 0);
});

/**
 * Where production code may name a process id, and why none of them routes or authorises: a
 * process id is reused by the system and says nothing of who holds a socket.
 */
const PID_MAY_APPEAR: Record<string, string> = {
  "shared/bridge.ts": "the service's hello carries its pid for the person's diagnostics",
  "shared/handshake.ts": "the same hello, built by the service",
  "service/daemon/start_daemon.ts": "its own pid, in its hello, its status and its log line",
  "service/control/status.ts": "the service's pid, shown by status",
  "service/cli/status_command.ts": "the service's pid, shown to the person",
  "service/install/doctor.ts": "the service's pid, shown to the person",
  "service/cli/launch.ts": "the pid of the Chromium it launched, in its ready line",
  "mcp_connector/main.ts": "its parent's pid: it ends when the client that spawned it is gone",
  "scripts/start.ts": "its parent's pid: it passes its client's end on to the connector",
  "shared/parent.ts": "the parent's pid, watched when input ends: has the client gone?",
};

/** A process id, or the peer credentials of a socket, named in code. */
const PROCESS_ID = /\bp?pids?\b|peer_?cred|getpeereid|SO_PEERCRED/i;

/** The production sources outside the executables' folders. */
const OTHER_PRODUCTION = ["scripts", "mcpb"];

async function productionFiles(): Promise<string[]> {
  const files = [`${ROOT}/install.ts`];
  for (const dir of [...FOLDERS, ...OTHER_PRODUCTION]) {
    for await (const file of sources(`${ROOT}/${dir}`)) files.push(file);
  }
  return files;
}

/** Where `text` names a process id outside the places allowed. */
export function processIdBreaches(name: string, text: string): string[] {
  if (name in PID_MAY_APPEAR && !/peer_?cred|getpeereid|SO_PEERCRED/i.test(text)) return [];
  const found = text.match(PROCESS_ID);
  return found ? [`${name}: ${found[0]}`] : [];
}

Deno.test("no process id is used as a routing or authority key", async () => {
  const found: string[] = [];
  for (const file of await productionFiles()) {
    const name = file.slice(ROOT.length + 1);
    found.push(...processIdBreaches(name, await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
  assertEquals(
    processIdBreaches("service/bridge/work.ts", "const byPid = new Map(); map.get(peer.pid)"),
    [
      "service/bridge/work.ts: pid",
    ],
  );
  assertEquals(processIdBreaches("shared/handshake.ts", "SO_PEERCRED"), [
    "shared/handshake.ts: SO_PEERCRED",
  ]);
});

/** MCP Tasks (its methods, capability and metadata): an MCP feature the service never speaks. */
const MCP_TASKS = /\btasks\/(?:get|result|list|cancel)\b|related-?task|taskSupport|\bMCP Tasks?\b/i;

Deno.test("the service never names MCP Tasks", async () => {
  const found = await violations((folder, file, text) =>
    folder === "service" && MCP_TASKS.test(text)
      ? [`${file.slice(ROOT.length + 1)}: ${text.match(MCP_TASKS)![0]}`]
      : []
  );
  assertEquals(found, []);
  assert(MCP_TASKS.test('{ method: "tasks/get" }') && MCP_TASKS.test("taskSupport: true"));
});

/** An import of an MCP SDK. */
const MCP_SDK = /^(?:npm:|jsr:)?@modelcontextprotocol\//;

Deno.test("no MCP SDK is imported by production code", async () => {
  const found: string[] = [];
  for (const file of await productionFiles()) {
    for (const specifier of importsOf(await Deno.readTextFile(file))) {
      if (MCP_SDK.test(specifier)) found.push(`${file.slice(ROOT.length + 1)}: ${specifier}`);
    }
  }
  assertEquals(found, []);
  assertEquals(
    importsOf('import { Client } from "@modelcontextprotocol/sdk/client/index.js";')
      .filter((specifier) => MCP_SDK.test(specifier)).length,
    1,
  );
});

/**
 * Where the service may read what a client calls itself (`context.client_name`, a session's
 * `clientName`): for the audit, the person's labels and the mismatch flag. Policy is decided by
 * the principal alone (decision 0255); a new reader here is a new place to check.
 */
const CLIENT_NAME_MAY_APPEAR = new Set([
  "service/bridge/gate.ts",
  "service/bridge/admission.ts",
  "service/bridge/session.ts",
  "service/daemon/start_daemon.ts",
  "service/governance/principals.ts",
]);
const CLIENT_NAME = /\bclient_?[nN]ame\b/;

Deno.test("the service reads a client's own name only for the audit, labels and the mismatch", async () => {
  const found = await violations((folder, file, text) => {
    const name = file.slice(ROOT.length + 1);
    return folder === "service" && !name.endsWith("_test.ts") &&
        !CLIENT_NAME_MAY_APPEAR.has(name) && CLIENT_NAME.test(text)
      ? [`${name}: ${text.match(CLIENT_NAME)![0]}`]
      : [];
  });
  assertEquals(found, []);
  assert(CLIENT_NAME.test("decide(rules, { principal: context.client_name })"));
});

/** The page runtime's folder, and the one module of it the rest of the service may import. */
const PAGE_RUNTIME = "service/tools/page_runtime/";
const PAGE_CONTRACT = `${PAGE_RUNTIME}contract.ts`;

/**
 * Where a service file outside the page runtime imports a runtime module other than its
 * contract (decision 0320): the runtime's types and tables reach the service only through the
 * contract, so a copy of them has no reason to exist, and the rest of the runtime, written
 * against the DOM, never enters the service's type check.
 */
export function runtimeImportBreaches(file: string, text: string): string[] {
  const name = file.slice(ROOT.length + 1);
  if (!name.startsWith("service/") || name.startsWith(PAGE_RUNTIME)) return [];
  return importsOf(text)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => new URL(specifier, `file://${file}`).pathname.slice(ROOT.length + 1))
    .filter((target) => target.startsWith(PAGE_RUNTIME) && target !== PAGE_CONTRACT)
    .map((target) => `${name} imports ${target}`);
}

Deno.test("the service reaches the page runtime only through its contract", async () => {
  const found = await violations((_folder, file, text) => runtimeImportBreaches(file, text));
  assertEquals(found, []);
  const handler = `${ROOT}/service/tools/handlers/find.ts`;
  assertEquals(
    runtimeImportBreaches(handler, 'import type { Box } from "../page_runtime/geometry.ts";'),
    ["service/tools/handlers/find.ts imports service/tools/page_runtime/geometry.ts"],
  );
  assertEquals(
    runtimeImportBreaches(handler, 'import type { Box } from "../page_runtime/contract.ts";'),
    [],
  );
});

/** Every role the contract's tables name: a list of several of them is a role table. */
const ROLE_WORDS: ReadonlySet<string> = new Set(
  Object.values(await import(`${ROOT}/${PAGE_CONTRACT}`))
    .filter((value): value is ReadonlySet<unknown> => value instanceof Set)
    .flatMap((table) => [...table].filter((role): role is string => typeof role === "string")),
);
/** How many role names make a list a role table. */
const ROLE_TABLE_MIN = 3;

/**
 * A set made of several role names: a role table, which belongs in the contract alone. (Lists
 * that map words to roles, as `rank.ts`'s query words do, or name input types, are not tables of
 * what the runtime reports.)
 */
const roleTables: Deno.lint.Plugin = {
  name: "ghostlight-roles",
  rules: {
    "role-table": {
      create(context) {
        return {
          NewExpression(node) {
            const [list] = node.arguments;
            if (node.callee.type !== "Identifier" || node.callee.name !== "Set") return;
            if (list?.type !== "ArrayExpression") return;
            const roles = list.elements.filter((element) =>
              element?.type === "Literal" && typeof element.value === "string" &&
              ROLE_WORDS.has(element.value)
            );
            if (roles.length >= ROLE_TABLE_MIN) {
              context.report({ node, message: `a table of ${roles.length} roles` });
            }
          },
        };
      },
    },
  },
};

/** Where a source defines a role table, as `path:line: message`. */
export function roleTableBreaches(file: string, text: string): string[] {
  return Deno.lint.runPlugin(roleTables, file, text).map((found) =>
    `${file.slice(ROOT.length + 1)}:${text.slice(0, found.range[0]).split("\n").length}: ` +
    found.message
  );
}

Deno.test("role tables are defined once, in the page runtime's contract", async () => {
  const found: string[] = [];
  for (const file of await productionFiles()) {
    const name = file.slice(ROOT.length + 1);
    if (name === PAGE_CONTRACT || name === GENERATED_PAGE_SOURCE) continue;
    found.push(...roleTableBreaches(file, await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
  // A second copy of the roles the user acts on, as `rank.ts` once kept beside the runtime's.
  const copy = 'const INTERACTIVE = new Set(["link", "button", "textbox", "clickable"]);';
  assertEquals(roleTableBreaches(`${ROOT}/service/tools/page/rank.ts`, copy).length, 1);
  assertEquals(
    roleTableBreaches(`${ROOT}/service/tools/page/rank.ts`, 'f(["link", "button", "tab"]);'),
    [],
  );
});
