/**
 * The MCPB bundles for Claude Desktop, one per platform, each carrying its platform's Deno from
 * the npm registry. The linux-x64 bundle, packed and unpacked by the pinned `@anthropic-ai/mcpb`
 * CLI into a folder whose path holds spaces as Claude Desktop's own does, in a fresh HOME with no
 * Deno and no npm on PATH, is run as Claude Desktop runs a bundle's Node server
 * (`node ${__dirname}/server/ghostlight.mjs`, `${__dirname}` replaced): its first launch sets up
 * the browser side as `ghostlight install --client none` does and says so on stderr and in
 * `ghostlight status`, a real MCP client drives headless Chromium through it, and a second launch
 * changes nothing. The other
 * platforms' bundles are assembled and checked: manifest valid for their OS, their Deno the
 * platform package's binary. A platform package that does not match its recorded integrity is
 * refused.
 *
 * The Deno platform packages are fetched once into `dist/cache/`; a later run downloads nothing.
 * The test HOME keeps the test run's Deno cache (DENO_DIR), so npm modules are not fetched again.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { makeTestEnv, ROOT, type TestEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { runCommand } from "./support/processes.ts";
import {
  readArticle,
  startChromium,
  stopService,
  toolsOnlyPath,
  waitForBrowser,
} from "./support/installed.ts";
import { assembleBundle, bundleName, MCPB_CLI, packBundle } from "../mcpb/build.ts";
import { denoTarball, type Platform, PLATFORMS, sha256Hex } from "../scripts/deno_platforms.ts";

const CACHE = `${ROOT}/dist/cache`;

/** Runs the pinned MCPB CLI with this process's own environment (its npm cache). */
async function mcpb(args: string[]): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command("npx", { args: ["-y", MCPB_CLI, ...args], stdin: "null" })
    .output();
  const decoder = new TextDecoder();
  return { code: output.code, out: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

/** Every file under `dirs` with its digest and mode: what "changes nothing" compares. */
async function snapshot(dirs: string[]): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const mode = ((await Deno.stat(path)).mode ?? 0) & 0o777;
        files[path] = `${await sha256Hex(await Deno.readFile(path))} ${mode.toString(8)}`;
      } else files[path] = `link ${await Deno.readLink(path)}`;
    }
  };
  for (const dir of dirs) await walk(dir).catch(() => {});
  return files;
}

/** One launch as Claude Desktop makes it: the manifest's command and arguments, its stderr kept. */
async function launch(
  testEnv: TestEnv,
  node: string,
  dir: string,
): Promise<{ client: Client; stderr: () => string }> {
  const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
  const config = manifest.server.mcp_config as { command: string; args: string[] };
  assertEquals(config.command, "node");
  const transport = new StdioClientTransport({
    command: node,
    args: config.args.map((arg) => arg.replace("${__dirname}", dir)),
    env: { ...testEnv.env, GHOSTLIGHT_INSTANCE: testEnv.instance },
    stderr: "pipe",
  });
  let text = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => text += new TextDecoder().decode(chunk));
  const client = new Client({ name: "claude-desktop-like", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => text };
}

/** What `ghostlight status`, as the person runs it, says the first launch set up. */
async function firstLaunchShown(testEnv: TestEnv, cli: string): Promise<string> {
  const shown = await runCommand(testEnv, cli, ["status"]);
  assertEquals(shown.code, 0, shown.stdout + shown.stderr);
  const start = shown.stdout.indexOf("Set up by the Claude Desktop bundle's first launch");
  assert(start >= 0, shown.stdout);
  return shown.stdout.slice(start, shown.stdout.indexOf("\nBrowsers:", start));
}

Deno.test("the linux-x64 bundle, in a folder with spaces and no Deno on PATH, sets up the browser side once and drives Chromium", async () => {
  const base = await makeTestEnv("mcpb");
  const fixtures = serveFixtures();
  const testEnv: TestEnv = {
    ...base,
    env: { ...base.env, PATH: await toolsOnlyPath(base, ["node", "sh", "env"]) },
  };
  const node = `${testEnv.home}/tools/node`;
  const server = `ghostlight-${testEnv.instance}`;
  const cli = `${testEnv.home}/.local/bin/${server}`;
  const prefix = `${testEnv.home}/.local/share/${server}`;
  const work = `${testEnv.home}/build`;
  // Where Claude Desktop unpacks its extensions on macOS: two spaces in the path.
  const dir = `${testEnv.home}/Library/Application Support/Claude/Claude Extensions/ghostlight`;
  let client: Client | null = null;
  let chromium: ReturnType<typeof startChromium> | null = null;
  try {
    await assembleBundle("linux-x64", `${work}/bundle`, CACHE);
    const validated = await mcpb(["validate", `${work}/bundle/manifest.json`]);
    assertEquals(validated.code, 0, validated.out);
    await packBundle(`${work}/bundle`, `${work}/${bundleName("linux-x64")}`);
    const unpacked = await mcpb(["unpack", `${work}/${bundleName("linux-x64")}`, dir]);
    assertEquals(unpacked.code, 0, unpacked.out);
    await Deno.remove(work, { recursive: true });
    // The person's Chromium has run before: its profile folder is there to register with.
    await Deno.mkdir(`${testEnv.env.XDG_CONFIG_HOME}/chromium`);

    const first = await launch(testEnv, node, dir);
    client = first.client;
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
    const { tools } = await client.listTools();
    assertEquals(
      tools.map((tool: { name: string }) => tool.name),
      manifest.tools.map((tool: { name: string }) => tool.name),
    );
    assertMatch(first.stderr(), /first launch: setting up the browser side/);
    assertMatch(first.stderr(), /Installed Ghostlight into /);
    // What `install --client none` sets up, and nothing for any client.
    const receipt = JSON.parse(await Deno.readTextFile(`${prefix}/install.json`));
    assertEquals(receipt.clients, []);
    assertEquals(receipt.browsers.length, 1);
    await Deno.stat(`${prefix}/extension/manifest.json`);
    await Deno.stat(`${prefix}/service-entry`);
    assertEquals(
      await Deno.stat(`${testEnv.home}/.claude.json`).then(() => true, () => false),
      false,
    );

    chromium = startChromium(base, `${prefix}/extension`);
    await waitForBrowser(testEnv, cli);
    // `ghostlight status`, under the service's own permissions, says what the first launch set up.
    const shownStatus = await firstLaunchShown(testEnv, cli);
    assertMatch(
      shownStatus,
      new RegExp(
        `Set up by the Claude Desktop bundle's first launch at .*: Ghostlight in ${prefix},`,
      ),
    );
    assertMatch(shownStatus, /\n {2}chromium: added, /);
    assertMatch(shownStatus, /\n {2}autostart: /);
    const record = `${testEnv.env.XDG_STATE_HOME}/${server}/first-launch.json`;
    const recorded = await Deno.readTextFile(record);
    await readArticle(client, fixtures);
    await client.close();
    client = null;

    // A second launch finds the install and changes nothing.
    const watched = [
      `${testEnv.home}/.local`,
      `${testEnv.env.XDG_CONFIG_HOME}/chromium/NativeMessagingHosts`,
      `${testEnv.env.XDG_CONFIG_HOME}/systemd`,
    ];
    const before = await snapshot(watched);
    const second = await launch(testEnv, node, dir);
    client = second.client;
    assert((await client.listTools()).tools.length > 0);
    assert(!/first launch/.test(second.stderr()), second.stderr());
    assertEquals(await snapshot(watched), before);
    assertEquals(await Deno.readTextFile(record), recorded);
    assertEquals(await firstLaunchShown(testEnv, cli), shownStatus);
  } finally {
    await client?.close().catch(() => {});
    await chromium?.stop();
    await stopService(testEnv, cli).catch(() => {});
    await fixtures.close();
    await base.dispose();
  }
});

Deno.test("every other platform's bundle is valid for its OS and carries that platform's Deno", async () => {
  const testEnv = await makeTestEnv("mcpb");
  try {
    for (const platform of ["darwin-arm64", "darwin-x64", "win32-x64"] as Platform[]) {
      const row = PLATFORMS[platform];
      const dir = `${testEnv.home}/${platform}`;
      const digest = await assembleBundle(platform, dir, CACHE);
      const validated = await mcpb(["validate", `${dir}/manifest.json`]);
      assertEquals(validated.code, 0, validated.out);
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
      assertEquals(manifest.compatibility.platforms, [row.os]);
      const binary = await Deno.readFile(`${dir}/runtime/${row.binary}`);
      assertEquals([...binary.slice(0, row.magic.length)], [...row.magic], platform);
      assertEquals(await sha256Hex(binary), digest);
      await Deno.stat(`${dir}/app/extension/dist/background.js`);
      await Deno.stat(`${dir}/server/ghostlight.mjs`);
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("a Deno platform package that does not match its recorded integrity is refused", async () => {
  const testEnv = await makeTestEnv("mcpb");
  try {
    const cache = `${testEnv.home}/cache-of-another`;
    await Deno.mkdir(cache);
    // linux-x64's tarball where darwin-x64's is expected.
    const linux = await denoTarball("linux-x64", CACHE);
    const name = "deno-darwin-x64-2.9.6.tgz";
    await Deno.copyFile(linux, `${cache}/${name}`);
    await assertRejects(
      () => denoTarball("darwin-x64", cache),
      /@deno\/darwin-x64@2\.9\.6 does not match its recorded integrity/,
    );
    assertEquals(await Deno.stat(`${cache}/${name}`).then(() => true, () => false), false);
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("without any Deno, the entry says what to install", async () => {
  const testEnv = await makeTestEnv("mcpb");
  try {
    await assembleBundle("linux-x64", `${testEnv.home}/bundle`, CACHE);
    await Deno.remove(`${testEnv.home}/bundle/runtime`, { recursive: true });
    const tools = await toolsOnlyPath(testEnv, ["node"]);
    const output = await new Deno.Command(`${tools}/node`, {
      args: [`${testEnv.home}/bundle/server/ghostlight.mjs`],
      env: { HOME: testEnv.home, PATH: tools },
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
