/**
 * For tests of Ghostlight as a person installs it (the installer, the release archive, the MCPB
 * bundle, the npm package): Chromium on the default profile of the test's HOME with the installed
 * extension, a PATH holding only the tools a test names (no Deno, no npm), the installed `doctor`,
 * and stopping the instance's demand-started service.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import type { TestEnv } from "./env.ts";
import type { FixtureServer } from "./fixtures.ts";
import { runCommand } from "./processes.ts";
import { pollUntil, signalOrTimeout, waitFor } from "./wait.ts";

/** Chromium as a person starts it: the default profile of that HOME, the installed extension. */
export function startChromium(testEnv: TestEnv, extensionDir: string): {
  child: Deno.ChildProcess;
  stop(): Promise<void>;
} {
  const config = testEnv.env.XDG_CONFIG_HOME;
  const child = new Deno.Command("/usr/bin/chromium", {
    args: [
      // Headless Chromium would otherwise make a throwaway profile; this is the default one.
      `--user-data-dir=${config}/chromium`,
      `--load-extension=${extensionDir}`,
      `--disable-extensions-except=${extensionDir}`,
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
      "about:blank",
    ],
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    child,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        return;
      }
      const exited = new AbortController();
      child.status.then(() => exited.abort());
      if (!(await signalOrTimeout(exited.signal, 10_000))) child.kill("SIGKILL");
      await child.status;
    },
  };
}

/**
 * A folder under the test's HOME holding links to `tools` (each found on this process's PATH) and
 * nothing else: a PATH with none of `absent` (no Deno and no npm) on it.
 */
export async function toolsOnlyPath(
  testEnv: TestEnv,
  tools: string[],
  absent = ["deno", "npm", "npx"],
): Promise<string> {
  const dir = `${testEnv.home}/tools`;
  await Deno.mkdir(dir, { recursive: true });
  for (const tool of tools) {
    const found = await new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] }).output();
    const path = new TextDecoder().decode(found.stdout).trim();
    if (!found.success || !path.startsWith("/")) throw new Error(`${tool} is not on PATH`);
    await Deno.symlink(path, `${dir}/${tool}`);
  }
  for (const program of absent) {
    const probe = await new Deno.Command("/bin/sh", {
      args: ["-c", `command -v ${program}`],
      env: { PATH: dir },
      clearEnv: true,
    }).output();
    assertEquals(probe.success, false, `${program} must not be on the PATH`);
  }
  return dir;
}

/** The tools a POSIX install script and the installed launchers use. */
export const SHELL_TOOLS = [
  "sh",
  "env",
  "curl",
  "tar",
  "gzip",
  "awk",
  "cut",
  "mktemp",
  "rm",
  "mkdir",
  "uname",
  "dirname",
  "sha256sum",
];

/** Stops the demand-started service `cli status` names, if any, and waits until it is gone. */
export async function stopService(testEnv: TestEnv, cli: string): Promise<void> {
  const status = await runCommand(testEnv, cli, ["status", "--json"]);
  const pid = (JSON.parse(status.stdout || "{}") as { service?: { pid: number } | null }).service
    ?.pid;
  if (!pid) return;
  try {
    Deno.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  await waitFor(async () => {
    const probe = await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" })
      .output();
    return !probe.success;
  }, "the service to exit");
}

/** Waits until the installed `cli` says a browser's extension reached the service. */
export async function waitForBrowser(testEnv: TestEnv, cli: string): Promise<void> {
  await pollUntil(
    async () => JSON.parse((await runCommand(testEnv, cli, ["status", "--json"])).stdout),
    (status: { browsers?: unknown[] }) => (status.browsers?.length ?? 0) > 0,
    "the installed extension to reach the service through the installed native host",
    60_000,
  );
}

/** The client drives Chromium: a tab, a navigation to the fixtures' article, its text read. */
export async function readArticle(client: Client, fixtures: FixtureServer): Promise<void> {
  const context = await client.callTool({
    name: "tabs_context_mcp",
    arguments: { createIfEmpty: true },
  });
  assert(!context.isError, JSON.stringify(context));
  const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
  const navigated = await client.callTool({
    name: "navigate",
    arguments: { url: fixtures.url("/article.html"), tabId },
  });
  assert(!navigated.isError, JSON.stringify(navigated));
  const text = await client.callTool({ name: "get_page_text", arguments: { tabId } });
  assert(!text.isError, JSON.stringify(text));
  assertMatch((text.content as { type: string; text: string }[])[0].text, /The Skerry Point light/);
}
