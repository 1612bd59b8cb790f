/**
 * The process boundaries are code boundaries: each executable imports only `shared/` and its
 * own folder; the service never speaks MCP, JSON-RPC or stdio; the connectors never write files.
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

/** Filesystem writes the connectors must never make (their sets allow write only for sockets). */
const CONNECTOR_WRITES =
  /Deno\.(writeFile|writeTextFile|writeFileSync|writeTextFileSync|mkdir|mkdirSync|remove|removeSync|rename|renameSync|create|createSync|chmod|chmodSync|truncate|copyFile|symlink|link|makeTemp)/;

Deno.test("each executable imports only shared/ and its own folder", async () => {
  assertEquals(await violations(importBreaches), []);
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
  const found = await violations((folder, file, text) =>
    folder === "service" && SERVICE_FORBIDDEN.test(text)
      ? [`${file.slice(ROOT.length + 1)}: ${text.match(SERVICE_FORBIDDEN)![0]}`]
      : []
  );
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
