/**
 * The remote shore end to end (issue 31, decision 0400): an agent host written here with the
 * official ACP SDK's agent side, on a real WebSocket on 127.0.0.1, is dialled by
 * `ghostlight remote start`, receives Ghostlight's MCP-over-ACP declaration, lists the pinned
 * tools and, through the service and headless Chromium with the extension, navigates a fixture
 * page and reads it. An unpinned tool is refused as a pin refusal and audited, and the token is
 * found in no log line, audit record, status or command output.
 *
 * @module
 */

import {
  agent,
  type AgentContext,
  McpOverAcpCaller,
  type McpServerAcpDeclaration,
  methods,
  PROTOCOL_VERSION,
} from "@agentclientprotocol/sdk/unstable";
import { type InstancePaths, resolveInstancePaths } from "../shared/instance.ts";
import { remotesFile, tokenFile } from "../shared/remotes.ts";
import { resultOf, socketStream, textOf, type ToolResult } from "./support/acp_socket.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { cli } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { pollUntil, within } from "./support/wait.ts";

/** The agent host: accepts one bearer token and remembers the session's declaration. */
function agentHost(token: string) {
  const declared = Promise.withResolvers<
    { declaration: McpServerAcpDeclaration; client: AgentContext }
  >();
  const caller = new McpOverAcpCaller({ clientInfo: { name: "test-agent-host", version: "1.0" } });
  const refusedHandshakes: string[] = [];
  const app = agent()
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { mcpCapabilities: { acp: true } },
    }))
    .onRequest(methods.agent.session.new, ({ params, client }) => {
      const declaration = params.mcpServers[0] as McpServerAcpDeclaration;
      declared.resolve({ declaration, client });
      return { sessionId: "session-1" };
    })
    .onNotification(methods.agent.mcp.message, caller.handleNotification);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (request.headers.get("authorization") !== `Bearer ${token}`) {
      refusedHandshakes.push(request.headers.get("authorization") ?? "none");
      return new Response("unauthorized", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    app.connect(socketStream(socket));
    return response;
  });
  return { server, declared: declared.promise, caller, refusedHandshakes };
}

/** One test's stack: a session, an agent host that takes `token`, and the shore once started. */
interface Rig {
  s: E2ESession;
  host: ReturnType<typeof agentHost>;
  token: string;
  paths: InstancePaths;
  tokenPath: string;
  url: string;
  shore: Deno.ChildProcess | null;
}

/** Runs `test` with a fresh rig and ends everything it started, whatever happens. */
async function withRig(test: (rig: Rig) => Promise<void>): Promise<void> {
  const s = await startSession();
  const token = `tok-${crypto.randomUUID().replaceAll("-", "")}`;
  const host = agentHost(token);
  const rig: Rig = {
    s,
    host,
    token,
    paths: resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]),
    tokenPath: `${s.testEnv.home}/agent.token`,
    url: `ws://127.0.0.1:${host.server.addr.port}/acp`,
    shore: null,
  };
  try {
    await Deno.writeTextFile(rig.tokenPath, `${token}\n`, { mode: 0o600 });
    await test(rig);
  } finally {
    if (rig.shore !== null) {
      // As Ctrl-C would: the command passes it on to the shore, which ends its tunnel.
      rig.shore.kill("SIGINT");
      await within(rig.shore.output(), 30_000, "the shore to end").catch(() => {
        rig.shore?.kill("SIGKILL");
      });
    }
    await host.server.shutdown();
    await s.close();
  }
}

/** `ghostlight remote add agent URL --binding acp --token-file F --tools TOOLS`. */
async function addAgent(rig: Rig, tools: string): Promise<string[]> {
  const added = await ghostlight(rig.s.testEnv, [
    ...["remote", "add", "agent", rig.url, "--binding", "acp"],
    ...["--token-file", rig.tokenPath, "--tools", tools],
  ]);
  assertEquals(added.code, 0, added.stderr);
  return [added.stdout, added.stderr];
}

/** `ghostlight remote start agent` as the person's launcher starts it, its output collected. */
function startShore(rig: Rig): Deno.ChildProcess {
  const testEnv = rig.s.testEnv;
  const { command, args } = cli(testEnv, [
    ...["--instance", testEnv.instance, "remote", "start", "agent"],
  ]);
  rig.shore = new Deno.Command(command, {
    args,
    env: testEnv.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return rig.shore;
}

Deno.test({
  name: "an ACP agent host is served the pinned tools through the remote shore, and no more",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRig(async (rig) => {
      const { s, host, token, paths } = rig;
      const outputs: string[] = [];
      // Deny-all by default: add proposes the read-only tools and pins nothing.
      const bare = await ghostlight(s.testEnv, [
        "remote",
        "add",
        "other",
        rig.url,
        "--binding",
        "acp",
      ]);
      assertEquals(bare.code, 0, bare.stderr);
      assertMatch(bare.stdout, /may call no tool yet/);
      assertMatch(bare.stdout, /remote pin other --tools .*get_page_text/);
      const insecure = await ghostlight(s.testEnv, [
        ...["remote", "add", "far", "ws://example.com/acp", "--binding", "acp"],
      ]);
      assertEquals(insecure.code, 2);
      assertMatch(insecure.stderr, /ws:\/\/ is not encrypted/);
      outputs.push(bare.stdout, bare.stderr);
      outputs.push(...await addAgent(rig, "tabs_context_mcp,navigate,get_page_text"));
      for (const file of [remotesFile(paths), tokenFile(paths, "agent")]) {
        assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600, `${file} is owner-only`);
      }
      const listed = await ghostlight(s.testEnv, ["remote", "list"]);
      assertEquals(listed.code, 0, listed.stderr);
      assertMatch(listed.stdout, /remote:agent .*tools: tabs_context_mcp,navigate,get_page_text/);
      assertMatch(listed.stdout, /remote:other .*no tool \(deny-all\)/);
      outputs.push(listed.stdout, listed.stderr);

      const shore = startShore(rig);
      const { declaration, client } = await within(host.declared, 60_000, "session/new");
      assertEquals(declaration.type, "acp");
      assertEquals(declaration.name, paths.mcpServerName);
      assert(declaration.serverId.length > 0);
      const call = async (name: string, args: Record<string, unknown>) =>
        resultOf(
          await host.caller.request(client, declaration.serverId, "tools/call", {
            name,
            arguments: args,
          }),
        );
      // The catalog the remote sees is its pin (the policy is all open).
      const listedTools = resultOf(
        await host.caller.request(client, declaration.serverId, "tools/list", {}),
      ) as unknown as { tools: { name: string }[] };
      assertEquals(listedTools.tools.map((tool) => tool.name).sort(), [
        "get_page_text",
        "navigate",
        "tabs_context_mcp",
      ]);

      const context = await call("tabs_context_mcp", { createIfEmpty: true });
      assert(!context.isError, textOf(context));
      const { workspaceId, tabs } = context.structuredContent as {
        workspaceId: string;
        tabs: { tabId: number }[];
      };
      const tabId = tabs[0].tabId;
      const url = s.fixtures.url("/article.html");
      const navigated = await call("navigate", { url, tabId, workspaceId });
      assert(!navigated.isError, textOf(navigated));
      const read = await call("get_page_text", { tabId, workspaceId });
      assert(!read.isError, textOf(read));
      assertMatch(textOf(read), /first lit in 1858/);

      // A tool outside the pin: refused as a pin refusal, audited, the page untouched.
      const refused = await call("javascript_tool", {
        action: "javascript_exec",
        text: "document.title = 'changed'",
        tabId,
        workspaceId,
      });
      assert(refused.isError, `javascript_tool is outside the pin: ${textOf(refused)}`);
      assertMatch(textOf(refused), /pin refusal/);
      const records = (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const pinRecord = records.find((record) =>
        record.tool === "javascript_tool" && record.result === "denied"
      );
      assert(pinRecord, "the pin refusal is audited");
      assertEquals(pinRecord.principal, "remote:agent");
      assertMatch(String(pinRecord.rule), /not in the tool pin of remote agent/);
      assert(
        records.some((record) =>
          record.tool === "get_page_text" && record.principal === "remote:agent"
        ),
        "the remote's calls are audited under its principal",
      );
      assertMatch(textOf(await call("get_page_text", { tabId, workspaceId })), /Skerry Point/);

      const status = await ghostlight(s.testEnv, ["status", "--json"]);
      assertEquals(status.code, 0, status.stderr);
      const connectors = (JSON.parse(status.stdout) as { connectors: { principal: string }[] })
        .connectors;
      assert(
        connectors.some((connector) => connector.principal === "remote:agent"),
        `status lists the remote: ${status.stdout.slice(0, 2000)}`,
      );
      const statusText = await ghostlight(s.testEnv, ["status"]);
      outputs.push(status.stdout, status.stderr, statusText.stdout, statusText.stderr);

      // Ctrl-C ends the shore.
      shore.kill("SIGINT");
      const ended = await within(shore.output(), 30_000, "the shore to end");
      rig.shore = null;
      const shoreSaid = new TextDecoder().decode(ended.stderr);
      outputs.push(new TextDecoder().decode(ended.stdout), shoreSaid);
      assertMatch(shoreSaid, /remote agent: connected to 127\.0\.0\.1/);

      // The token, searched by value: in no log line, audit record, status or output.
      const log = await Deno.readTextFile(paths.logFile);
      const audit = await Deno.readTextFile(paths.auditFile);
      assert(log.length > 0 && audit.length > 0);
      for (const [where, text] of [["the log", log], ["the audit", audit], ...outputs.entries()]) {
        assert(!String(text).includes(token), `the token appears in ${where}`);
      }
      assertEquals(host.refusedHandshakes, []);
    }),
});

Deno.test({
  name: "a shore for a remote the service has not configured is admitted to nothing",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRig(async (rig) => {
      const { s, host, paths } = rig;
      await addAgent(rig, "tabs_context_mcp");
      startShore(rig);
      const { declaration, client } = await within(host.declared, 60_000, "session/new");
      // The person removes the remote while its shore runs: the service no longer binds it.
      const removed = await ghostlight(s.testEnv, ["remote", "remove", "agent"]);
      assertEquals(removed.code, 0, removed.stderr);
      // Its next call is refused: the service turns the shore's connection away.
      const outcome = await within(
        host.caller.request(client, declaration.serverId, "tools/call", {
          name: "tabs_context_mcp",
          arguments: { createIfEmpty: true },
        }),
        60_000,
        "the removed remote's call",
      );
      assert(
        "error" in outcome || (outcome.result as ToolResult).isError === true,
        `refused: ${JSON.stringify(outcome).slice(0, 500)}`,
      );
      await pollUntil(
        () => Deno.readTextFile(paths.logFile),
        (log) => log.includes("remote agent, which is not configured"),
        "the service to refuse the removed remote's connection",
      );
      const status = await ghostlight(s.testEnv, ["status", "--json"]);
      const connectors = (JSON.parse(status.stdout) as { connectors: { principal: string }[] })
        .connectors;
      assert(!connectors.some((connector) => connector.principal === "remote:agent"));
    }),
});
