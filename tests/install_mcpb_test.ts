/**
 * The MCPB bundle for Claude Desktop: the project builds its manifest, the pinned
 * `@anthropic-ai/mcpb` CLI validates and packs it, and the packed bundle's server entry, run as
 * Claude Desktop runs it (`node ${__dirname}/server/ghostlight.mjs`), starts a working connector
 * from its sources with its instance's least-privilege flags; without any Deno it says what to
 * install.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";
import { assembleBundle, MCPB_CLI, packBundle } from "../mcpb/build.ts";

/** Runs the pinned MCPB CLI with this process's own environment (its npm cache). */
async function mcpb(args: string[]): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command("npx", { args: ["-y", MCPB_CLI, ...args], stdin: "null" })
    .output();
  const decoder = new TextDecoder();
  return { code: output.code, out: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("the bundle validates, packs, and its entry starts a working connector", async () => {
  const testEnv = await makeTestEnv("mcpb");
  const work = `${testEnv.home}/mcpb`;
  let client: Client | null = null;
  try {
    await assembleBundle(`${work}/bundle`);
    const validated = await mcpb(["validate", `${work}/bundle/manifest.json`]);
    assertEquals(validated.code, 0, validated.out);
    assertMatch(validated.out, /Manifest schema validation passes/);

    await packBundle(`${work}/bundle`, `${work}/ghostlight.mcpb`);
    const unpacked = await mcpb(["unpack", `${work}/ghostlight.mcpb`, `${work}/installed`]);
    assertEquals(unpacked.code, 0, unpacked.out);
    const manifest = JSON.parse(await Deno.readTextFile(`${work}/installed/manifest.json`));
    const config = manifest.server.mcp_config as { command: string; args: string[] };
    assertEquals(config.command, "node");

    // As Claude Desktop runs it: ${__dirname} is the unpacked bundle, user_config.instance set.
    client = new Client({ name: "mcpb-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: config.command,
        args: config.args.map((arg) => arg.replace("${__dirname}", `${work}/installed`)),
        env: { ...testEnv.env, GHOSTLIGHT_INSTANCE: testEnv.instance },
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assertEquals(
      tools.map((tool: { name: string }) => tool.name),
      manifest.tools.map((tool: { name: string }) => tool.name),
    );
    const context = await client.callTool({ name: "tabs_context_mcp", arguments: {} });
    assert(!context.isError, JSON.stringify(context));
  } finally {
    await client?.close().catch(() => {});
    const status = await ghostlight(testEnv, ["status", "--json"]);
    const pid = JSON.parse(status.stdout).service?.pid as number | undefined;
    if (pid) {
      Deno.kill(pid, "SIGTERM");
      await waitFor(async () => {
        const probe = await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" })
          .output();
        return !probe.success;
      }, "the bundle's service to exit");
    }
    await testEnv.dispose();
  }
});

Deno.test("without any Deno, the entry says what to install", async () => {
  const testEnv = await makeTestEnv("mcpb");
  try {
    await assembleBundle(`${testEnv.home}/bundle`);
    // A PATH with Node and nothing else on it.
    const which = await new Deno.Command("sh", { args: ["-c", "command -v node"] }).output();
    await Deno.mkdir(`${testEnv.home}/node-only`);
    await Deno.symlink(
      new TextDecoder().decode(which.stdout).trim(),
      `${testEnv.home}/node-only/node`,
    );
    const output = await new Deno.Command(`${testEnv.home}/node-only/node`, {
      args: [`${testEnv.home}/bundle/server/ghostlight.mjs`],
      env: { HOME: testEnv.home, PATH: `${testEnv.home}/node-only` },
      clearEnv: true,
      stdin: "null",
    }).output();
    assertEquals(output.code, 1);
    assertMatch(
      new TextDecoder().decode(output.stderr),
      /^Ghostlight: no Deno was found to run this bundle's connector; install Deno/,
    );
  } finally {
    await testEnv.dispose();
  }
});
