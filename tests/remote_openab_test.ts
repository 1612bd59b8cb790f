/**
 * The `openab` binding end to end (issue 31, decision 0460): a gateway written here from OpenAB's
 * tunnel contract (docs/mcp-over-acp-tunnel-contract.md in openabdev/openab), a real WebSocket
 * server on 127.0.0.1 speaking the contract's frames, is dialled by `ghostlight remote start`
 * and, through the service and headless Chromium with the extension: initialize / initialized,
 * tools/list (exactly the pin), navigate and read, `mcp/cancel` mid-call, `mcp/disconnect`, the
 * 1 MiB method-frame error (connection kept), the 8 MiB frame close, a reconnect that resumes
 * the session, a call cut by a dropped socket (outcome unknown, not repeated), a resume that
 * withdraws the server, and a refused resume that opens nothing.
 *
 * @module
 */

import { type InstancePaths, resolveInstancePaths } from "../shared/instance.ts";
import { requestPerson } from "../service/cli/person_command.ts";
import { textOf, type ToolResult } from "./support/acp_socket.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectCdp, typeInto } from "./support/cdp.ts";
import { cli } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { startSession } from "./support/session.ts";
import { pollUntil, waitFor, within } from "./support/wait.ts";

type Frame = Record<string, unknown> & { id?: number | string; method?: string };
type Reply = { result?: Record<string, unknown>; error?: { code: number; message: string } };

/** The contract's limits, as the gateway holds them on its side. */
const MIB = 1024 * 1024;

/** One gateway socket: its frames out, the answers it waits for, its session requests. */
class GatewaySocket {
  readonly waiting = new Map<number | string, PromiseWithResolvers<Reply>>();
  readonly closed = Promise.withResolvers<{ code: number; reason: string }>();
  readonly unanswered: (number | string)[] = [];
  next = 1_000;
  constructor(readonly socket: WebSocket) {}

  send(frame: Frame): void {
    if (this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ jsonrpc: "2.0", ...frame }));
    }
  }

  /** A request to the shore; resolves with its reply. */
  request(method: string, params: unknown): { id: number; reply: Promise<Reply> } {
    const id = ++this.next;
    const reply = Promise.withResolvers<Reply>();
    this.waiting.set(id, reply);
    this.send({ id, method, params });
    const bounded = within(reply.promise, 60_000, `the reply to ${method}`);
    bounded.catch(() => {}); // Awaited where it matters; a cancelled request's never is.
    return { id, reply: bounded };
  }

  /** `mcp/connect`, then the MCP handshake on the new connection, as the contract orders it. */
  async connect(acpId: string): Promise<{ connectionId: string; initialized: Reply }> {
    const connected = await this.request("mcp/connect", { acpId }).reply;
    assert(connected.result, `mcp/connect: ${JSON.stringify(connected)}`);
    const connectionId = connected.result.connectionId as string;
    const initialized = await this.request("mcp/message", {
      connectionId,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "test-openab-gateway", version: "1.0" },
      },
    }).reply;
    this.send({
      method: "mcp/message",
      params: { connectionId, method: "notifications/initialized", params: {} },
    });
    return { connectionId, initialized };
  }

  /** One inner MCP request over `connectionId`. */
  mcp(connectionId: string, method: string, params: unknown) {
    return this.request("mcp/message", { connectionId, method, params });
  }
}

/** What the gateway saw of the shore's sessions. */
interface SessionSeen {
  method: "session/new" | "session/resume";
  servers: { type: string; id: string; name: string }[];
  socket: GatewaySocket;
}

/** A gateway written from the contract: bearer in the subprotocol offer, acp.v1 echoed. */
function gateway(token: string) {
  const sessions: SessionSeen[] = [];
  const sessionArrived: PromiseWithResolvers<void>[] = [Promise.withResolvers()];
  const refused: string[] = [];
  const registered = new Set<string>();
  let rejectResume = false;
  let down = false;
  let silent = false;
  /** The agent's turn for a prompt: what it says back (it may call tools meanwhile). */
  let onPrompt: ((side: GatewaySocket, text: string) => Promise<string>) | null = null;
  /** Every socket the gateway accepted, in order. */
  const sockets: GatewaySocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (down) return new Response("down for maintenance", { status: 503 });
    const offers = (request.headers.get("sec-websocket-protocol") ?? "").split(",")
      .map((offer) => offer.trim());
    if (!offers.includes(`openab.bearer.${token}`) || !offers.includes("acp.v1")) {
      refused.push(request.headers.get("sec-websocket-protocol") ?? "none");
      return new Response("unauthorized", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: "acp.v1" });
    const side = new GatewaySocket(socket);
    sockets.push(side);
    socket.onclose = (event) => side.closed.resolve({ code: event.code, reason: event.reason });
    socket.onmessage = (event) => {
      const text = event.data as string;
      // The contract's first limit, on the gateway's side: an oversized frame closes.
      if (text.length > 8 * MIB) return socket.close(1009, "frame over 8 MiB");
      const frame = JSON.parse(text) as Frame & Reply;
      if (frame.method === undefined) {
        const waiting = side.waiting.get(frame.id!);
        side.waiting.delete(frame.id!);
        if (waiting) waiting.resolve(frame);
        else side.unanswered.push(frame.id!);
        return;
      }
      const params = frame.params as { mcpServers?: SessionSeen["servers"] };
      if (frame.method === "session/prompt" && onPrompt !== null) {
        // The client drives the chat session (the contract's base): a turn, streamed back.
        const { sessionId, prompt } = frame.params as {
          sessionId: string;
          prompt: { text?: string }[];
        };
        const text = prompt.map((block) => block.text ?? "").join("");
        onPrompt(side, text).then((reply) => {
          side.send({
            method: "session/update",
            params: {
              sessionId,
              update: {
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: reply },
              },
            },
          });
          side.send({ id: frame.id, result: { stopReason: "end_turn" } });
        });
        return;
      }
      if (frame.method === "initialize") {
        // A gateway that never answers the setup: the shore's setup bound must end it.
        if (silent) return;
        side.send({ id: frame.id, result: { protocolVersion: 1, agentCapabilities: {} } });
      } else if (frame.method === "session/new" || frame.method === "session/resume") {
        const servers = params.mcpServers ?? [];
        if (frame.method === "session/resume" && rejectResume) {
          side.send({ id: frame.id, error: { code: -32002, message: "no such session" } });
        } else {
          // A resume withdraws every server it does not re-declare.
          const now = new Set(servers.map((declared) => declared.id));
          for (const id of registered) if (!now.has(id)) registered.delete(id);
          for (const id of now) registered.add(id);
          side.send({
            id: frame.id,
            result: frame.method === "session/new" ? { sessionId: "s-1" } : {},
          });
        }
        sessions.push({ method: frame.method, servers, socket: side });
        sessionArrived.at(-1)!.resolve();
        sessionArrived.push(Promise.withResolvers());
      }
    };
    return response;
  });
  return {
    server,
    sessions,
    refused,
    registered,
    set rejectResume(value: boolean) {
      rejectResume = value;
    },
    sockets,
    /** How the agent answers the person's prompts. */
    set onPrompt(turn: (side: GatewaySocket, text: string) => Promise<string>) {
      onPrompt = turn;
    },
    /** While set, ACP `initialize` is never answered. */
    set silent(value: boolean) {
      silent = value;
    },
    /** While set, every handshake is turned away (503). */
    set down(value: boolean) {
      down = value;
    },
    /** The `n`th session request (0 first), once it has arrived. */
    async session(n: number): Promise<SessionSeen> {
      while (sessions.length <= n) {
        await within(sessionArrived.at(-1)!.promise, 60_000, `session request ${n}`);
      }
      return sessions[n];
    },
  };
}

/** The reply's tool result, which must not be a tool error (its words are in the failure). */
function toolResult(reply: Reply): ToolResult {
  assert(reply.result, `an MCP result, not ${JSON.stringify(reply).slice(0, 500)}`);
  const result = reply.result as unknown as ToolResult;
  assert(
    !result.isError,
    `a tool's answer, not its error: ${JSON.stringify(result).slice(0, 500)}`,
  );
  return result;
}

async function auditOf(paths: InstancePaths): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Collects a child's stderr as it comes, so the test can wait on what the shore said. */
function collect(stream: ReadableStream<Uint8Array>) {
  const said = { text: "" };
  const done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) said.text += decoder.decode(chunk, { stream: true });
  })();
  return { said, done };
}

Deno.test({
  name: "an OpenAB gateway is served the pinned tools over the tunnel contract, within its limits",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    // The service runs apart from the browser's launcher, so a step can restart it alone.
    const s = await startSession({ launchArgs: ["--remote-debugging"], serviceApart: true });
    const token = `tok-${crypto.randomUUID().replaceAll("-", "")}`;
    const host = gateway(token);
    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    const tokenPath = `${s.testEnv.home}/gateway.token`;
    const url = `ws://127.0.0.1:${host.server.addr.port}/acp`;
    let shore: Deno.ChildProcess | null = null;
    let stderr: ReturnType<typeof collect> | null = null;
    const outputs: string[] = [];
    try {
      await Deno.writeTextFile(tokenPath, `${token}\n`, { mode: 0o600 });
      const added = await ghostlight(s.testEnv, [
        ...["remote", "add", "agent", url, "--binding", "openab", "--token-file", tokenPath],
        ...["--tools", "tabs_context_mcp,navigate,get_page_text,computer"],
      ]);
      assertEquals(added.code, 0, added.stderr);
      outputs.push(added.stdout, added.stderr);
      const { command, args } = cli(s.testEnv, [
        ...["--instance", s.testEnv.instance, "remote", "start", "agent"],
      ]);
      shore = new Deno.Command(command, {
        args,
        // Shorter waits between dials (12 s at most): still enough for eight failed setups in a
        // row to take longer than a status read.
        env: { ...s.testEnv.env, GHOSTLIGHT_REMOTE_RECONNECT_MS: "200" },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      stderr = collect(shore.stderr);
      const shoreSaid = (pattern: RegExp, what: string) =>
        pollUntil(() => Promise.resolve(stderr!.said.text), (text) => pattern.test(text), what);

      const statusSays = (pattern: RegExp, what: string) =>
        pollUntil(
          async () => {
            const status = await ghostlight(s.testEnv, ["status"]);
            outputs.push(status.stdout, status.stderr);
            return status.stdout;
          },
          (text) => pattern.test(text),
          what,
          90_000,
        );
      const first = await host.session(0);
      const gw = first.socket;
      const serverId = first.servers[0]?.id;
      let tabId = 0;
      let workspaceId = "";
      let connectionId = "";

      await t.step(
        "session/new declares the server; initialize; tools/list is the pin",
        async () => {
          assertEquals(first.method, "session/new");
          assertEquals(first.servers.length, 1);
          assertEquals(first.servers[0].type, "acp");
          assertEquals(first.servers[0].name, paths.mcpServerName);
          const opened = await gw.connect(serverId);
          connectionId = opened.connectionId;
          assertEquals(
            (opened.initialized.result as { protocolVersion: string }).protocolVersion,
            "2025-11-25",
          );
          const listed = await gw.mcp(connectionId, "tools/list", {}).reply;
          const names = (listed.result as { tools: { name: string }[] }).tools.map((tool) =>
            tool.name
          );
          assertEquals(names.sort(), ["computer", "get_page_text", "navigate", "tabs_context_mcp"]);
          // Another declaration id is not ours: no connection.
          const stranger = await gw.request("mcp/connect", { acpId: "not-declared" }).reply;
          assertEquals(stranger.error?.code, -32602);
          await statusSays(/remote agent: connected to 127\.0\.0\.1:\d+/, "status: connected");
        },
      );

      const call = (name: string, args: Record<string, unknown>) =>
        gw.mcp(connectionId, "tools/call", { name, arguments: args });

      /** A tab in this connection's workspace, on the fixture page, read back. */
      const openAndRead = async (side: GatewaySocket) => {
        const use = (name: string, args: Record<string, unknown>) =>
          side.mcp(connectionId, "tools/call", { name, arguments: args }).reply.then(toolResult);
        const context = await use("tabs_context_mcp", { createIfEmpty: true });
        assert(!context.isError, textOf(context));
        const made = context.structuredContent as {
          workspaceId: string;
          tabs: { tabId: number }[];
        };
        workspaceId = made.workspaceId;
        tabId = made.tabs[0].tabId;
        const url = s.fixtures.url("/article.html");
        const navigated = await use("navigate", { url, tabId, workspaceId });
        assert(!navigated.isError, textOf(navigated));
        assertMatch(
          textOf(await use("get_page_text", { tabId, workspaceId })),
          /first lit in 1858/,
        );
      };

      await t.step("navigate and read a fixture page", () => openAndRead(gw));

      await t.step("the side panel prompts the gateway's agent over the binding", async () => {
        host.onPrompt = async (side, text) => {
          const read = toolResult(
            await side.mcp(connectionId, "tools/call", {
              name: "get_page_text",
              arguments: { tabId, workspaceId },
            }).reply,
          );
          return `Heard "${text}"; the page says ${
            /first lit in 1858/.test(textOf(read)) ? "1858" : "nothing"
          }.`;
        };
        const cdp = await connectCdp(s.browser.ready.devtools!);
        try {
          const panelUrl = `chrome-extension://${s.browser.ready.extension_id}/panel.html`;
          const panel = await cdp.open(panelUrl, { width: 420, height: 800, scale: 1 });
          const text = (selector: string) =>
            panel.evaluate<string>(
              `[...document.querySelectorAll(${JSON.stringify(selector)})]` +
                `.map((e) => e.textContent).join("\\n")`,
            );
          await waitFor(
            async () => /127\.0\.0\.1:\d+ · connected/.test(await text("#remote-state")),
            "the panel to show the openab remote connected",
            90_000,
          );
          await panel.click("#prompt");
          await typeInto(cdp, panelUrl, "When was it first lit?");
          await waitFor(
            () => panel.evaluate<boolean>(`!document.getElementById("send").disabled`),
            "Send to be enabled",
          );
          await panel.click("#send");
          await waitFor(async () => (await text(".end")).includes("Done."), "the turn to end");
          assertEquals(await text(".agent"), 'Heard "When was it first lit?"; the page says 1858.');
          const calls = await panel.evaluate<string[][]>(
            `[...document.querySelectorAll(".tool")].map((row) => ` +
              `[row.querySelector(".name").textContent, row.dataset.status])`,
          );
          assertEquals(calls, [["get_page_text", "done"]]);
          await panel.close();
        } finally {
          cdp.close();
        }
      });

      await t.step(
        "the gateway's permission request is the person's to answer; a malformed one is cancelled",
        async () => {
          const asked = gw.request("session/request_permission", {
            sessionId: "s-1",
            toolCall: { toolCallId: "gw-1", title: "Restart the build runner", kind: "execute" },
            options: [
              { optionId: "always", name: "Always", kind: "allow_always" },
              { optionId: "never", name: "Never", kind: "reject_always" },
            ],
          });
          const question = await pollUntil(
            async () =>
              (JSON.parse((await ghostlight(s.testEnv, ["asks", "--json"])).stdout) as {
                number: number;
                agent: unknown;
              }[]).find((open) => open.agent !== null),
            (found) => found !== undefined,
            "the gateway's request to be put to the person",
          );
          assertEquals(question!.agent, {
            title: "Restart the build runner",
            kind: "execute",
            canAllow: false,
          });
          // It offered only "always": the person can only deny it here.
          const allowed = await ghostlight(s.testEnv, ["allow", String(question!.number)]);
          assert(allowed.code !== 0, "allow is refused");
          assertMatch(allowed.stderr, /offered no way to allow it once/);
          const denied = await ghostlight(s.testEnv, ["deny", String(question!.number)]);
          assertEquals(denied.code, 0, denied.stderr);
          assertEquals((await asked.reply).result, {
            outcome: { outcome: "selected", optionId: "never" },
          });
          const malformed = await gw.request("session/request_permission", {
            sessionId: "s-1",
            options: [],
          }).reply;
          assertEquals(malformed.result, { outcome: { outcome: "cancelled" } });
          await shoreSaid(/permission request was malformed/, "the shore to say so");
        },
      );

      await t.step(
        "a method frame over 1 MiB is answered with an error; the tunnel stays",
        async () => {
          const big = gw.mcp(connectionId, "tools/call", {
            name: "get_page_text",
            arguments: { tabId, workspaceId, pad: "p".repeat(MIB) },
          });
          const refused = await big.reply;
          assertEquals(refused.error?.code, -32600);
          assertMatch(refused.error!.message, /at most 1048576 bytes/);
          const again = toolResult(await call("get_page_text", { tabId, workspaceId }).reply);
          assertMatch(textOf(again), /first lit in 1858/);
        },
      );

      await t.step("mcp/cancel stops the work, and no answer follows", async () => {
        const waiting = call("computer", { action: "wait", duration: 10, tabId, workspaceId });
        await pollUntil(
          () => auditOf(paths),
          (records) => records.some((record) => record.tool === "computer"),
          "the wait to start",
        );
        gw.send({ method: "mcp/cancel", params: { requestId: waiting.id } });
        const outcome = await pollUntil(
          () => auditOf(paths),
          (records) =>
            records.some((record) => record.kind === "outcome" && record.tool === "computer"),
          "the cancelled wait's outcome",
        ).then((records) =>
          records.find((record) => record.kind === "outcome" && record.tool === "computer")!
        );
        assertMatch(JSON.stringify(outcome), /cancelled/);
        // A later call is answered; the cancelled one never is.
        toolResult(await call("get_page_text", { tabId, workspaceId }).reply);
        assert(gw.waiting.has(waiting.id), "the cancelled request got no answer");
        gw.waiting.delete(waiting.id);
      });

      await t.step("mcp/disconnect releases the connection", async () => {
        const second = await gw.connect(serverId);
        const released = await gw.request("mcp/disconnect", {
          connectionId: second.connectionId,
        }).reply;
        assertEquals(released.result, {});
        const after = await gw.mcp(second.connectionId, "tools/list", {}).reply;
        assertEquals(after.error?.code, -32602);
        // The first connection is untouched.
        toolResult(await call("get_page_text", { tabId, workspaceId }).reply);
      });

      let gw2 = gw;
      await t.step(
        "an inbound frame over 8 MiB closes; the shore resumes the session",
        async () => {
          gw.send({ method: "mcp/message", params: { pad: "q".repeat(8 * MIB) } });
          const closed = await within(gw.closed.promise, 60_000, "the shore to close the socket");
          assertEquals(closed.code, 4009);
          const resumed = await host.session(1);
          assertEquals(resumed.method, "session/resume");
          assertEquals(resumed.servers.map((server) => server.id), [serverId]);
          gw2 = resumed.socket;
          const opened = await gw2.connect(serverId);
          connectionId = opened.connectionId;
          // A new tunnel is a new MCP connection: the agent asks for its tabs again.
          await openAndRead(gw2);
        },
      );

      await t.step("a call cut by a dropped socket: outcome unknown, never repeated", async () => {
        const decisions = async () =>
          (await auditOf(paths)).filter((record) =>
            record.tool === "computer" && record.kind === "decision"
          ).length;
        const before = await decisions();
        gw2.mcp(connectionId, "tools/call", {
          name: "computer",
          arguments: { action: "wait", duration: 10, tabId, workspaceId },
        });
        await pollUntil(decisions, (count) => count > before, "the second wait to start");
        gw2.socket.close(1001, "the gateway went away");
        await shoreSaid(
          /tools\/call computer was in flight .*outcome is unknown/,
          "the shore's word",
        );
        const third = await host.session(2);
        assertEquals(third.method, "session/resume");
        const opened = await third.socket.connect(serverId);
        connectionId = opened.connectionId;
        toolResult(await third.socket.mcp(connectionId, "tools/list", {}).reply);
        assertEquals(await decisions(), before + 1, "the cut call was not sent again");
        gw2 = third.socket;
      });

      await t.step(
        "status says the remote is degraded while it cannot connect, then connected",
        async () => {
          host.down = true;
          gw2.socket.close(1001, "maintenance");
          await statusSays(/remote agent: degraded: .*reconnecting in/, "status to say degraded");
          host.down = false;
          const back = await host.session(3);
          assertEquals(back.method, "session/resume");
          await statusSays(/remote agent: connected to 127\.0\.0\.1/, "status to say connected");
          gw2 = back.socket;
        },
      );

      await t.step("a resume withdraws the server when the pin empties", async () => {
        const pinned = await ghostlight(s.testEnv, ["remote", "pin", "agent", "--tools", ""]);
        assertEquals(pinned.code, 0, pinned.stderr);
        gw2.socket.close(1001, "again");
        const fourth = await host.session(4);
        assertEquals(fourth.method, "session/resume");
        assertEquals(fourth.servers, []);
        assert(!host.registered.has(serverId), "the gateway withdrew the server");
        const refused = await fourth.socket.request("mcp/connect", { acpId: serverId }).reply;
        assertEquals(refused.error?.code, -32602);
        gw2 = fourth.socket;
      });

      await t.step(
        "a refused resume opens nothing; the next connection is a new session",
        async () => {
          host.rejectResume = true;
          gw2.socket.close(1001, "once more");
          const fifth = await host.session(5);
          assertEquals(fifth.method, "session/resume");
          const closed = await within(fifth.socket.closed.promise, 60_000, "the shore to close");
          assert(closed.code !== 0);
          await shoreSaid(/refused session\/resume/, "the shore to say the resume was refused");
          const sixth = await host.session(6);
          assertEquals(sixth.method, "session/new");
        },
      );

      await t.step(
        "the setup and per-request bounds fire, say so, and leave nothing half open",
        async () => {
          // A second shore with the contract's 30 s and 180 s shortened (the settings are the
          // shore process's own), against a gateway that first never answers the setup.
          const host2 = gateway(token);
          host2.silent = true;
          let shore2: Deno.ChildProcess | null = null;
          let said2: ReturnType<typeof collect> | null = null;
          try {
            const added = await ghostlight(s.testEnv, [
              ...["remote", "add", "bounds", `ws://127.0.0.1:${host2.server.addr.port}/acp`],
              ...["--binding", "openab", "--token-file", tokenPath],
              ...["--tools", "tabs_context_mcp,computer", "--at-login"],
            ]);
            assertEquals(added.code, 0, added.stderr);
            assertMatch(added.stdout, /Its shore starts at login/);
            // Started as the login entry starts it: every remote marked --at-login (only this one).
            const started = cli(s.testEnv, [
              ...["--instance", s.testEnv.instance, "remote", "start", "--at-login"],
            ]);
            shore2 = new Deno.Command(started.command, {
              args: started.args,
              env: {
                ...s.testEnv.env,
                GHOSTLIGHT_REMOTE_RECONNECT_MS: "200",
                GHOSTLIGHT_REMOTE_SETUP_MS: "5000",
                GHOSTLIGHT_REMOTE_REQUEST_MS: "8000",
              },
              clearEnv: true,
              stdin: "null",
              stdout: "piped",
              stderr: "piped",
            }).spawn();
            said2 = collect(shore2.stderr);
            const shore2Said = (pattern: RegExp, what: string) =>
              pollUntil(
                () => Promise.resolve(said2!.said.text),
                (text) => pattern.test(text),
                what,
              );
            // Setup: unanswered, the tunnel is closed at the bound and the reason said.
            await pollUntil(
              () => Promise.resolve(host2.sockets.length),
              (count) => count > 0,
              "the second shore to dial",
              90_000,
            );
            const silentSocket = host2.sockets[0];
            await within(silentSocket.closed.promise, 60_000, "the unanswered setup to be closed");
            await shore2Said(
              /setting up the session failed: no session within 5 s; reconnecting in/,
              "the shore to say the setup bound ended it",
            );
            assertEquals(host2.sessions, [], "no session was opened on the silent tunnel");
            host2.silent = false;
            const opened = await host2.session(0);
            assertEquals(opened.method, "session/new");
            const side = opened.socket;
            const { connectionId: bounded } = await side.connect(opened.servers[0].id);
            const use = (name: string, args: Record<string, unknown>) =>
              side.mcp(bounded, "tools/call", { name, arguments: args });
            const context = toolResult(
              await use("tabs_context_mcp", { createIfEmpty: true }).reply,
            );
            const made = context.structuredContent as {
              workspaceId: string;
              tabs: { tabId: number }[];
            };
            // Per request: a 10 s wait under an 8 s bound is cancelled and the gateway told why.
            const waited = use("computer", {
              action: "wait",
              duration: 10,
              tabId: made.tabs[0].tabId,
              workspaceId: made.workspaceId,
            });
            const overdue = await waited.reply;
            assertEquals(overdue.error?.code, -32000);
            assertMatch(
              overdue.error!.message,
              /tools\/call computer did not finish within the tunnel's 8 s bound per request; it was cancelled/,
            );
            await shore2Said(/tools\/call computer ran past the tunnel's 8 s bound/, "its line");
            // The call was cancelled in the service, not left running.
            const cancelled = await pollUntil(
              () => auditOf(paths),
              (records) =>
                records.some((record) =>
                  record.kind === "outcome" && record.tool === "computer" &&
                  record.principal === "remote:bounds"
                ),
              "the overdue call's outcome",
            );
            assertMatch(
              JSON.stringify(cancelled.filter((record) => record.principal === "remote:bounds")),
              /cancelled/,
            );
            // The tunnel stays: the next request is answered.
            toolResult(await side.mcp(bounded, "tools/list", {}).reply);
            // The service restarts: the shore's link comes back by itself and says its state
            // again, so status knows the remote and the person's Stop below still reaches it.
            await s.service!.kill("SIGTERM");
            await s.service!.start();
            await statusSays(/remote bounds: connected to 127\.0\.0\.1/, "the shore known again");
            // The browser's connector dials the new service by itself too, on its own clock: the
            // call below needs it back, not only the shore.
            await statusSays(/^Browsers: [1-9]/m, "the browser connected again");
            const renewed = toolResult(
              await use("tabs_context_mcp", { createIfEmpty: true }).reply,
            ).structuredContent as typeof made;
            // The person's Stop while a call is in flight: the call is answered first, saying
            // why, then the tunnel closes as a deliberate end and the shore does not dial again.
            const starts = async () =>
              (await auditOf(paths)).filter((record) =>
                record.kind === "decision" && record.tool === "computer" &&
                record.principal === "remote:bounds"
              ).length;
            const before = await starts();
            const inFlight = use("computer", {
              action: "wait",
              duration: 10,
              tabId: renewed.tabs[0].tabId,
              workspaceId: renewed.workspaceId,
            });
            await pollUntil(starts, (count) => count > before, "the stopped wait to start");
            const state = await requestPerson(paths, { op: "state" });
            assert(typeof state !== "number" && state.ok);
            const number = state.state.workspaces.find((w) => w.principal === "remote:bounds")
              ?.number;
            const dials = host2.sockets.length;
            const stopped = await ghostlight(s.testEnv, ["stop", String(number)]);
            assertEquals(stopped.code, 0, stopped.stderr);
            const answered = await inFlight.reply;
            const said = answered.error?.message ?? textOf(answered.result as ToolResult);
            assertMatch(said, /stopped/, JSON.stringify(answered));
            const closed = await within(side.closed.promise, 60_000, "the stopped tunnel to close");
            assertEquals(closed.code, 1000);
            assertMatch(closed.reason, /the person stopped this remote agent/);
            const ended = await within(shore2.status, 60_000, "the stopped shore to end");
            assertEquals(ended.code, 0, said2.said.text);
            await shore2Said(/ended: the person stopped this remote agent/, "the shore's word");
            assertEquals(host2.sockets.length, dials, "no dial after the Stop");
            shore2 = null;
            const listed = async () => (await ghostlight(s.testEnv, ["remote", "list"])).stdout;
            assertMatch(await listed(), /remote:bounds .* starts at login\n/);
            const off = await ghostlight(s.testEnv, ["remote", "at-login", "bounds", "off"]);
            assertEquals(off.code, 0, off.stderr);
            assert(!/remote:bounds .* starts at login/.test(await listed()), "marked off");
            const on = await ghostlight(s.testEnv, ["remote", "at-login", "bounds", "on"]);
            assertEquals(on.code, 0, on.stderr);
            // Removing the remote takes its login start away: the login entry starts nothing.
            const removed = await ghostlight(s.testEnv, ["remote", "remove", "bounds"]);
            assertMatch(removed.stdout, /it no longer starts at login/);
            const atLogin = await ghostlight(s.testEnv, ["remote", "start", "--at-login"]);
            assertEquals(atLogin.code, 0, atLogin.stderr);
            assertMatch(atLogin.stdout, /no remote starts at login/);
          } finally {
            if (shore2 !== null) {
              try {
                shore2.kill("SIGINT");
              } catch {
                // It has ended already.
              }
              await within(shore2.status, 30_000, "the second shore to end")
                .catch(() => shore2?.kill("SIGKILL"));
            }
            await said2?.done.catch(() => {});
            outputs.push(said2?.said.text ?? "");
            await host2.server.shutdown();
          }
        },
      );

      shore.kill("SIGINT");
      const ended = await within(shore.status, 30_000, "the shore to end");
      assertEquals(ended.code, 0);
      await stderr.done;
      shore = null;
      outputs.push(stderr.said.text);
      assertMatch(stderr.said.text, /remote agent: connected to 127\.0\.0\.1/);
      const log = await Deno.readTextFile(paths.logFile);
      const audit = await Deno.readTextFile(paths.auditFile);
      for (const [where, text] of [["the log", log], ["the audit", audit], ...outputs.entries()]) {
        assert(!String(text).includes(token), `the token appears in ${where}`);
      }
      assertEquals(host.refused, []);
    } finally {
      if (shore !== null) {
        shore.kill("SIGINT");
        await within(shore.status, 30_000, "the shore to end").catch(() => shore?.kill("SIGKILL"));
        await stderr?.done.catch(() => {});
      }
      if (stderr) console.error(stderr.said.text);
      await host.server.shutdown();
      await s.close();
    }
  },
});
