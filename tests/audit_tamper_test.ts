/**
 * The audit cannot be rewritten and cannot be used to stop the service, end to end: a real
 * service process, a real MCP client through its connector, headless Chromium, and `ghostlight
 * audit verify` as a process. One call with a 370-character host or a restriction of 64 long
 * hosts makes records that verify, and the service goes on serving after a restart; a record
 * edited with the chain recomputed, a cut end, a deleted audit (and a deleted anchor with it) are
 * all caught; `audit reset` starts over on the person's word; and a client's name carrying ESC and
 * a newline reaches `status` and `audit tail` escaped.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type InstancePaths, resolveInstancePaths } from "../shared/instance.ts";
import { fetchStatus } from "../service/control/mod.ts";
import { ChainKey, FIELDS } from "../service/audit/mod.ts";
import { legacyHashOf, seal } from "../service/audit/record.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { executable, makeTestEnv, type TestEnv } from "./support/env.ts";
import { ghostlight, startService } from "./support/processes.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { waitFor } from "./support/wait.ts";

/** A key that is not the service's: what a forger without the secret can sign with. */
const KEYLESS = ChainKey.derive(new Uint8Array(32));

type CallResult = { content: { type: string; text?: string }[]; isError?: boolean };

async function connect(
  testEnv: TestEnv,
  name: string,
  env: Record<string, string> = {},
): Promise<Client> {
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command, args, env: { ...testEnv.env, ...env }, stderr: "pipe" }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return await client.callTool({ name, arguments: args }) as CallResult;
}

async function firstTab(client: Client): Promise<number> {
  const listed = await client.callTool({
    name: "tabs_context_mcp",
    arguments: { createIfEmpty: true },
  });
  assert(!listed.isError, JSON.stringify(listed.content));
  return (listed.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
}

async function lines(file: string): Promise<string[]> {
  return (await Deno.readTextFile(file)).trimEnd().split("\n");
}

/** The service, started and answering, and a way to stop it. */
/**
 * Starts the service and waits for it, and for the browser when `browsers` is 1: a browser that
 * was attached to the service before comes back by itself, some time after the service is up.
 */
async function serviceUp(testEnv: TestEnv, paths: InstancePaths, browsers = 0) {
  const process = startService(testEnv);
  await waitFor(
    async () => {
      const status = await fetchStatus(paths.controlSocket);
      return status.service !== null && status.browsers.length >= browsers;
    },
    browsers > 0 ? "the service and its browser" : "the service",
  );
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      process.kill("SIGTERM");
      await process.status;
    },
  };
}

Deno.test("one call cannot brick the audit, tampering is caught, and caller strings are escaped", async () => {
  const testEnv = await makeTestEnv();
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const fixtures = serveFixtures();
  let service = await serviceUp(testEnv, paths, 1);
  const browser = await launchBrowser(testEnv);
  await waitFor(
    async () => (await fetchStatus(paths.controlSocket)).browsers.length === 1,
    "browser",
  );
  const anchorFile = `${paths.stateDir}/audit.anchor`;
  const verify = () => ghostlight(testEnv, ["audit", "verify"]);
  try {
    // A client whose name carries ESC and a newline, as an attacker would pick it.
    const hostile = "evil\u001b[2J\u001b[31mname\nAudit: all fine";
    const agent = await connect(testEnv, hostile);
    const tab = await firstTab(agent);
    // A 370-character host (six long labels): the records of its navigation are bounded.
    const longHost = [60, 60, 60, 60, 60, 57].map((n) => "a".repeat(n)).join(".") + ".invalid";
    assertEquals(longHost.length, 370);
    await call(agent, "navigate", { url: `http://${longHost}/`, tabId: tab });

    // A client restricted to 64 long hosts: its refusal's rule names them all.
    const hosts = Array.from({ length: 64 }, (_, i) => `${"h".repeat(50)}-${i}.example`);
    const restricted = await connect(testEnv, "restricted-agent", {
      GHOSTLIGHT_RESTRICT_HOSTS: hosts.join(","),
    });
    const own = await firstTab(restricted);
    const refused = await call(restricted, "navigate", {
      url: fixtures.url("/index.html"),
      tabId: own,
    });
    assert(refused.isError, "the restriction refuses the navigation");
    await restricted.close();

    // `status` and `audit tail` show the hostile name escaped: no ESC, no forged line.
    const status = await ghostlight(testEnv, ["status"]);
    assertEquals(status.code, 0, status.stderr);
    assert(!status.stdout.includes("\u001b"), "no raw ESC in status");
    assert(!/^Audit: all fine/m.test(status.stdout), "no forged line in status");
    assertMatch(status.stdout, /evil\\u\{001b\}\[2J\\u\{001b\}\[31mname\\u\{000a\}Audit: all fine/);
    const tail = await ghostlight(testEnv, ["audit", "tail", "-n", "50"]);
    assertEquals(tail.code, 0, tail.stderr);
    assert(!tail.stdout.includes("\u001b"), "no raw ESC in audit tail");
    assert(!/^Audit: all fine/m.test(tail.stdout), "no forged line in audit tail");
    assertMatch(tail.stdout, /evil\\u\{001b\}\[2J/);
    await agent.close();

    const written = await lines(paths.auditFile);
    assert(written.some((line) => JSON.parse(line).host?.startsWith("aaaa")), "the host is there");
    const verified = await verify();
    assertEquals(verified.code, 0, verified.stdout + verified.stderr);
    assertMatch(verified.stdout, /^The audit is intact: \d+ record\(s\).*its anchor names record/);

    // After a restart the service still serves: the records it wrote continue the chain.
    await service.stop();
    service = await serviceUp(testEnv, paths, 1);
    const after = await connect(testEnv, "after-restart");
    const again = await firstTab(after);
    const navigated = await call(after, "navigate", {
      url: fixtures.url("/index.html"),
      tabId: again,
    });
    assert(!navigated.isError, JSON.stringify(navigated.content));
    await after.close();
    await service.stop();
    assertEquals((await verify()).code, 0);

    const records = await lines(paths.auditFile);
    const anchor = await Deno.readTextFile(anchorFile);
    const restore = async () => {
      await Deno.writeTextFile(paths.auditFile, records.join("\n") + "\n");
      await Deno.writeTextFile(anchorFile, anchor);
      assertEquals((await verify()).code, 0);
    };

    // A record edited with the chain recomputed after it, without the service's key: as plain
    // SHA-256 from the edit on (all an unkeyed chain needed), as plain SHA-256 from the first
    // record (so it reads as an audit from before the key), or under a key of the forger's own.
    const forgeries: [string, ChainKey | null, number, RegExp][] = [
      ["plain after", null, 1, /:2: the record on line 2 carries a plain hash after keyed records/],
      ["plain all", null, 0, /record \d+ is not the one the anchor names: it was replaced/],
      ["other key", KEYLESS, 1, /:2: the record on line 2 was edited: its keyed hash/],
    ];
    for (const [name, forger, from, caught] of forgeries) {
      let prev = from === 0 ? null : JSON.parse(records[0]).hash;
      const forged = records.slice(0, from);
      for (const line of records.slice(from)) {
        const { hash: _, seq, time, prev: __, ...entry } = JSON.parse(line);
        if (seq === 2) entry.host = "innocent.example";
        const record = seal(entry, { seq: seq - 1, hash: prev }, new Date(time), KEYLESS);
        if (forger === null) {
          const { hash: ___, ...rest } = record;
          record.hash = legacyHashOf(rest);
        }
        forged.push(JSON.stringify(record, FIELDS));
        prev = record.hash;
      }
      await Deno.writeTextFile(paths.auditFile, forged.join("\n") + "\n");
      const recomputed = await verify();
      assertEquals(recomputed.code, 1, `${name}: ${recomputed.stdout}`);
      assertMatch(recomputed.stdout, caught, name);
    }
    await restore();

    // The last records cut off.
    await Deno.writeTextFile(paths.auditFile, records.slice(0, -3).join("\n") + "\n");
    const cut = await verify();
    assertEquals(cut.code, 1, cut.stdout);
    assertMatch(cut.stdout, /but its anchor names record \d+: 3 record\(s\) were cut off the end/);
    await restore();

    // The audit deleted: verify says so, and a restarted service records the gap and serves.
    await Deno.remove(paths.auditFile);
    const deleted = await verify();
    assertEquals(deleted.code, 1, deleted.stdout);
    assertMatch(deleted.stdout, /there are no records: the audit was deleted/);
    service = await serviceUp(testEnv, paths, 1);
    const afterDeletion = await connect(testEnv, "after-deletion");
    await firstTab(afterDeletion);
    await afterDeletion.close();
    await service.stop();
    const gap = await verify();
    assertEquals(gap.code, 1, gap.stdout);
    assertMatch(gap.stdout, /the audit has 1 gap\(s\)/);
    assertMatch(
      gap.stdout,
      /at start the service found the audit was deleted: its anchor names record \d+/,
    );

    // The audit and its anchor deleted together: the instance has run, so that is no fresh start.
    await Deno.remove(paths.auditFile);
    await Deno.remove(anchorFile);
    const both = await verify();
    assertEquals(both.code, 1, both.stdout);
    assertMatch(both.stdout, /no anchor, but this instance has run/);
    service = await serviceUp(testEnv, paths, 1);
    await service.stop();
    const bothGap = await verify();
    assertEquals(bothGap.code, 1, bothGap.stdout);
    assertMatch(
      bothGap.stdout,
      /this instance had run before: the audit and its anchor were deleted/,
    );

    // The person starts over: recorded, and the new audit verifies.
    const reset = await ghostlight(testEnv, ["audit", "reset"]);
    assertEquals(reset.code, 0, reset.stderr);
    assertMatch(reset.stdout, /A new audit starts at record 1, which records this reset/);
    const fresh = await verify();
    assertEquals(fresh.code, 0, fresh.stdout);
    assertMatch(fresh.stdout, /Record 1 \(.*\): the person reset the audit: 2 earlier file\(s\)/);
    service = await serviceUp(testEnv, paths, 1);
  } finally {
    await browser.stop();
    await service.stop();
    await fixtures.close();
    await testEnv.dispose();
  }
});
