/**
 * The three peers reached through a real MCP client over stdio: Ghostlight (connector, service,
 * extension, headless Chromium), Playwright MCP and chrome-devtools-mcp (both from npm, pinned,
 * pointed at the installed Chromium, headless). Each round gets a fresh server and browser.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { launchBrowser } from "../support/browser.ts";
import { executable, makeTestEnv } from "../support/env.ts";
import type { CallResult } from "../support/session.ts";
import { deadlineSignal, within } from "../support/wait.ts";
import type { Answer, Driver, Field, Target } from "./journey.ts";
import { STEP_MS } from "./journey.ts";
import { descendants, reap } from "./processes.ts";

/** The npm packages the bench compares against, pinned. */
export const NPM_PEERS = {
  playwright: { name: "@playwright/mcp", version: "0.0.83" },
  devtools: { name: "chrome-devtools-mcp", version: "1.11.0" },
} as const;

/** The Chromium every peer drives. */
export const CHROMIUM = "/usr/bin/chromium";

/** How long a peer may take to start its server and browser. */
const START_MS = 120_000;

/** The advertised tool list: how many tools, and its size as the client receives it. */
export interface ToolList {
  count: number;
  chars: number;
  names: string[];
}

/** A peer running for one round. */
export interface RunningPeer {
  driver: Driver;
  tools: ToolList;
  /**
   * One call of the peer's own MCP tool, answered as the bench counts it (Ghostlight's calls get
   * the round's tab); null for the floor, which has no tools.
   */
  call: ((name: string, args: Record<string, unknown>) => Promise<Answer>) | null;
  stop(): Promise<void>;
}

/** Reads an MCP tool result the way the bench counts it. */
export function answerOf(result: CallResult): Answer {
  const texts = result.content.filter((b) => b.type === "text").map((b) => b.text ?? "");
  const images = result.content
    .filter((b) => b.type === "image")
    .map((b) => ({ mimeType: b.mimeType ?? "", data: b.data ?? "" }));
  return {
    text: texts.join("\n"),
    textChars: texts.reduce((sum, t) => sum + t.length, 0),
    imageChars: images.reduce((sum, i) => sum + i.data.length, 0),
    images,
    isError: result.isError === true,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** An MCP client on a server it spawned, with the server's processes reaped at the end. */
class McpLink {
  readonly client = new Client({ name: "ghostlight-bench", version: "1.0.0" });
  #transport: StdioClientTransport;
  #stderr = "";

  constructor(command: string, args: string[], env: Record<string, string>) {
    this.#transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
    this.#transport.stderr?.on("data", (chunk: Uint8Array | string) => {
      this.#stderr = (this.#stderr + String(chunk)).slice(-4_000);
    });
  }

  async connect(): Promise<void> {
    await within(this.client.connect(this.#transport), START_MS, "the MCP initialize answer")
      .catch((error) => {
        throw new Error(`${error.message}; stderr: ${this.#stderr.slice(-1_000)}`);
      });
  }

  async tools(): Promise<ToolList> {
    const { tools } = await this.client.listTools();
    return {
      count: tools.length,
      chars: JSON.stringify(tools).length,
      names: tools.map((t: { name: string }) => t.name),
    };
  }

  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: STEP_MS,
    });
    return answerOf(result as CallResult);
  }

  /** Closes the client (the server sees stdin end), then ends whatever it left running. */
  async close(): Promise<void> {
    const pid = this.#transport.pid;
    const left = pid === null ? [] : [pid, ...await descendants(pid)];
    await within(this.client.close(), 15_000, "the MCP client to close").catch(() => {});
    await reap(left);
  }
}

/** Ghostlight: a fresh instance, `browser launch --headless`, and the connector over stdio. */
export async function startGhostlight(): Promise<RunningPeer> {
  const testEnv = await makeTestEnv("bench");
  let browser: Awaited<ReturnType<typeof launchBrowser>> | null = null;
  let link: McpLink | null = null;
  try {
    browser = await launchBrowser(testEnv);
    const { command, args } = executable(testEnv, "mcp-connector", [
      "--instance",
      testEnv.instance,
    ]);
    link = new McpLink(command, args, testEnv.env);
    await link.connect();
    const tools = await link.tools();
    const advertised = new Set(tools.names);
    const context = await link.client.callTool({
      name: "tabs_context_mcp",
      arguments: { createIfEmpty: true },
    }) as CallResult;
    const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    const mcp = link;
    const call = (name: string, args: Record<string, unknown>) =>
      mcp.call(name, { ...args, tabId });
    const driver: Driver = {
      navigate: (url) => call("navigate", { url }),
      read: () => call("read_page", {}),
      readText: () => call("get_page_text", {}),
      click: (target) => call("computer", { action: "left_click", ref: target.ref }),
      type: (_target, text) => call("computer", { action: "type", text }),
      fill: (target, field) => call("form_input", { ref: target.ref, value: field.value }),
      screenshot: () => call("computer", { action: "screenshot" }),
      probe: async (expression) =>
        (await call("javascript_tool", { action: "javascript_exec", text: expression })).text,
      find: (query) => call("find", { query }),
      fillAll: advertised.has("form_fill")
        ? (fields) =>
          call("form_fill", {
            fields: Object.fromEntries(fields.map(({ field }) => [field.label, field.value])),
          })
        : "form_fill is not advertised yet",
      refOf: (answer, role, label) =>
        answer.text.match(
          new RegExp(`\\b${role} "${escapeRegExp(label)}"[^\\n]*?\\[(ref_\\d+)\\]`),
        )?.[1] ?? null,
    };
    const started = { browser, link };
    return {
      driver,
      tools,
      call,
      async stop() {
        await started.link.close();
        await started.browser.stop();
        await testEnv.dispose();
      },
    };
  } catch (error) {
    await link?.close();
    await browser?.stop();
    await testEnv.dispose();
    throw error;
  }
}

/** A throwaway HOME for a peer, so nothing it writes lands in the real one. */
async function peerHome(): Promise<{ home: string; env: Record<string, string> }> {
  const home = await Deno.makeTempDir({ prefix: "ghostlight-bench-peer-" });
  return {
    home,
    env: {
      HOME: home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TMPDIR: home,
      NO_COLOR: "1",
    },
  };
}

const asRoot = Deno.uid() === 0;

/** Playwright MCP on the installed Chromium, headless, with an in-memory profile. */
export async function startPlaywright(entry: string): Promise<RunningPeer> {
  const { home, env } = await peerHome();
  const link = new McpLink("node", [
    entry,
    "--headless",
    "--executable-path",
    CHROMIUM,
    "--isolated",
    "--viewport-size",
    "1280x800",
    "--output-dir",
    `${home}/output`,
    // Chromium refuses its sandbox to root; Ghostlight's launch and the floor drop it there too.
    ...(asRoot ? ["--no-sandbox"] : []),
  ], env);
  try {
    await link.connect();
    const tools = await link.tools();
    // Playwright starts its browser at the first call: start it before the timed journey.
    const warm = await link.call("browser_navigate", { url: "about:blank" });
    if (warm.isError) throw new Error(`the browser did not start: ${warm.text.slice(0, 500)}`);
    const kind = (field: Field) => field.role === "spinbutton" ? "textbox" : field.role;
    const fieldOf = (target: Target, field: Field) => ({
      element: field.label,
      target: target.ref,
      name: field.label,
      type: kind(field),
      value: String(field.value),
    });
    const driver: Driver = {
      navigate: (url) => link.call("browser_navigate", { url }),
      read: () => link.call("browser_snapshot", {}),
      readText: () => link.call("browser_snapshot", {}),
      click: (target) => link.call("browser_click", { element: target.label, target: target.ref }),
      type: (target, text) =>
        link.call("browser_type", { element: target.label, target: target.ref, text }),
      fill: (target, field) => link.call("browser_fill_form", { fields: [fieldOf(target, field)] }),
      screenshot: () => link.call("browser_take_screenshot", { type: "png", scale: "css" }),
      probe: async (expression) =>
        (await link.call("browser_evaluate", { function: `() => ${expression}` })).text,
      find: (query) => link.call("browser_find", { text: query }),
      fillAll: (fields) =>
        link.call("browser_fill_form", {
          fields: fields.map(({ target, field }) => fieldOf(target, field)),
        }),
      refOf: (answer, role, label) =>
        answer.text.match(
          new RegExp(`\\b${role} "${escapeRegExp(label)}"[^\\n]*?\\[ref=([^\\]\\s]+)\\]`),
        )?.[1] ?? null,
    };
    return {
      driver,
      tools,
      call: (name, args) => link.call(name, args),
      async stop() {
        await link.close();
        await Deno.remove(home, { recursive: true }).catch(() => {});
      },
    };
  } catch (error) {
    await link.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * chrome-devtools-mcp on the installed Chromium, headless, temporary profile, telemetry and update
 * checks off.
 */
export async function startDevtools(entry: string): Promise<RunningPeer> {
  const { home, env } = await peerHome();
  const link = new McpLink("node", [
    entry,
    "--headless",
    "--executablePath",
    CHROMIUM,
    "--isolated",
    "--viewport",
    "1280x800",
    "--no-usage-statistics",
    "--no-performance-crux",
    ...(asRoot ? ["--chromeArg=--no-sandbox"] : []),
  ], {
    ...env,
    CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: "1",
    // Its update check runs npm and asks the registry in the background: off, so nothing leaves
    // the machine and no npm process competes with the journey for the CPU.
    CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: "1",
  });
  try {
    await link.connect();
    const tools = await link.tools();
    // chrome-devtools-mcp starts its browser at the first call: start it before the journey.
    const pages = await link.call("list_pages", {});
    const pageId = Number(pages.text.match(/^(\d+): .*\[selected\]/m)?.[1]);
    if (pages.isError || !Number.isInteger(pageId)) {
      throw new Error(`the browser did not start: ${pages.text.slice(0, 500)}`);
    }
    const call = (name: string, args: Record<string, unknown>) =>
      link.call(name, { pageId, ...args });
    const driver: Driver = {
      navigate: (url) => call("navigate_page", { type: "url", url }),
      read: () => call("take_snapshot", {}),
      readText: () => call("take_snapshot", {}),
      click: (target) => call("click", { uid: target.ref }),
      type: (_target, text) => call("type_text", { text }),
      fill: (target, field) => call("fill", { uid: target.ref, value: String(field.value) }),
      screenshot: () => call("take_screenshot", {}),
      probe: async (expression) =>
        (await call("evaluate_script", { function: `() => ${expression}` })).text,
      find: null,
      fillAll: (fields) =>
        call("fill_form", {
          elements: fields.map(({ target, field }) => ({
            uid: target.ref,
            value: String(field.value),
          })),
        }),
      // Chromium 150's accessibility tree keeps the space before a checkbox's label text in its
      // name (uid=1_37 checkbox " Send me the almanac"): a careful agent reads past it.
      refOf: (answer, role, label) =>
        answer.text.match(new RegExp(`uid=(\\S+) ${role} "\\s*${escapeRegExp(label)}\\s*"`))?.[1] ??
          null,
    };
    return {
      driver,
      tools,
      call,
      async stop() {
        await link.close();
        await Deno.remove(home, { recursive: true }).catch(() => {});
      },
    };
  } catch (error) {
    await link.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** Where the npm peers are installed, or why they cannot be. */
export interface NpmPeers {
  entries: Partial<Record<keyof typeof NPM_PEERS, string>>;
  problems: Partial<Record<keyof typeof NPM_PEERS, string>>;
}

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; ms: number },
): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    signal: deadlineSignal(options.ms),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: (decoder.decode(output.stdout) + decoder.decode(output.stderr)).trim(),
  };
}

/**
 * Installs the pinned npm peers into a cache folder of their own with npm (no install scripts,
 * so nothing downloads a browser), once; later runs find them there.
 */
export async function installNpmPeers(): Promise<NpmPeers> {
  const result: NpmPeers = { entries: {}, problems: {} };
  const all = (why: string) => {
    for (const key of Object.keys(NPM_PEERS) as (keyof typeof NPM_PEERS)[]) {
      result.problems[key] = why;
    }
    return result;
  };
  const node = await run("node", ["--version"], { ms: 30_000 }).catch(() => null);
  if (node === null || node.code !== 0) {
    return all("Node is not on PATH (the npm peers run on Node)");
  }
  const [major, minor] = node.out.replace(/^v/, "").split(".").map(Number);
  const cache = Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`;
  const dir = `${cache}/ghostlight-bench/npm-peers`;
  await Deno.mkdir(dir, { recursive: true });
  const wanted = Object.fromEntries(Object.values(NPM_PEERS).map((p) => [p.name, p.version]));
  const installed = async (name: string) =>
    JSON.parse(
      await Deno.readTextFile(`${dir}/node_modules/${name}/package.json`).catch(() => "{}"),
    )
      .version;
  const missing = [];
  for (const peer of Object.values(NPM_PEERS)) {
    if (await installed(peer.name) !== peer.version) missing.push(peer);
  }
  if (missing.length > 0) {
    await Deno.writeTextFile(
      `${dir}/package.json`,
      JSON.stringify({ private: true, dependencies: wanted }, null, 2),
    );
    console.error(
      `installing ${missing.map((p) => `${p.name}@${p.version}`).join(", ")} with npm…`,
    );
    const npm = await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: dir,
      env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1", PUPPETEER_SKIP_DOWNLOAD: "1" },
      ms: 600_000,
    }).catch((error) => ({ code: -1, out: String(error) }));
    if (npm.code !== 0) return all(`npm install failed: ${npm.out.slice(-500)}`);
  }
  for (
    const [key, peer] of Object.entries(NPM_PEERS) as [
      keyof typeof NPM_PEERS,
      { name: string; version: string },
    ][]
  ) {
    const manifest = JSON.parse(
      await Deno.readTextFile(`${dir}/node_modules/${peer.name}/package.json`).catch(() => "{}"),
    );
    if (manifest.version !== peer.version) {
      result.problems[key] = `${peer.name}@${peer.version} is not installed in ${dir}`;
      continue;
    }
    const bin = typeof manifest.bin === "string"
      ? manifest.bin
      : Object.values(manifest.bin ?? {})[0] as string | undefined;
    if (!bin) {
      result.problems[key] = `${peer.name} names no executable`;
      continue;
    }
    const engines = manifest.engines?.node as string | undefined;
    if (
      key === "devtools" &&
      !(major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19))
    ) {
      result.problems[key] = `${peer.name} needs Node ${engines}; this is ${node.out}`;
      continue;
    }
    result.entries[key] = `${dir}/node_modules/${peer.name}/${bin.replace(/^\.\//, "")}`;
  }
  return result;
}
