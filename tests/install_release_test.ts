/**
 * The release archive and the one-line installer that takes it: `install.sh`, alone on a
 * machine with no Deno and no npm on PATH, fetches this machine's archive and SHA256SUMS from
 * the base URL its one variable names (here a server on 127.0.0.1), checks the sum, and installs
 * with the Deno inside the archive; Chromium with the installed extension reaches it and the
 * installed `doctor` reports every hop healthy. A corrupted archive is refused by its sum and
 * nothing is installed.
 *
 * The Deno platform package is fetched once into `dist/cache/` (checked against its recorded
 * integrity every time), so a run after the first downloads nothing.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv, ROOT, type TestEnv } from "./support/env.ts";
import {
  SHELL_TOOLS,
  startChromium,
  stopService,
  toolsOnlyPath,
  waitForBrowser,
} from "./support/installed.ts";
import { runCommand } from "./support/processes.ts";
import { archiveName, buildArchive, writeSums } from "../scripts/release.ts";
import { PLATFORMS } from "../scripts/deno_platforms.ts";

const CACHE = `${ROOT}/dist/cache`;

/** What an archive must hold: the installer, the app, the built extension, its Deno. */
const SHIPPED = [
  "install.sh",
  "install.ts",
  "deno.json",
  "deno.lock",
  "scripts/start.ts",
  "service/installer.ts",
  "mcp_connector/main.ts",
  "extension/manifest.json",
  "extension/dist/background.js",
  "runtime/deno",
];

/** Serves the files of `dir` on 127.0.0.1; `close` stops it. */
function serveDir(dir: string): { url: string; close(): Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const name = new URL(request.url).pathname.slice(1);
    if (name.includes("/")) return new Response("not found", { status: 404 });
    const file = await Deno.open(`${dir}/${name}`).catch(() => null);
    return file === null
      ? new Response("not found", { status: 404 })
      : new Response(file.readable, { status: 200 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** Runs the lone install.sh with a PATH of shell tools only. */
async function installScript(
  testEnv: TestEnv,
  script: string,
  args: string[],
  releaseUrl: string,
): Promise<{ code: number; out: string }> {
  const run = await runCommand(
    { ...testEnv, env: { ...testEnv.env, GHOSTLIGHT_RELEASE_URL: releaseUrl } },
    "sh",
    [script, ...args],
  );
  return { code: run.code, out: run.stdout + run.stderr };
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("install.sh takes the release archive by its sum, with no Deno and no npm, and doctor is healthy", async () => {
  const base = await makeTestEnv("rel");
  const release = `${base.home}/release`;
  await buildArchive("linux-x64", release, CACHE);
  const sums = await Deno.readTextFile(await writeSums(release));
  assertMatch(sums, new RegExp(`^[0-9a-f]{64}  ${archiveName("linux-x64")}\n$`));
  const listed = await new Deno.Command("tar", {
    args: ["-tzf", `${release}/${archiveName("linux-x64")}`],
  }).output();
  const entries = new TextDecoder().decode(listed.stdout).split("\n");
  const top = archiveName("linux-x64").replace(/\.tar\.gz$/, "");
  for (const path of SHIPPED) assert(entries.includes(`${top}/${path}`), `${path} is shipped`);
  assert(!entries.some((entry) => entry.endsWith("_test.ts")), "no tests are shipped");
  const served = serveDir(release);
  const testEnv: TestEnv = {
    ...base,
    env: { ...base.env, PATH: await toolsOnlyPath(base, SHELL_TOOLS) },
  };
  const server = `ghostlight-${testEnv.instance}`;
  const cli = `${testEnv.home}/.local/bin/${server}`;
  const prefix = `${testEnv.home}/.local/share/${server}`;
  let chromium: ReturnType<typeof startChromium> | null = null;
  let client: Client | null = null;
  try {
    // install.sh alone, as `curl … | sh` would have it: no checkout beside it.
    await Deno.mkdir(`${testEnv.home}/fetched`);
    const script = `${testEnv.home}/fetched/install.sh`;
    await Deno.copyFile(`${ROOT}/install.sh`, script);
    const options = ["--instance", testEnv.instance, "--browser", "chromium", "--no-autostart"];

    // A corrupted archive: refused by its sum, and nothing of Ghostlight is written.
    const corrupt = `${testEnv.home}/corrupt`;
    await Deno.mkdir(corrupt);
    const bytes = await Deno.readFile(`${release}/${archiveName("linux-x64")}`);
    bytes[bytes.length >> 1] ^= 0xff;
    await Deno.writeFile(`${corrupt}/${archiveName("linux-x64")}`, bytes);
    await Deno.copyFile(`${release}/SHA256SUMS`, `${corrupt}/SHA256SUMS`);
    const before = await listing(testEnv.home);
    const corruptServer = serveDir(corrupt);
    try {
      const refused = await installScript(testEnv, script, options, corruptServer.url);
      assertEquals(refused.code, 1, refused.out);
      assertMatch(
        refused.out,
        /ghostlight-.*-linux-x64\.tar\.gz does not match its SHA-256 in SHA256SUMS .*nothing was installed/,
      );
    } finally {
      await corruptServer.close();
    }
    assertEquals(await listing(testEnv.home), before, "nothing was installed");

    const installed = await installScript(testEnv, script, options, served.url);
    assertEquals(installed.code, 0, installed.out);
    assertMatch(
      installed.out,
      /Installed Ghostlight into .*launchers that run the installed sources/,
    );
    // The installed Deno is the archive's, the platform package's binary.
    const runtime = await Deno.readFile(`${prefix}/runtime/deno`);
    assertEquals([...runtime.slice(0, 4)], [...PLATFORMS["linux-x64"].magic]);
    const launcher = await Deno.readTextFile(`${testEnv.home}/.local/bin/${server}-mcp-connector`);
    assertMatch(launcher, new RegExp(`^exec '${prefix}/runtime/deno' 'run'`, "m"));

    // The person's browser runs with the person's PATH (its own start script needs more tools).
    chromium = startChromium(base, `${prefix}/extension`);
    // A client's connector, as an entry names it, starts the installed service on demand.
    client = new Client({ name: "release-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: `${testEnv.home}/.local/bin/${server}-mcp-connector`,
        args: ["--principal", "release-test"],
        env: testEnv.env,
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assert(tools.some((tool: { name: string }) => tool.name === "navigate"), "tools are listed");
    await waitForBrowser(testEnv, cli);
    const doctor = await runCommand(testEnv, cli, ["doctor"]);
    assertEquals(doctor.code, 0, doctor.stdout + doctor.stderr);
    assertMatch(doctor.stdout, /Healthy: every hop answered\./);
  } finally {
    await client?.close().catch(() => {});
    await chromium?.stop();
    await stopService(testEnv, cli).catch(() => {});
    await served.close();
    await base.dispose();
  }
});
