/**
 * End to end in the person's own profile: `ghostlight install` into a temporary HOME, then
 * Chromium on its default user data directory for that HOME (no throwaway profile) with the
 * extension loaded from where install put it, reaching the service through the native host
 * install registered; and a real MCP client started from exactly the command and arguments
 * install wrote into Claude Code's `~/.claude.json` drives it: a tab, a navigation, a read.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv, type TestEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { ghostlight } from "./support/processes.ts";
import { pollUntil, signalOrTimeout, waitFor } from "./support/wait.ts";

type TextBlock = { type: "text"; text: string };

/** Runs an installed launcher (not the checkout) with the test's environment. */
async function launcher(
  testEnv: TestEnv,
  path: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(path, {
    args,
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** Chromium as a person starts it: the default profile of that HOME, the installed extension. */
function startChromium(testEnv: TestEnv, extensionDir: string): {
  child: Deno.ChildProcess;
  stop(): Promise<void>;
} {
  const config = testEnv.env.XDG_CONFIG_HOME;
  const child = new Deno.Command("chromium", {
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

interface Status {
  service: { pid: number } | null;
  browsers?: { extensionVersion: string }[];
}

/** Stops the demand-started service of the instance, if any, and waits until it is gone. */
async function stopService(testEnv: TestEnv, cli: string): Promise<void> {
  const status = JSON.parse((await launcher(testEnv, cli, ["status", "--json"])).stdout) as Status;
  if (!status.service) return;
  const pid = status.service.pid;
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

Deno.test("installed into a HOME, Chromium's default profile and a client's entry work end to end", async () => {
  const testEnv = await makeTestEnv("inst");
  const fixtures = serveFixtures();
  const server = `ghostlight-${testEnv.instance}`;
  const cli = `${testEnv.home}/.local/bin/${server}`;
  let chromium: ReturnType<typeof startChromium> | null = null;
  let client: Client | null = null;
  try {
    const installed = await ghostlight(testEnv, [
      "install",
      "--browser",
      "chromium",
      "--client",
      "claude-code",
      "--no-autostart",
    ]);
    assertEquals(installed.code, 0, installed.stdout + installed.stderr);
    assertMatch(installed.stdout, /Load unpacked/);

    // The command and arguments exactly as install wrote them for Claude Code.
    const claude = JSON.parse(await Deno.readTextFile(`${testEnv.home}/.claude.json`));
    const entry = claude.mcpServers[server] as { type: string; command: string; args: string[] };
    assertEquals(entry.type, "stdio");
    assert(!entry.command.startsWith(Deno.cwd()), "the entry does not point into the checkout");

    const prefix = `${testEnv.home}/.local/share/${server}`;
    chromium = startChromium(testEnv, `${prefix}/extension`);

    client = new Client({ name: "install-e2e", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args,
        env: testEnv.env,
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assert(
      tools.some((tool: { name: string }) => tool.name === "navigate"),
      "the tools are listed",
    );

    // The connector started the installed service; the browser connector Chrome started through
    // the installed native host finds it and the extension says hello.
    const status = await pollUntil(
      async () => JSON.parse((await launcher(testEnv, cli, ["status", "--json"])).stdout) as Status,
      (value) => (value.browsers?.length ?? 0) > 0,
      "the extension in the default profile to reach the installed service",
      60_000,
    );
    assertEquals(status.browsers![0].extensionVersion, "0.1.0");

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
    assertMatch((text.content as TextBlock[])[0].text, /The Skerry Point light/);
  } finally {
    await client?.close().catch(() => {});
    await chromium?.stop();
    await stopService(testEnv, cli).catch(() => {});
    await fixtures.close();
    await testEnv.dispose();
  }
});
