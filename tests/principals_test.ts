/**
 * Principals end to end (decisions 0255, 0256): a grant names who a connector was started for,
 * never the name its client gives itself; `status` shows both and flags a client calling itself
 * by another principal's name; the deprecated `"clients"` still works, with a warning; each
 * connector is offered only the tools its principal can ever use, and a policy reload that
 * changes that sends `notifications/tools/list_changed` to exactly the clients whose view changed,
 * through real SDK clients of both revisions.
 */

import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { fetchStatus, type Status } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { executable, makeTestEnv, type TestEnv } from "./support/env.ts";
import { ghostlight, runCommand, startService } from "./support/processes.ts";
import { allText } from "./support/results.ts";
import { type CallResult, startSession } from "./support/session.ts";
import { envelope, startConnector, stopService } from "./mcp_support.ts";
import { pollUntil, waitFor } from "./support/wait.ts";

/** Reading is open; running page JavaScript on 127.0.0.1 is refused to the principal `reader`. */
const BY_PRINCIPAL = `{
  "default": "allow",
  "grants": [{ "principals": ["reader"], "hosts": ["127.0.0.1"], "deny": ["execute"] }]
}`;

/** The same grant in the deprecated spelling. */
const BY_CLIENTS = BY_PRINCIPAL.replace('"principals"', '"clients"');

type Caller = { callTool(request: { name: string; arguments: Record<string, unknown> }): unknown };

/** Opens a tab for `client`, loads `url` and runs a line of page JavaScript there. */
async function runScript(client: Caller, url: string): Promise<CallResult> {
  const call = async (name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as CallResult;
  const listed = await call("tabs_context_mcp", { createIfEmpty: true });
  const tabId = (listed.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
  const loaded = await call("navigate", { url, tabId });
  assert(!loaded.isError, allText(loaded));
  return await call("javascript_tool", { action: "javascript_exec", text: "1 + 1", tabId });
}

type Connector = Status["connectors"][number];

Deno.test("a grant binds the principal a connector was started with, not a client claiming its name", async () => {
  const s = await startSession({
    policy: BY_PRINCIPAL,
    env: { GHOSTLIGHT_POLICY_RELOAD_MS: "100" },
  });
  const reader = await s.connectClient("reader", {}, ["--principal", "reader"]);
  // Started with no principal, its client calls itself "reader" all the same.
  const claimer = await s.connectClient("reader");
  try {
    const url = s.fixtures.url("/article.html");
    const refused =
      /^Denied: javascript_tool needs the execute capability on the page in its tab, which is refused \(grant 1 of .*policy\.jsonc \(127\.0\.0\.1\) denies execute\)\. The tab is on:\n<page-content-[^\n]*>\n127\.0\.0\.1\n/;
    const ran = await runScript(reader, url);
    assert(ran.isError, "the principal's grant applies to it");
    assertMatch(allText(ran), refused);
    const claimed = await runScript(claimer, url);
    assert(!claimed.isError, `a claimed name grants nothing: ${allText(claimed)}`);

    // status shows both, and flags the connector whose client calls itself by another's name.
    const out = await ghostlight(s.testEnv, ["status", "--json"]);
    const connectors: Connector[] = JSON.parse(out.stdout).connectors;
    const named = connectors.filter((c) => c.client === "reader 1.0.0");
    assertEquals(named.map((c) => c.principal).sort(), ["reader", "unnamed"]);
    assertEquals(named.find((c) => c.principal === "reader")!.mismatch, undefined);
    assertMatch(
      named.find((c) => c.principal === "unnamed")!.mismatch ?? "",
      /its client calls itself "reader", another principal's name \(reader, which the policy's grants name\), but it was started as unnamed/,
    );
    const text = await ghostlight(s.testEnv, ["status"]);
    assertMatch(text.stdout, /principal reader \(its client says: reader 1\.0\.0\)/);
    assertMatch(
      text.stdout,
      /principal unnamed \(its client says: reader 1\.0\.0\)[^\n]*\n {4}principal mismatch: /,
    );
    assert(!/Warning:/.test(text.stdout), "no warning while the policy says principals");

    // The deprecated "clients" is read as principals, never as client names, with a warning.
    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    await Deno.writeTextFile(paths.policyFile, BY_CLIENTS);
    const warned = await pollUntil(
      async () => JSON.parse((await ghostlight(s.testEnv, ["status", "--json"])).stdout) as Status,
      (status) => (status.person?.policy.warnings ?? []).length > 0,
      "status to warn of the deprecated clients",
    );
    assertMatch(
      warned.person!.policy.warnings![0],
      /grant 1 says "clients", which is deprecated: it is read as "principals"/,
    );
    assertMatch(
      (await ghostlight(s.testEnv, ["status"])).stdout,
      /\n {2}Warning: .*"clients", which is deprecated/,
    );
    const explained = await ghostlight(s.testEnv, [
      "policy",
      "explain",
      "--host",
      "127.0.0.1",
      "--principal",
      "reader",
    ]);
    assertEquals(explained.code, 0, explained.stderr);
    assertMatch(explained.stdout, /\nWarning: .*grant 1 says "clients", which is deprecated/);
    assertMatch(
      explained.stdout,
      /The principal reader on 127\.0\.0\.1: may never run page JavaScript/,
    );
    assertMatch(explained.stdout, /execute +denied +grant 1 of /);
    assertMatch(allText(await runScript(reader, url)), refused);
    assert(!(await runScript(claimer, url)).isError, "the alias names principals, not clients");
  } finally {
    await reader.close().catch(() => {});
    await claimer.close().catch(() => {});
    await s.close();
  }
});

/** A real client of either revision, started with `principal`, counting list_changed. */
interface Listener {
  tools(): Promise<string[]>;
  /** How many notifications/tools/list_changed it has received. */
  changes(): number;
  close(): Promise<void>;
}

async function legacyClient(testEnv: TestEnv, principal: string): Promise<Listener> {
  const { command, args } = executable(testEnv, "mcp-connector", [
    "--instance",
    testEnv.instance,
    "--principal",
    principal,
  ]);
  const client = new Client1({ name: `${principal}-1x`, version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await client.connect(new Stdio1({ command, args, env: testEnv.env, stderr: "pipe" }));
  return {
    tools: async () => (await client.listTools()).tools.map((tool: { name: string }) => tool.name),
    changes: () => changes,
    close: () => client.close(),
  };
}

async function modernClient(testEnv: TestEnv, principal: string): Promise<Listener> {
  const { command, args } = executable(testEnv, "mcp-connector", [
    "--instance",
    testEnv.instance,
    "--principal",
    principal,
  ]);
  const client = new Client2({ name: `${principal}-2x`, version: "2.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => void changes++);
  await client.connect(new Stdio2({ command, args, env: testEnv.env, stderr: "pipe" }));
  assertEquals(client.getNegotiatedProtocolVersion(), "2026-07-28");
  const tools = async () => (await client.listTools()).tools.map((tool) => tool.name);
  // The connector fetches the catalog at the first list; the stream is what it notifies on.
  await tools();
  const stream = await client.listen({ toolsListChanged: true });
  assertEquals(stream.honoredFilter, { toolsListChanged: true });
  return {
    tools,
    changes: () => changes,
    close: async () => {
      await stream.close();
      await client.close();
    },
  };
}

/** The `tools/list` answer of a `2026-07-28` connector driven by hand: its cache fields. */
async function modernListing(testEnv: TestEnv, principal: string) {
  const mcp = startConnector(testEnv, {}, ["--principal", principal]);
  try {
    const answer = await mcp.probe(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: envelope() },
    }));
    const result = answer.result as {
      tools: { name: string }[];
      ttlMs: number;
      cacheScope: string;
    };
    return {
      names: result.tools.map((tool) => tool.name),
      ttlMs: result.ttlMs,
      scope: result.cacheScope,
    };
  } finally {
    await mcp.close();
  }
}

Deno.test("each principal is offered the tools it may use, and told when a reload changes them", async () => {
  const testEnv = await makeTestEnv("prn");
  testEnv.env.GHOSTLIGHT_POLICY_RELOAD_MS = "100";
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  await Deno.mkdir(paths.configDir, { recursive: true });
  await Deno.writeTextFile(paths.policyFile, `{ "default": "allow" }`);
  const service = startService(testEnv);
  const opened: Listener[] = [];
  try {
    await waitFor(() => fetchStatus(paths.controlSocket).then(() => true), "the service");
    const open = async (make: Promise<Listener>) => {
      const listener = await make;
      opened.push(listener);
      return listener;
    };
    const readers = [
      await open(legacyClient(testEnv, "reader")),
      await open(modernClient(testEnv, "reader")),
    ];
    const writers = [
      await open(legacyClient(testEnv, "writer")),
      await open(modernClient(testEnv, "writer")),
    ];
    for (const client of [...readers, ...writers]) {
      assert((await client.tools()).includes("javascript_tool"), "all open: every tool is listed");
    }
    const open2026 = await modernListing(testEnv, "reader");
    assertEquals([open2026.scope, open2026.names.includes("javascript_tool")], ["public", true]);

    // The reader may never run page JavaScript, anywhere: the tool leaves its list alone.
    await Deno.writeTextFile(
      paths.policyFile,
      `{ "default": "allow", "grants": [{ "principals": ["reader"], "deny": ["execute"] }] }`,
    );
    for (const client of readers) {
      await waitFor(() => Promise.resolve(client.changes() === 1), "the reader's list_changed");
      const tools = await client.tools();
      assert(!tools.includes("javascript_tool"), `withheld from the reader: ${tools}`);
      assert(tools.includes("navigate"), "the rest stays");
    }
    for (const client of writers) {
      // A round trip through the service after the reload: a notification sent would be here.
      assert((await client.tools()).includes("javascript_tool"), "still the writer's");
      assertEquals(client.changes(), 0, "the writer's view did not change: no list_changed");
    }
    const reader2026 = await modernListing(testEnv, "reader");
    assertEquals([reader2026.scope, reader2026.ttlMs], ["private", 0], "a projected list");
    assert(!reader2026.names.includes("javascript_tool"));
    const writer2026 = await modernListing(testEnv, "writer");
    assertEquals(writer2026.scope, "public");

    // The writer loses it too; the reader's view does not change again.
    await Deno.writeTextFile(
      paths.policyFile,
      `{ "default": "allow", "grants": [{ "principals": ["reader", "writer"], "deny": ["execute"] }] }`,
    );
    for (const client of writers) {
      await waitFor(() => Promise.resolve(client.changes() === 1), "the writer's list_changed");
      assert(!(await client.tools()).includes("javascript_tool"));
    }
    for (const client of readers) {
      await client.tools();
      assertEquals(client.changes(), 1, "the reader's view stayed: nothing more");
    }
  } finally {
    for (const client of opened) await client.close().catch(() => {});
    await stopService(testEnv);
    await service.status;
    await testEnv.dispose();
  }
});

Deno.test("a malformed principal stops the connector at start, with the reason", async () => {
  const testEnv = await makeTestEnv("prn");
  try {
    const { command, args } = executable(testEnv, "mcp-connector", [
      "--instance",
      testEnv.instance,
      "--principal",
      "Claude Desktop",
    ]);
    const out = await runCommand(testEnv, command, args);
    assertEquals(out.code, 2);
    assertMatch(
      out.stderr,
      /--principal "Claude Desktop" is not a principal: a principal is 1 to 64 lowercase letters/,
    );
    assertEquals(out.stdout, "");
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("the audit names each call's principal, and simulate replays records by it", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  // Two connectors started for different principals; their clients give the same name, with an
  // escape sequence in it.
  const claimed = "same\u001b[2Jclient";
  const reader = await s.connectClient(claimed, {}, ["--principal", "reader"]);
  const writer = await s.connectClient(claimed, {}, ["--principal", "writer"]);
  try {
    const url = s.fixtures.url("/article.html");
    for (const client of [reader, writer]) assert(!(await runScript(client, url)).isError);
    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    const records = (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n")
      .map((line) => JSON.parse(line) as { kind: string; principal?: string; client: string });
    const calls = records.filter((record) => record.kind !== "audit");
    const ofClaimed = calls.filter((record) => record.client === claimed);
    assert(ofClaimed.length >= 12, `each call of both: ${ofClaimed.length}`);
    assertEquals([...new Set(ofClaimed.map((record) => record.principal))].sort(), [
      "reader",
      "writer",
    ]);
    // Every record of a call names its principal (the session's own client too).
    assertEquals(calls.filter((record) => typeof record.principal !== "string"), []);
    const verified = await ghostlight(s.testEnv, ["audit", "verify"]);
    assertEquals(verified.code, 0, verified.stdout + verified.stderr);

    // audit tail shows who, principal first, the client's name escaped.
    const tail = await ghostlight(s.testEnv, ["audit", "tail", "-n", "200"]);
    assertEquals(tail.code, 0, tail.stderr);
    assert(!tail.stdout.includes("\u001b"), "no raw escape reaches the terminal");
    assertMatch(tail.stdout, /: reader \(client same\\u\{001b\}\[2Jclient\) navigate/);
    assertMatch(tail.stdout, /: writer \(client same\\u\{001b\}\[2Jclient\) navigate/);

    // A policy that grants only reader: replayed by principal, the writer's calls are the ones
    // refused, though both clients gave the same name.
    const policy = `${s.testEnv.home}/reader-only.jsonc`;
    await Deno.writeTextFile(
      policy,
      `{ "default": "deny", "grants": [{ "principals": ["reader"], "hosts": ["*"], ` +
        `"allow": ["read", "action", "write", "execute"] }] }`,
    );
    const simulate = (audit: string) =>
      ghostlight(s.testEnv, ["policy", "simulate", policy, "--replay", audit]);
    const replayed = await simulate(paths.auditFile);
    assertEquals(replayed.code, 0, replayed.stderr);
    assertMatch(
      replayed.stdout,
      /Z writer \(its client says: same\\u\{001b\}\[2Jclient\) navigate on 127\.0\.0\.1 would be denied/,
    );
    assert(!/Z reader \(its client says/.test(replayed.stdout), replayed.stdout);
    assert(!/before records named their principal/.test(replayed.stdout));

    // A record written before records named their principal is replayed by its client's name,
    // and the output says so.
    const older = `${s.testEnv.home}/older-audit.jsonl`;
    await Deno.writeTextFile(
      older,
      (await Deno.readTextFile(paths.auditFile)).replaceAll(/"principal":"[a-z-]+",/g, ""),
    );
    const approximated = await simulate(older);
    assertEquals(approximated.code, 0, approximated.stderr);
    assertMatch(
      approximated.stdout,
      /Z same\\u\{001b\}\[2Jclient \(no principal recorded; replayed as same-2jclient\) navigate/,
    );
    assertMatch(
      approximated.stdout,
      /\d+ decision\(s\) were recorded before records named their principal: each was replayed as/,
    );
  } finally {
    await reader.close();
    await writer.close();
    await s.close();
  }
});
