/**
 * The walking skeleton end to end: the 1.x SDK client spawns the MCP connector under its own
 * permission set; the service and the browser connector run under theirs; headless Chromium
 * with the extension does the work on a page served by this test.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { decodeBase64 } from "../shared/base64.ts";
import { jpegSize } from "../service/tools/page/jpeg.ts";
import { launchBrowser, type LaunchedBrowser } from "./support/browser.ts";
import { executable, makeTestEnv, withEnv } from "./support/env.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { descendantsMatching } from "./support/processes.ts";
import { pollUntil, waitFor } from "./support/wait.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";

type TextBlock = { type: "text"; text: string };
type ImageBlock = { type: "image"; data: string; mimeType: string };

Deno.test("an MCP client drives headless Chromium through all three processes", async () => {
  const testEnv = await makeTestEnv();
  const fixtures = serveFixtures();
  // As the README says: `deno task ghostlight --instance X browser launch --headless`, and a
  // client spawning the connector from some other directory.
  const browser = await launchBrowser(testEnv, { viaTask: true });
  const elsewhere = await Deno.makeTempDir({ dir: testEnv.home });
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: testEnv.env,
    cwd: elsewhere,
    stderr: "pipe",
  });
  const client = new Client({ name: "skeleton-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const names = tools.map((tool: { name: string }) => tool.name);
    for (
      const name of ["tabs_context_mcp", "tabs_create_mcp", "navigate", "computer", "get_page_text"]
    ) {
      assert(names.includes(name), `${name} is advertised`);
    }

    const context = await client.callTool({
      name: "tabs_context_mcp",
      arguments: { createIfEmpty: true },
    });
    assert(!context.isError, JSON.stringify(context));
    const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    assertEquals(typeof tabId, "number");

    const navigated = await client.callTool({
      name: "navigate",
      arguments: { url: fixtures.url("/index.html"), tabId },
    });
    assert(!navigated.isError, JSON.stringify(navigated));
    assertMatch((navigated.content as TextBlock[])[0].text, /Ghostlight fixture home/);

    const text = await client.callTool({ name: "get_page_text", arguments: { tabId } });
    assert(!text.isError, JSON.stringify(text));
    const body = (text.content as TextBlock[])[0].text;
    assertMatch(body, /fog bell was tested on Tuesday/);
    assertMatch(body, /origin="http:\/\/127\.0\.0\.1:\d+" trust="untrusted"/);

    const shot = await client.callTool({
      name: "computer",
      arguments: { action: "screenshot", tabId },
    });
    assert(!shot.isError, JSON.stringify(shot));
    const image = (shot.content as (TextBlock | ImageBlock)[]).find((b) =>
      b.type === "image"
    ) as ImageBlock;
    assertEquals(image.mimeType, "image/jpeg");
    const size = jpegSize(decodeBase64(image.data));
    assert(size !== null, "the screenshot decodes as JPEG");
    assert(
      size.width > 0 && size.width <= 1568 && size.height > 0 && size.height <= 1568,
      JSON.stringify(size),
    );

    const created = await client.callTool({ name: "tabs_create_mcp", arguments: {} });
    assert(!created.isError, JSON.stringify(created));
    const tabs = (created.structuredContent as { tabs: { tabId: number }[] }).tabs;
    assertEquals(tabs.length, 2);
  } finally {
    await client.close().catch(() => {});
    assertEquals(await browser.stop(), 0);
    // Launch removes what it created and leaves no browser behind.
    const profileGone = await Deno.stat(browser.ready.user_data_dir).then(() => false, () => true);
    assert(profileGone, "the temporary profile is removed");
    const strays = [`${testEnv.home}/config/chromium`, `${testEnv.home}/cache/chromium`];
    for (const stray of strays) {
      assert(await Deno.stat(stray).then(() => false, () => true), `nothing left in ${stray}`);
    }
    const alive = await new Deno.Command("kill", { args: ["-0", String(browser.ready.pid)] })
      .output();
    assert(!alive.success, "Chromium has exited");
    await fixtures.close();
    await testEnv.dispose();
  }
});

Deno.test("with only HOME set (no XDG variables) launch and a client still meet; a SIGKILLed launch takes its Chromium with it", async (t) => {
  const testEnv = await makeTestEnv();
  // A desktop session often sets none of them; the MCP client filters them out anyway.
  const env = Object.fromEntries(
    Object.entries(testEnv.env).filter(([key]) => !key.startsWith("XDG_")),
  );
  const bare = await withEnv(testEnv, env);
  const fixtures = serveFixtures();
  const browser = await launchBrowser(bare);
  const { command, args } = executable(bare, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "bare-env-test", version: "1.0.0" });
  let killed = false;
  try {
    await t.step("launch and a client meet", async () => {
      await client.connect(new StdioClientTransport({ command, args, env, stderr: "pipe" }));
      const context = await client.callTool({
        name: "tabs_context_mcp",
        arguments: { createIfEmpty: true },
      });
      assert(!context.isError, JSON.stringify(context.content));
      const tabId = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
      const text = await client.callTool({
        name: "navigate",
        arguments: { url: fixtures.url("/"), tabId },
      });
      assertMatch((text.content as TextBlock[])[0].text, /Ghostlight fixture home/);
      // Gone before launch is killed, so it cannot start a service of its own on demand.
      await client.close();
    });

    await t.step("with no Chromium on PATH, launch says how to install it", async () => {
      const empty = await Deno.makeTempDir({ dir: testEnv.home });
      const noChromium = await withEnv(testEnv, { ...env, PATH: empty });
      await assertRejects(() => launchBrowser(noChromium), /Chromium is not installed/);
    });

    // A person's `kill -9`, the OOM killer, a harness's timeout: launch runs none of its own
    // cleanup, yet Chromium and everything it started, the browser connector included, end
    // with it (decision 0640).
    await t.step("SIGKILLed, launch leaves no Chromium and no browser connector", async () => {
      const connectors = await descendantsMatching(browser.ready.pid, /browser_connector/);
      assertEquals(connectors.length, 1, "Chromium runs the browser connector");
      const tree = await launchTree(browser);
      killed = true;
      await browser.kill("SIGKILL");
      await allEnded(
        tree,
        "Chromium, its helpers and the browser connector after launch's SIGKILL",
      );
      // Nor its throwaway folder (the profile, the extension's copy, the native host's entry).
      const root = browser.ready.user_data_dir.replace(/\/profile$/, "");
      await waitFor(() => Deno.stat(root).then(() => false, () => true), `${root} removed`);
    });

    // SIGTERM first, so Chromium can end its helpers and write its profile; then a bound: a
    // Chromium that cannot act on it (stopped here; hung, for a person) is killed 5 s later, and
    // launch still ends and removes its profile.
    await t.step(
      "a Chromium deaf to SIGTERM is killed after 5 s and launch still cleans up",
      async () => {
        const deaf = await launchBrowser(bare);
        const tree = await launchTree(deaf);
        Deno.kill(deaf.ready.pid, "SIGSTOP");
        const asked = Date.now();
        try {
          const stopped = deaf.stop();
          // A stopped process keeps a SIGTERM pending: the watcher asked before it killed.
          await waitFor(
            async () => termPending(await Deno.readTextFile(`/proc/${deaf.ready.pid}/status`)),
            "a SIGTERM pending for the stopped Chromium",
          );
          assertEquals(await stopped, 0);
          const took = Date.now() - asked;
          assert(took >= 5_000, `SIGKILL came only after Chromium's 5 s (launch took ${took} ms)`);
          await allEnded(tree, "a stopped Chromium and everything below it after launch's stop");
          const profileGone = await Deno.stat(deaf.ready.user_data_dir).then(
            () => false,
            () => true,
          );
          assert(profileGone, "the temporary profile is removed");
        } finally {
          // Were it left stopped (a failed check), it could not end even when killed by a group.
          try {
            Deno.kill(deaf.ready.pid, "SIGCONT");
          } catch {
            // Gone, as it should be.
          }
        }
      },
    );
  } finally {
    await client.close().catch(() => {});
    if (!killed) assertEquals(await browser.stop(), 0);
    await fixtures.close();
    await testEnv.dispose();
  }
});

/**
 * Every process a launch started (Chromium's watcher, Chromium, its helpers, the browser
 * connector), each with its start time.
 */
async function launchTree(launched: LaunchedBrowser): Promise<Started[]> {
  const below = await descendantsMatching(launched.launcher, /./);
  assert(below.includes(launched.ready.pid), "Chromium runs below launch");
  return await Promise.all(below.map(processStart));
}

/** Waits until every process of `tree` has ended; kills any left, so none outlives the test. */
async function allEnded(tree: Started[], what: string): Promise<void> {
  try {
    await pollUntil(
      async () => (await Promise.all(tree.map(stillRunning))).filter((pid) => pid !== null),
      (left) => left.length === 0,
      `the end of ${what}`,
    );
  } finally {
    for (const pid of await Promise.all(tree.map(stillRunning))) {
      if (pid !== null) Deno.kill(pid, "SIGKILL");
    }
  }
}

/** Whether a process's `/proc/PID/status` shows a SIGTERM (signal 15) pending for it. */
function termPending(status: string): boolean {
  const pending = status.match(/^ShdPnd:\s*([0-9a-f]+)$/m)?.[1];
  return pending !== undefined && (BigInt(`0x${pending}`) & (1n << 14n)) !== 0n;
}

/** A process and when it started, so a reused process id is never taken for it. */
interface Started {
  pid: number;
  start: string | null;
}

/** When process `pid` started (its clock ticks since boot), or null once it is gone. */
async function startOf(pid: number): Promise<string | null> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  if (stat === "") return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 3 of stat is the state (a zombie has ended); field 22 the start time.
  return fields[0] === "Z" ? null : fields[19];
}

async function processStart(pid: number): Promise<Started> {
  return { pid, start: await startOf(pid) };
}

/** `process`'s id while that very process still runs, else null. */
async function stillRunning(process: Started): Promise<number | null> {
  return process.start !== null && (await startOf(process.pid)) === process.start
    ? process.pid
    : null;
}
