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
  type McpNotification,
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
import { requestPerson } from "../service/cli/person_command.ts";
import { connectCdp } from "./support/cdp.ts";
import { ghostlight } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { pollUntil, waitFor, within } from "./support/wait.ts";

/** The inner `_meta` key of a listen stream's id (MCP 2026-07-28). */
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** One ACP session an agent host accepted: Ghostlight's declaration and the way to call it. */
interface HostSession {
  declaration: McpServerAcpDeclaration;
  client: AgentContext;
}

/**
 * The agent host: accepts one bearer token, remembers each session's declaration and how each
 * WebSocket was closed (the code and reason Ghostlight gave).
 */
function agentHost(token: string) {
  const declared = Promise.withResolvers<HostSession>();
  const sessions: HostSession[] = [];
  const closes: { code: number; reason: string }[] = [];
  const caller = new McpOverAcpCaller({ clientInfo: { name: "test-agent-host", version: "1.0" } });
  const refusedHandshakes: string[] = [];
  const app = agent()
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { mcpCapabilities: { acp: true } },
    }))
    .onRequest(methods.agent.session.new, ({ params, client }) => {
      const declaration = params.mcpServers[0] as McpServerAcpDeclaration;
      sessions.push({ declaration, client });
      declared.resolve({ declaration, client });
      return { sessionId: `session-${sessions.length}` };
    })
    .onNotification(methods.agent.mcp.message, caller.handleNotification);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (request.headers.get("authorization") !== `Bearer ${token}`) {
      refusedHandshakes.push(request.headers.get("authorization") ?? "none");
      return new Response("unauthorized", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.addEventListener("close", (event) => {
      closes.push({ code: event.code, reason: event.reason });
    });
    app.connect(socketStream(socket));
    return response;
  });
  return { server, declared: declared.promise, sessions, closes, caller, refusedHandshakes };
}

/** One test's stack: a session, an agent host that takes `token`, and the shores it started. */
interface Rig {
  s: E2ESession;
  host: ReturnType<typeof agentHost>;
  token: string;
  paths: InstancePaths;
  tokenPath: string;
  url: string;
  /** Each shore started, with its output once it ended. */
  shores: { child: Deno.ChildProcess; output: Promise<Deno.CommandOutput> }[];
}

/** Runs `test` with a fresh rig and ends everything it started, whatever happens. */
async function withRig(
  test: (rig: Rig) => Promise<void>,
  options: Parameters<typeof startSession>[0] = {},
): Promise<void> {
  const s = await startSession(options);
  const token = `tok-${crypto.randomUUID().replaceAll("-", "")}`;
  const host = agentHost(token);
  const rig: Rig = {
    s,
    host,
    token,
    paths: resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]),
    tokenPath: `${s.testEnv.home}/agent.token`,
    url: `ws://127.0.0.1:${host.server.addr.port}/acp`,
    shores: [],
  };
  try {
    await Deno.writeTextFile(rig.tokenPath, `${token}\n`, { mode: 0o600 });
    await test(rig);
  } finally {
    for (const shore of rig.shores) {
      // As Ctrl-C would: the command passes it on to the shore, which ends its tunnel.
      try {
        shore.child.kill("SIGINT");
      } catch {
        // Ended already.
      }
      await within(shore.output, 30_000, "the shore to end").catch(() => {
        try {
          shore.child.kill("SIGKILL");
        } catch {
          // Ended meanwhile.
        }
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
function startShore(rig: Rig): { child: Deno.ChildProcess; output: Promise<Deno.CommandOutput> } {
  const testEnv = rig.s.testEnv;
  const { command, args } = cli(testEnv, [
    ...["--instance", testEnv.instance, "remote", "start", "agent"],
  ]);
  const child = new Deno.Command(command, {
    args,
    // A call whose caller sent a progress token reports every 300 ms rather than every 5 s.
    env: { ...testEnv.env, GHOSTLIGHT_PROGRESS_INTERVAL_MS: "300" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const shore = { child, output: child.output() };
  rig.shores.push(shore);
  return shore;
}

/** The `n`th session (1 first) the agent host accepted, once it has. */
async function nthSession(rig: Rig, n: number): Promise<HostSession> {
  await waitFor(() => Promise.resolve(rig.host.sessions.length >= n), `ACP session ${n}`, 60_000);
  return rig.host.sessions[n - 1];
}

/** A tool call over MCP-over-ACP in `session`, its result (an error answer fails the test). */
async function callIn(
  rig: Rig,
  session: HostSession,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return resultOf(
    await rig.host.caller.request(session.client, session.declaration.serverId, "tools/call", {
      name,
      arguments: args,
    }),
  );
}

/** The names `tools/list` gives in `session`, sorted. */
async function listedIn(rig: Rig, session: HostSession): Promise<string[]> {
  const listed = resultOf(
    await rig.host.caller.request(session.client, session.declaration.serverId, "tools/list", {}),
  ) as unknown as { tools: { name: string }[] };
  return listed.tools.map((tool) => tool.name).sort();
}

/**
 * The number the person's surfaces give the remote agent's newest workspace (an older shore's
 * may still wait out its grace period).
 */
async function remoteWorkspace(rig: Rig): Promise<number> {
  const answer = await requestPerson(rig.paths, { op: "state" });
  assert(typeof answer !== "number" && answer.ok, `the person's state: ${JSON.stringify(answer)}`);
  const numbers = answer.state.workspaces.filter((w) => w.principal === "remote:agent")
    .map((w) => w.number);
  assert(numbers.length > 0, `a workspace of remote:agent: ${JSON.stringify(answer.state)}`);
  return Math.max(...numbers);
}

/**
 * The policy of the governance steps: everything allowed, except that remote:agent may not act
 * on 127.0.0.1, and localhost is sacred.
 */
const REMOTE_POLICY = `{
  "default": "allow",
  "grants": [{ "principals": ["remote:agent"], "hosts": ["127.0.0.1"], "deny": ["action"] }],
  "sacred": ["localhost"]
}`;

/** The tools the main test pins. */
const PINNED = ["computer", "get_page_text", "navigate", "tabs_context_mcp", "wait_for"];

Deno.test({
  name: "an ACP agent host is served the pinned tools through the remote shore, and no more",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
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
      outputs.push(...await addAgent(rig, PINNED.join(",")));
      for (const file of [remotesFile(paths), tokenFile(paths, "agent")]) {
        assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600, `${file} is owner-only`);
      }
      const listed = await ghostlight(s.testEnv, ["remote", "list"]);
      assertEquals(listed.code, 0, listed.stderr);
      assertMatch(listed.stdout, /remote:agent .*tools: computer,get_page_text,navigate/);
      assertMatch(listed.stdout, /remote:other .*no tool \(deny-all\)/);
      outputs.push(listed.stdout, listed.stderr);

      const shore = startShore(rig);
      const first = await within(host.declared, 60_000, "session/new");
      const { declaration } = first;
      assertEquals(declaration.type, "acp");
      assertEquals(declaration.name, paths.mcpServerName);
      assert(declaration.serverId.length > 0);
      const call = (name: string, args: Record<string, unknown>) => callIn(rig, first, name, args);
      // The catalog the remote sees is its pin (the policy withholds none of these tools).
      assertEquals(await listedIn(rig, first), PINNED);

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
      const audited = async () =>
        (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const records = await audited();
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

      await t.step(
        "a policy denial for remote:agent holds, and a sacred site is refused",
        async () => {
          const denied = await call("computer", {
            action: "scroll",
            coordinate: [100, 100],
            scroll_direction: "down",
            tabId,
            workspaceId,
          });
          assert(denied.isError, `the policy denies remote:agent acting here: ${textOf(denied)}`);
          assertMatch(textOf(denied), /^Denied: /);
          const record = (await audited()).findLast((record) => record.tool === "computer");
          assertEquals(record?.result, "denied");
          assertEquals(record?.principal, "remote:agent");
          const sacred = await call("navigate", {
            url: s.fixtures.url("/index.html").replace("127.0.0.1", "localhost"),
            tabId,
            workspaceId,
          });
          assert(sacred.isError, textOf(sacred));
          assertMatch(textOf(sacred), /localhost is a sacred site/);
          assert(!(await call("get_page_text", { tabId, workspaceId })).isError);
        },
      );

      const cdp = await connectCdp(s.browser.ready.devtools!);
      const popup = await cdp.open(
        `chrome-extension://${s.browser.ready.extension_id}/popup.html`,
        { width: 380, height: 640, scale: 1 },
      );
      try {
        const number = await remoteWorkspace(rig);
        const card = `.workspace[data-number="${number}"]`;
        // The popup refreshes by itself: a button may come only with its next look.
        const click = (op: string) =>
          waitFor(
            () =>
              popup.evaluate<boolean>(
                `(() => { const b = document.querySelector('button[data-op="${op}"]` +
                  `[data-workspace="${number}"]'); b?.click(); return b !== null; })()`,
              ),
            `the popup's ${op} button for the remote's workspace`,
          );
        const press = async (op: string, state: string) => {
          await click(op);
          await waitFor(
            () =>
              popup.evaluate<boolean>(
                `document.querySelector('${card}')?.dataset.state === "${state}"`,
              ),
            `the remote's workspace to show ${state} in the popup`,
          );
        };

        await t.step(
          "hold and resume from the CLI act on the remote agent's next call",
          async () => {
            const held = await ghostlight(s.testEnv, ["hold", String(number)]);
            assertEquals(held.code, 0, held.stderr);
            assertMatch(held.stdout, /remote:agent\) is paused/);
            assertMatch(
              textOf(await call("get_page_text", { tabId, workspaceId })),
              /^Paused by the person/,
            );
            const resumed = await ghostlight(s.testEnv, ["resume", String(number)]);
            assertEquals(resumed.code, 0, resumed.stderr);
            assertMatch(
              textOf(await call("get_page_text", { tabId, workspaceId })),
              /Skerry Point/,
            );
          },
        );

        await t.step(
          "a long call's progress reaches the agent host, with its request",
          async () => {
            const progress: McpNotification[] = [];
            const waited = await host.caller.request(
              first.client,
              declaration.serverId,
              "tools/call",
              {
                name: "computer",
                arguments: { action: "wait", duration: 1.5, tabId, workspaceId },
                _meta: { progressToken: "wait-progress" },
              },
              {
                requestId: "wait-1",
                onNotification: (notification) => progress.push(notification),
              },
            );
            assert(!resultOf(waited).isError, JSON.stringify(waited));
            const reports = progress.filter((notification) =>
              notification.method === "notifications/progress"
            );
            assert(reports.length > 0, `progress heard: ${JSON.stringify(progress)}`);
            for (const report of reports) {
              assertEquals(report.params?.progressToken, "wait-progress");
              assertMatch(String(report.params?.message), /computer is still running/);
            }
          },
        );

        await t.step(
          "hold and resume from the popup act on the remote agent's next call",
          async () => {
            await waitFor(
              () =>
                popup.evaluate<boolean>(`document.querySelector('${card} .remote-mark') !== null`),
              "the popup to mark the remote agent's workspace",
            );
            await press("hold", "held");
            assertMatch(
              textOf(await call("get_page_text", { tabId, workspaceId })),
              /^Paused by the person/,
            );
            await press("resume", "idle");
            assertMatch(
              textOf(await call("get_page_text", { tabId, workspaceId })),
              /Skerry Point/,
            );
          },
        );

        // A listen stream, as an agent host keeps one to hear that its tool list changed.
        const heard: McpNotification[] = [];
        const listening = host.caller.request(
          first.client,
          declaration.serverId,
          "subscriptions/listen",
          { notifications: { toolsListChanged: true } },
          { requestId: "listen-1", onNotification: (notification) => heard.push(notification) },
        ).catch((error: Error) => ({ error: { code: 0, message: error.message } }));
        const changes = () =>
          heard.filter((notification) =>
            notification.method === "notifications/tools/list_changed" &&
            (notification.params?._meta as Record<string, unknown> | undefined)
                ?.[SUBSCRIPTION_ID] === "listen-1"
          ).length;
        await waitFor(
          () =>
            Promise.resolve(
              heard.some((notification) =>
                notification.method === "notifications/subscriptions/acknowledged"
              ),
            ),
          "the listen stream to be acknowledged",
        );

        await t.step("a narrowed or widened pin refreshes the remote's tool list", async () => {
          const narrowed = PINNED.filter((tool) => tool !== "navigate");
          const pinned = await ghostlight(s.testEnv, [
            ...["remote", "pin", "agent", "--tools", narrowed.join(",")],
          ]);
          assertEquals(pinned.code, 0, pinned.stderr);
          await waitFor(
            () => Promise.resolve(changes() === 1),
            "the remote to hear its tool list changed",
          );
          assertEquals(await listedIn(rig, first), narrowed);
          assertMatch(textOf(await call("navigate", { url, tabId, workspaceId })), /pin refusal/);
          const widened = await ghostlight(s.testEnv, [
            ...["remote", "pin", "agent", "--tools", PINNED.join(",")],
          ]);
          assertEquals(widened.code, 0, widened.stderr);
          await waitFor(
            () => Promise.resolve(changes() === 2),
            "the remote to hear its tool list grew",
          );
          assertEquals(await listedIn(rig, first), PINNED);
        });

        await t.step("Stop in the popup ends the tunnel and tells the agent host why", async () => {
          // A call in flight when the person stops the agent: answered, saying so.
          const inFlight = host.caller.request(first.client, declaration.serverId, "tools/call", {
            name: "wait_for",
            arguments: {
              text: "a text this page never shows",
              timeout_ms: 30_000,
              tabId,
              workspaceId,
            },
          }).catch((error: Error) => ({ error: { code: 0, message: error.message } }));
          await waitFor(
            () =>
              popup.evaluate<boolean>(
                `document.querySelector('${card}')?.dataset.state === "running"`,
              ),
            "the popup to show the remote agent's call running",
          );
          await click("stop");
          const answered = await within(inFlight, 30_000, "the call in flight to be answered");
          const said = "error" in answered
            ? answered.error.message
            : textOf(answered.result as ToolResult);
          assertMatch(said, /stopped/, JSON.stringify(answered));
          assert(
            !("result" in answered) || (answered.result as ToolResult).isError,
            "the stopped call is an error",
          );
          const ended = await within(shore.output, 30_000, "the stopped shore to end");
          const shoreSaid = new TextDecoder().decode(ended.stderr);
          outputs.push(new TextDecoder().decode(ended.stdout), shoreSaid);
          assertMatch(shoreSaid, /remote agent: connected to 127\.0\.0\.1/);
          assertMatch(shoreSaid, /ended: the person stopped this remote agent/);
          // Ended by the person, not failed: nothing should start it again by itself.
          assertEquals(ended.code, 0, shoreSaid);
          await waitFor(() => Promise.resolve(host.closes.length === 1), "the tunnel to close");
          assertEquals(host.closes[0].code, 1000);
          assertMatch(host.closes[0].reason, /the person stopped this remote agent/);
          assertMatch(JSON.stringify(await listening), /stopped/);
          // The shore is gone, so no session followed the stop.
          assertEquals(host.sessions.length, 1);
        });
      } finally {
        await popup.close().catch(() => {});
        cdp.close();
      }

      await t.step(
        "a second shore replaces the first, whose teardown leaves it working",
        async () => {
          // Started again by the person, it serves again.
          const again = startShore(rig);
          const second = await nthSession(rig, 2);
          const context = await callIn(rig, second, "tabs_context_mcp", { createIfEmpty: true });
          assert(!context.isError, textOf(context));
          // A second shore for the same remote: the first is told to end and closes its tunnel.
          const newer = startShore(rig);
          const third = await nthSession(rig, 3);
          const replaced = await within(again.output, 60_000, "the replaced shore to end");
          const replacedSaid = new TextDecoder().decode(replaced.stderr);
          outputs.push(new TextDecoder().decode(replaced.stdout), replacedSaid);
          assertEquals(replaced.code, 0, replacedSaid);
          assertMatch(replacedSaid, /ended: another Ghostlight shore for this remote connected/);
          await waitFor(
            () => Promise.resolve(host.closes.length === 2),
            "the replaced tunnel to close",
          );
          assertMatch(host.closes[1].reason, /replaced/, JSON.stringify(host.closes));
          // The old shore's teardown (its tunnel, its service links) left the new one working.
          const served = await callIn(rig, third, "tabs_context_mcp", { createIfEmpty: true });
          assert(!served.isError, textOf(served));
          const state = await requestPerson(paths, { op: "state" });
          assert(typeof state !== "number" && state.ok);
          assert(
            state.state.remotes?.some((remote) => remote.name === "agent" && remote.connected),
            `the newer shore still takes prompts: ${JSON.stringify(state.state.remotes)}`,
          );
          // And the person's Stop from the CLI still reaches the newer shore.
          const stopped = await ghostlight(s.testEnv, ["stop", String(await remoteWorkspace(rig))]);
          assertEquals(stopped.code, 0, stopped.stderr);
          const ended = await within(newer.output, 60_000, "the newer shore to end on Stop");
          const newerSaid = new TextDecoder().decode(ended.stderr);
          outputs.push(new TextDecoder().decode(ended.stdout), newerSaid);
          assertMatch(newerSaid, /ended: the person stopped this remote agent/);
          await waitFor(
            () => Promise.resolve(host.closes.length === 3),
            "the stopped tunnel to close",
          );
          assertMatch(host.closes[2].reason, /the person stopped this remote agent/);
          assertEquals(host.sessions.length, 3);
        },
      );

      // The token, searched by value: in no log line, audit record, status or output.
      const log = await Deno.readTextFile(paths.logFile);
      const audit = await Deno.readTextFile(paths.auditFile);
      assert(log.length > 0 && audit.length > 0);
      for (const [where, text] of [["the log", log], ["the audit", audit], ...outputs.entries()]) {
        assert(!String(text).includes(token), `the token appears in ${where}`);
      }
      assertEquals(host.refusedHandshakes, []);
    }, { launchArgs: ["--remote-debugging"], policy: REMOTE_POLICY }),
});

Deno.test({
  name: "a shore for a remote the service has not configured is admitted to nothing",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withRig(async (rig) => {
      const { s, host, paths } = rig;
      await addAgent(rig, "tabs_context_mcp");
      const shore = startShore(rig);
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
      // Ctrl-C ends the shore, as the person's own end of it (exit 0).
      shore.child.kill("SIGINT");
      const ended = await within(shore.output, 30_000, "the shore to end");
      const said = new TextDecoder().decode(ended.stderr);
      assertEquals(ended.code, 0, said);
      assertMatch(said, /remote agent: connected to 127\.0\.0\.1/);
    }),
});
