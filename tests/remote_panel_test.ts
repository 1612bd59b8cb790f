/**
 * Talking to a remote agent from the extension's side panel (issue 31, decision 0470), end to
 * end: an agent host written here with the official ACP SDK's agent side, on a real WebSocket on
 * 127.0.0.1, is dialled by `ghostlight remote start`; the person types a request in the real side
 * panel page in headless Chromium (driven through DevTools), the words travel worker -> browser
 * connector -> service -> remote shore -> `session/prompt`, and the agent answers by streaming
 * text and calling Ghostlight's tools over MCP-over-ACP: it opens a fixture page in its own tab
 * group and presses a button there. The panel shows the streamed reply and each tool call with
 * how it ended; Stop reaches the host as `session/cancel`. A page, another extension page and a
 * script's synthetic click cannot prompt; the popup marks the connected remote.
 *
 * Headless Chromium shows no side panel (`chrome.sidePanel.open` needs a window's side panel
 * area and a user gesture), so the panel's page, `chrome-extension://ID/panel.html`, is opened
 * as a tab, as the popup tests open the popup: the same page, code and worker checks.
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
import { PROMPT_MAX_CHARS } from "../shared/panel.ts";
import { resultOf, socketStream, type ToolResult } from "./support/acp_socket.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { type CdpPage, connectCdp, typeInto } from "./support/cdp.ts";
import type { PersonQuestion } from "../shared/person.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { cli } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { startSession } from "./support/session.ts";
import { waitFor, within } from "./support/wait.ts";

/** The title of the agent host's own step it asks permission for: its words, with a line break. */
const PERMISSION_TITLE = 'Delete the build cache on the team box\n2. Allow: "this is safe"';

/** What the agent host says when Ghostlight refuses one of its calls: it ends its turn. */
class Refused extends Error {}

/**
 * The agent host: a prompt that says "wait" streams a line and waits for `session/cancel`; any
 * other opens `page` in the browser, presses its button and says what the page says then.
 */
function agentHost(token: string, page: string) {
  const declared = Promise.withResolvers<McpServerAcpDeclaration>();
  const caller = new McpOverAcpCaller({ clientInfo: { name: "panel-agent-host", version: "1.0" } });
  const prompts: string[] = [];
  const cancels: string[] = [];
  let cancelled = Promise.withResolvers<void>();
  const say = (client: AgentContext, sessionId: string, text: string) =>
    client.notify(methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    });
  /** Opens `page`, presses its button and says what the page says then. */
  const lightTheLamp = async (
    client: AgentContext,
    sessionId: string,
    call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>,
  ) => {
    const context = await call("tabs_context_mcp", { createIfEmpty: true });
    const { workspaceId, tabs } = context.structuredContent as {
      workspaceId: string;
      tabs: { tabId: number }[];
    };
    const tabId = tabs[0].tabId;
    await call("navigate", { url: page, tabId, workspaceId });
    const found = await call("find", { query: "Light the lamp button", tabId, workspaceId });
    const ref = (found.structuredContent?.matches as { ref: string }[])[0].ref;
    await call("computer", { action: "left_click", ref, tabId, workspaceId });
    const read = await call("get_page_text", { tabId, workspaceId });
    const lit = read.content.map((block) => block.text ?? "").join("").includes("lamp is lit");
    await say(client, sessionId, lit ? "The page now says: the lamp is lit." : "It stayed dark.");
  };
  const app = agent()
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { mcpCapabilities: { acp: true } },
    }))
    .onRequest(methods.agent.session.new, ({ params }) => {
      declared.resolve(params.mcpServers[0] as McpServerAcpDeclaration);
      return { sessionId: "panel-session" };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const text = params.prompt.map((block) => block.type === "text" ? block.text : "").join("");
      prompts.push(text);
      const { sessionId } = params;
      if (text.includes("permission")) {
        // Its own step, outside the browser: it asks its client, which asks the person.
        const answered = await client.request(methods.client.session.requestPermission, {
          sessionId,
          toolCall: {
            toolCallId: `step-${prompts.length}`,
            title: PERMISSION_TITLE,
            kind: "delete",
          },
          options: [
            { optionId: "yes-always", name: "Always, for everything", kind: "allow_always" },
            { optionId: "yes-once", name: "Allow", kind: "allow_once" },
            { optionId: "no", name: "Reject", kind: "reject_once" },
          ],
        });
        const { outcome } = answered;
        await say(
          client,
          sessionId,
          `Permission: ${outcome.outcome === "selected" ? outcome.optionId : outcome.outcome}.`,
        );
        return { stopReason: outcome.outcome === "cancelled" ? "cancelled" : "end_turn" };
      }
      if (text.includes("wait")) {
        await say(client, sessionId, "Waiting for your word…");
        await cancelled.promise;
        cancelled = Promise.withResolvers();
        return { stopReason: "cancelled" as const };
      }
      const serverId = (await declared.promise).serverId;
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = resultOf(
          await caller.request(client, serverId, "tools/call", { name, arguments: args }),
        );
        if (result.isError) throw new Refused(`Ghostlight refused my ${name}.`);
        return result;
      };
      await say(client, sessionId, "Opening the keeper's log");
      await say(client, sessionId, " in a tab of my own. ");
      try {
        await lightTheLamp(client, sessionId, call);
      } catch (error) {
        if (!(error instanceof Refused)) throw error;
        await say(client, sessionId, error.message);
      }
      return { stopReason: "end_turn" as const };
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      cancels.push(params.sessionId);
      cancelled.resolve();
    })
    .onNotification(methods.agent.mcp.message, caller.handleNotification);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (request.headers.get("authorization") !== `Bearer ${token}`) {
      return new Response("unauthorized", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    app.connect(socketStream(socket));
    return response;
  });
  return { server, prompts, cancels };
}

Deno.test({
  name: "the side panel prompts a remote agent, shows its reply and tool calls, and stops it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const s = await startSession({ launchArgs: ["--remote-debugging"] });
    const cdp = await connectCdp(s.browser.ready.devtools!);
    const extension = `chrome-extension://${s.browser.ready.extension_id}`;
    const token = `tok-${crypto.randomUUID().replaceAll("-", "")}`;
    const host = agentHost(token, s.fixtures.url("/panel_task.html"));
    let shore: Deno.ChildProcess | null = null;
    try {
      const tokenPath = `${s.testEnv.home}/agent.token`;
      await Deno.writeTextFile(tokenPath, `${token}\n`, { mode: 0o600 });
      const added = await ghostlight(s.testEnv, [
        ...["remote", "add", "agent", `ws://127.0.0.1:${host.server.addr.port}/acp`],
        ...["--binding", "acp", "--token-file", tokenPath],
        ...["--tools", "tabs_context_mcp,navigate,find,computer,get_page_text"],
      ]);
      assertEquals(added.code, 0, added.stderr);
      const { command, args } = cli(s.testEnv, [
        ...["--instance", s.testEnv.instance, "remote", "start", "agent"],
      ]);
      shore = new Deno.Command(command, {
        args,
        env: s.testEnv.env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();

      const panelUrl = `${extension}/panel.html`;
      const panel = await cdp.open(panelUrl, { width: 420, height: 800, scale: 1 });
      const text = (selector: string) =>
        panel.evaluate<string>(
          `[...document.querySelectorAll(${JSON.stringify(selector)})]` +
            `.map((e) => e.textContent).join("\\n")`,
        );
      const ask = async (words: string) => {
        await panel.click("#prompt");
        await typeInto(cdp, panelUrl, words);
        await waitFor(
          () => panel.evaluate<boolean>(`!document.getElementById("send").disabled`),
          "Send to be enabled",
        );
        await panel.click("#send");
      };

      await t.step("the panel lists the remote once its shore is connected", async () => {
        await waitFor(
          async () => /127\.0\.0\.1:\d+ · connected/.test(await text("#remote-state")),
          "the panel to show the remote connected",
          90_000,
        );
        assertEquals(
          await panel.evaluate<string>(`document.getElementById("remote").value`),
          "agent",
        );
      });

      await t.step("a prompt streams the agent's reply and each tool call it made", async () => {
        await ask("Light the lamp in the keeper's log, please.");
        await waitFor(
          async () => (await text(".end")).includes("Done."),
          "the turn to end",
          90_000,
        );
        assertEquals(host.prompts, ["Light the lamp in the keeper's log, please."]);
        assertEquals(await text(".you"), "Light the lamp in the keeper's log, please.");
        assertEquals(
          await text(".agent"),
          // The reply streamed in pieces, the tool calls between them.
          "Opening the keeper's log in a tab of my own. \nThe page now says: the lamp is lit.",
        );
        const calls = await panel.evaluate<string[][]>(
          `[...document.querySelectorAll(".tool")].map((row) => ` +
            `[row.querySelector(".name").textContent, row.dataset.status])`,
        );
        assertEquals(calls, [
          ["tabs_context_mcp", "done"],
          ["navigate", "done"],
          ["find", "done"],
          ["computer · left_click", "done"],
          ["get_page_text", "done"],
        ]);
        assertMatch(await text(".tool"), /navigate — done: /);
        // The agent worked in its own tab group, named by its principal.
        const grouped = await panel.evaluate<string[]>(`(async () => {
          const [tab] = await chrome.tabs.query({ url: ${
          JSON.stringify(s.fixtures.url("/panel_task.html"))
        } });
          return tab && tab.groupId !== -1 ? [(await chrome.tabGroups.get(tab.groupId)).title] : [];
        })()`);
        assertEquals(grouped.length, 1, "the agent's tab is in a group");
        assertMatch(grouped[0], /remote:agent/);
      });

      await t.step(
        "a page, another extension page and a script's click cannot prompt",
        async () => {
          const page = await cdp.open(s.fixtures.url("/article.html"), {
            width: 800,
            height: 600,
            scale: 1,
          });
          const fromPage = await page.evaluate<string>(`chrome.runtime?.sendMessage
          ? chrome.runtime.sendMessage(${JSON.stringify(s.browser.ready.extension_id)}, {
            kind: "ghostlight-panel",
            request: { op: "panel_prompt", remote: "agent", text: "from a page" },
          }).then(() => "sent", () => "no extension")
          : "no extension"`);
          assertEquals(fromPage, "no extension");
          await page.close();
          const other = await cdp.open(`${extension}/dist/panel.js`, {
            width: 400,
            height: 300,
            scale: 1,
          });
          const otherSaid = await other.evaluate<string>(`chrome.runtime.sendMessage({
          kind: "ghostlight-panel",
          request: { op: "panel_prompt", remote: "agent", text: "from another extension page" },
        }).then((reply) => reply === undefined ? "no reply" : JSON.stringify(reply), () => "refused")`);
          assert(
            ["no reply", "refused"].includes(otherSaid),
            `the worker answered it: ${otherSaid}`,
          );
          await other.close();
          // A script in the panel itself: its synthetic click sends nothing.
          await panel.evaluate(`document.getElementById("prompt").value = "from a script";
          document.getElementById("send").click(); true`);
          // The panel's own page is heard, but a request over the bound is refused there.
          const tooLong = await panel.evaluate<{ ok: boolean; message: string }>(
            `chrome.runtime.sendMessage({ kind: "ghostlight-panel", request: { op: "panel_prompt", ` +
              `remote: "agent", text: "x".repeat(${PROMPT_MAX_CHARS + 1}) } })`,
          );
          assertEquals(tooLong.ok, false);
          assertMatch(tooLong.message, /at most 8,000 characters/);
          await panel.evaluate(`document.getElementById("prompt").value = ""; true`);
        },
      );

      await t.step("Stop sends session/cancel and the panel says the turn stopped", async () => {
        await ask("Please wait here.");
        await waitFor(
          async () => (await text(".agent")).includes("Waiting for your word…"),
          "the second turn's streamed text",
          60_000,
        );
        await waitFor(
          () => panel.evaluate<boolean>(`!document.getElementById("stop").disabled`),
          "Stop to be enabled",
        );
        await panel.click("#stop");
        await waitFor(async () => (await text(".end")).includes("Stopped."), "the turn to stop");
        assertEquals(host.cancels, ["panel-session"]);
        assertMatch(await text(".note"), /Stop sent to the agent\./);
        // Nothing but the person's two requests ever reached the agent host.
        assertEquals(host.prompts, [
          "Light the lamp in the keeper's log, please.",
          "Please wait here.",
        ]);
      });

      await t.step(
        "a pin narrowed while the shore runs holds at the agent's next call",
        async () => {
          const pinned = await ghostlight(s.testEnv, [
            ...["remote", "pin", "agent", "--tools", "tabs_context_mcp"],
          ]);
          assertEquals(pinned.code, 0, pinned.stderr);
          await ask("Light the lamp once more.");
          await waitFor(
            async () => (await text(".end")).split("\n").length === 3,
            "the third turn to end",
            90_000,
          );
          assertEquals((await text(".end")).split("\n")[2], "Done.");
          const failed = await text('.tool[data-status="failed"]');
          assertMatch(failed, /^navigate — failed: .*pinned for this remote agent/);
          assertMatch(await text(".agent"), /Ghostlight refused my navigate\.$/);
          assertEquals(host.prompts.at(-1), "Light the lamp once more.");
        },
      );

      await t.step(
        "the agent host's own permission requests are the person's: CLI, popup, Stop",
        async () => {
          const run = async (args: string[]) => {
            const out = await ghostlight(s.testEnv, args);
            assertEquals(out.code, 0, out.stderr);
            return out.stdout;
          };
          const asked = async () => {
            let question: PersonQuestion | undefined;
            await waitFor(
              async () => {
                const open: PersonQuestion[] = JSON.parse(await run(["asks", "--json"]));
                question = open.find((q) => q.agent !== null);
                return question !== undefined;
              },
              "the agent host's request to be put to the person",
              60_000,
            );
            return question!;
          };
          const ends = async () => (await text(".end")).split("\n").length;
          const before = await ends();
          // Allowed once from the CLI: the agent gets its allow_once option, never allow_always.
          await ask("May I have your permission to clean up?");
          const first = await asked();
          assertEquals(first.principal, "remote:agent");
          assertEquals(first.workspace, null);
          assertEquals(first.agent, {
            title: PERMISSION_TITLE,
            kind: "delete",
            canAllow: true,
          });
          // The agent's words on one line of their own, quoted and marked as its own.
          const listed = await run(["asks"]);
          assertMatch(
            listed,
            new RegExp(
              `${first.number}\\. remote:agent's agent host \\(at 127\\.0\\.0\\.1:\\d+\\) asks your ` +
                `permission for a step of the agent host's own, outside your browser\\. Allow it once ` +
                `or deny it;.*\n   What it wants, in the agent host's own words, not Ghostlight's: ` +
                // JSON-quoted, then each backslash doubled by the terminal's escaping (shown()).
                `"Delete the build cache on the team box\\\\\\\\n2\\. Allow: \\\\\\\\"this is safe\\\\\\\\"" ` +
                `\\(its kind: delete\\)\\.\n`,
            ),
          );
          // Never for a site, never saved: the question stays open.
          const wider = await ghostlight(s.testEnv, ["allow", "--site", String(first.number)]);
          assert(wider.code !== 0, "allow --site is refused");
          assertMatch(wider.stderr, /allowed once or denied, never for a site/);
          const saved = await ghostlight(s.testEnv, ["allow", "--persist", String(first.number)]);
          assert(saved.code !== 0, "allow --persist is refused");
          assertMatch(await run(["allow", String(first.number)]), /allowed once/);
          await waitFor(async () => (await ends()) === before + 1, "the first asking turn to end");
          assertMatch(await text(".agent"), /Permission: yes-once\.$/);

          // Denied in the popup, where only Allow once and Deny are offered.
          await ask("Another permission, please.");
          const second = await asked();
          const popup = await cdp.open(`${extension}/popup.html`, {
            width: 380,
            height: 640,
            scale: 1,
          });
          const card = `.agent-question[data-question="${second.number}"]`;
          await waitFor(
            () => popup.evaluate<boolean>(`!!document.querySelector('${card}')`),
            "the popup to show the agent host's request",
          );
          assertEquals(
            await popup.evaluate<string[]>(
              `[...document.querySelectorAll('${card} button')].map((b) => b.textContent)`,
            ),
            ["Allow once", "Deny"],
          );
          assertEquals(
            await popup.evaluate<string>(
              `document.querySelector('${card} .page-text').textContent`,
            ),
            PERMISSION_TITLE,
          );
          // Its answers take a click once the card has stood still (decision 0560).
          await waitFor(
            () => popup.evaluate<boolean>(`!!document.querySelector('${card}[data-steady]')`),
            "the agent host's request to take clicks",
          );
          await popup.click(`${card} button[data-answer="deny"]`);
          await waitFor(async () => (await ends()) === before + 2, "the denied turn to end");
          assertMatch(await text(".agent"), /Permission: no\.$/);
          await popup.close();

          // Stop while the person is asked: the question is withdrawn, the agent told cancelled.
          await ask("One more permission.");
          await asked();
          await panel.click("#stop");
          await waitFor(async () => (await ends()) === before + 3, "the stopped turn to end");
          const open: PersonQuestion[] = JSON.parse(await run(["asks", "--json"]));
          assertEquals(open.filter((q) => q.agent !== null), [], "the question was withdrawn");
          assertMatch(await text(".agent"), /Permission: cancelled\.$/);
          // Each request and how it ended is in the audit, under the remote's principal.
          const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
          const records = (await Deno.readTextFile(paths.auditFile)).trimEnd().split("\n")
            .map((line) => JSON.parse(line)).filter((r) => r.tool === "agent_permission");
          assertEquals(
            records.map((r) => [r.principal, r.result]),
            [
              ["remote:agent", "ask"],
              ["remote:agent", "allowed"],
              ["remote:agent", "ask"],
              ["remote:agent", "denied"],
              ["remote:agent", "ask"],
              ["remote:agent", "withdrawn"],
            ],
          );
        },
      );

      await t.step("the popup marks the connected remote agent", async () => {
        const popup = await cdp.open(`${extension}/popup.html`, {
          width: 380,
          height: 640,
          scale: 1,
        });
        await waitFor(
          () => popup.evaluate<boolean>(`!!document.querySelector('.remote[data-remote="agent"]')`),
          "the popup to list the remote",
        );
        const card = await popup.evaluate<string>(
          `document.querySelector('.remote[data-remote="agent"]').innerText`,
        );
        assertMatch(card, /remote[\s\S]*remote:agent[\s\S]*An agent at 127\.0\.0\.1:\d+/);
        // Each of the remote agent's workspaces carries the mark (it opened one per turn here).
        const cards = await popup.evaluate<[string, boolean][]>(
          `[...document.querySelectorAll(".workspace")].map((w) => ` +
            `[w.querySelector(".principal").textContent, !!w.querySelector(".remote-mark")])`,
        );
        assert(cards.length > 0, "the remote agent's workspaces are listed");
        assertEquals(cards.filter(([, marked]) => !marked), [], "every remote card is marked");
        assert(cards.every(([principal]) => principal === "remote:agent"));
        await popup.close();
      });
      await (panel as CdpPage).close();
    } finally {
      if (shore !== null) {
        shore.kill("SIGINT");
        await within(shore.output(), 30_000, "the shore to end").catch(() => {
          shore?.kill("SIGKILL");
        });
      }
      cdp.close();
      await host.server.shutdown();
      await s.close();
    }
  },
});
