/**
 * End to end in the person's own profile: `ghostlight install` into a temporary HOME, then
 * Chromium on its default user data directory for that HOME (no throwaway profile) with the
 * extension loaded from where install put it, reaching the service through the native host
 * install registered; and a real MCP client started from exactly the command and arguments
 * install wrote into Claude Code's `~/.claude.json` drives it: a tab, a navigation, a read.
 * Then `doctor` on that setup: healthy; and with a client entry pointing at a missing executable,
 * a native host manifest removed, the extension not connected, it names each and its fix.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv, type TestEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { ghostlight, runCommand } from "./support/processes.ts";
import { readArticle, startChromium, stopService } from "./support/installed.ts";
import { pollUntil } from "./support/wait.ts";

/** Runs an installed launcher (not the checkout) with the test's environment. */
function launcher(
  testEnv: TestEnv,
  path: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCommand(testEnv, path, args);
}

interface Problem {
  hop: string;
  message: string;
  fix: string;
}

/** Runs the installed `doctor --json`; returns its exit code and its problems. */
async function doctor(
  testEnv: TestEnv,
  cli: string,
): Promise<{ code: number; problems: Problem[] }> {
  const run = await launcher(testEnv, cli, ["doctor", "--json"]);
  const report = JSON.parse(run.stdout) as {
    healthy: boolean;
    findings: (Problem & { status: string })[];
  };
  assertEquals(report.healthy, run.code === 0, run.stdout);
  return { code: run.code, problems: report.findings.filter((f) => f.status === "problem") };
}

interface Status {
  service: { pid: number } | null;
  browsers?: { extensionVersion: string }[];
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

    await readArticle(client, fixtures);

    const healthy = await launcher(testEnv, cli, ["doctor"]);
    assertEquals(healthy.code, 0, healthy.stdout + healthy.stderr);
    assertMatch(healthy.stdout, /service → browser connector → extension \(slot 0\) and back in/);
    // The client above is the one live connector.
    assertMatch(healthy.stdout, /1 MCP connector connected now/);
    assertMatch(healthy.stdout, /Healthy: every hop answered\./);
    // Each key by whose it is, and no policy file is not "everything allowed": sacred sites stay.
    assertMatch(
      healthy.stdout,
      /ok +instance +the service's public key \(connectors check its signature with it\) \S+service\.pub \(600\)/,
    );
    assertMatch(healthy.stdout, /ok +instance +the MCP connectors' key \S+mcp\.key \(600\)/);
    assertMatch(healthy.stdout, /no policy file \(.*\): everything is allowed except sacred sites/);

    // A client entry pointing at an executable that is not there.
    const claudePath = `${testEnv.home}/.claude.json`;
    const claudeText = await Deno.readTextFile(claudePath);
    const missing = `${testEnv.home}/.local/bin/no-such-connector`;
    await Deno.writeTextFile(claudePath, claudeText.replace(entry.command, missing));
    const broken = await doctor(testEnv, cli);
    assertEquals(broken.code, 1);
    assertEquals(broken.problems.length, 1, JSON.stringify(broken.problems));
    assertEquals(broken.problems[0].hop, "client");
    assertMatch(broken.problems[0].message, new RegExp(`runs ${missing}, which does not exist`));
    assertMatch(broken.problems[0].fix, new RegExp(`point it at ${entry.command}`));
    await Deno.writeTextFile(claudePath, claudeText);

    // A native host manifest removed; the fix doctor names puts it back.
    const manifest = `${testEnv.env.XDG_CONFIG_HOME}/chromium/NativeMessagingHosts/` +
      `com.ghostlight.browser_${testEnv.instance.replaceAll("-", "_")}.json`;
    await Deno.remove(manifest);
    const unregistered = await doctor(testEnv, cli);
    assertEquals(unregistered.code, 1);
    assertEquals(unregistered.problems.map((p) => p.hop), ["native host"]);
    assertMatch(unregistered.problems[0].message, /Chromium cannot start the browser connector/);
    assertMatch(unregistered.problems[0].fix, new RegExp(`run '${server} install'`));
    assertEquals(
      (await launcher(testEnv, cli, [
        "install",
        "--browser",
        "chromium",
        "--client",
        "claude-code",
        "--no-autostart",
      ])).code,
      0,
    );
    assertEquals((await doctor(testEnv, cli)).code, 0);

    // The extension not connected: the browser is closed.
    await chromium.stop();
    chromium = null;
    await pollUntil(
      async () => JSON.parse((await launcher(testEnv, cli, ["status", "--json"])).stdout) as Status,
      (value) => (value.browsers?.length ?? 1) === 0,
      "the service to see the browser go",
    );
    const closed = await doctor(testEnv, cli);
    assertEquals(closed.code, 1);
    assertEquals(closed.problems.map((p) => p.hop), ["extension"]);
    assertMatch(
      closed.problems[0].message,
      /no browser has the extension connected \(last hello: \S+/,
    );
    assertMatch(
      closed.problems[0].fix,
      new RegExp(`"Load unpacked" and choose ${prefix}/extension`),
    );

    // With no service running doctor starts one for the check, and still finds the same.
    await client.close();
    client = null;
    await stopService(testEnv, cli);
    const cold = await launcher(testEnv, cli, ["doctor"]);
    assertEquals(cold.code, 1, cold.stdout);
    assertMatch(cold.stdout, /the service was not running; doctor started it for this check/);
    assertMatch(cold.stdout, /PROBLEM {2}extension +no browser has the extension connected/);
  } finally {
    await client?.close().catch(() => {});
    await chromium?.stop();
    await stopService(testEnv, cli).catch(() => {});
    await fixtures.close();
    await testEnv.dispose();
  }
});
