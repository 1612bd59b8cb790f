// The load test of issue 12: 8 clients × 200 mixed calls, half on one shared page each client
// opened, half on a tab of its own, several in flight per client. Every call is answered exactly
// once, each workspace's calls run in the order sent, none reaches another client's tab, and the
// service's memory comes back within 20% of its idle figure.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "./support/assert.ts";
import { type CallResult, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

const CLIENTS = 8;
const CALLS = 200;
/** Calls each client keeps in flight: they queue in its workspace's lane. */
const IN_FLIGHT = 4;
/** Calls each client makes before the idle figure is taken (code compiled, buffers sized). */
const WARMUP = 10;

/** The service's resident memory, in KiB, from /proc. */
async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
}

interface Agent {
  name: string;
  client: Client;
  /** The shared page, opened by this client in a tab of its workspace. */
  shared: number;
  own: number;
}

const textOf = (result: CallResult) =>
  result.content.map((block) => block.type === "text" ? block.text ?? "" : "").join("\n");

async function call(agent: Agent, name: string, args: Record<string, unknown>) {
  const result = await agent.client.callTool({ name, arguments: args }) as CallResult;
  assert(!result.isError, `${agent.name} ${name}: ${textOf(result).slice(0, 500)}`);
  return result;
}

/** One call of the mix: its tab, and what its answer must say. */
function mixed(agent: Agent, i: number) {
  const tabId = i % 2 === 0 ? agent.shared : agent.own;
  const where = `${agent.name}-${i % 2 === 0 ? "shared" : "own"}`;
  if (i % 10 === 9) {
    // A listing of the workspace's tabs: exactly its own two.
    return {
      tabId,
      run: () => call(agent, "tabs_context_mcp", {}),
      check: (result: CallResult) => {
        const tabs = (result.structuredContent as { tabs: { tabId: number }[] }).tabs
          .map((tab) => tab.tabId).sort();
        assertEquals(tabs, [agent.shared, agent.own].sort(), `${agent.name} sees its own tabs`);
      },
    };
  }
  return {
    tabId,
    run: () =>
      call(agent, "javascript_tool", {
        action: "javascript_exec",
        text: `(window.__log ??= []).push(${i}); window.__who + "|" + ${i}`,
        tabId,
      }),
    check: (result: CallResult) => {
      const said = textOf(result) + JSON.stringify(result.structuredContent ?? {});
      assert(said.includes(`${where}|${i}`), `${where} call ${i} answered: ${said.slice(0, 300)}`);
    },
  };
}

/** Runs calls `from`..`to` of the mix, `IN_FLIGHT` at a time, sent in order; counts answers. */
async function runMix(agent: Agent, from: number, to: number, answers: Map<string, number>) {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const step = mixed(agent, i);
      const result = await step.run();
      const key = `${agent.name}:${i}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      step.check(result);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

Deno.test({
  name: "load: 8 clients × 200 mixed calls, answered once, in order, never cross-routed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = await startSession({ instancePrefix: "load" });
    const clients: Client[] = [];
    try {
      const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
      const agents: Agent[] = [];
      for (let n = 0; n < CLIENTS; n++) {
        const name = `c${n}`;
        const client = n === 0 ? s.client : await s.connectClient(`load-${name}`);
        if (n > 0) clients.push(client);
        const agent: Agent = { name, client, shared: -1, own: -1 };
        const listed = await call(agent, "tabs_context_mcp", { createIfEmpty: true });
        agent.shared = (listed.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
        const made = await call(agent, "tabs_create_mcp", {});
        agent.own = (made.structuredContent as { tabs: { tabId: number }[] }).tabs
          .map((tab) => tab.tabId).find((id) => id !== agent.shared)!;
        await call(agent, "navigate", { url: s.fixtures.url("/index.html"), tabId: agent.shared });
        await call(agent, "navigate", {
          url: s.fixtures.url(`/index.html?${name}`),
          tabId: agent.own,
        });
        for (const [tabId, where] of [[agent.shared, "shared"], [agent.own, "own"]] as const) {
          await call(agent, "javascript_tool", {
            action: "javascript_exec",
            text: `window.__who = "${name}-${where}"; window.__log = []; 1`,
            tabId,
          });
        }
        agents.push(agent);
      }
      const pid = (await fetchStatus(paths.controlSocket)).service.pid;
      const answers = new Map<string, number>();
      await Promise.all(agents.map((agent) => runMix(agent, 0, WARMUP, answers)));
      const idle = await rssKiB(pid);

      const started = performance.now();
      await Promise.all(agents.map((agent) => runMix(agent, WARMUP, CALLS, answers)));
      const seconds = (performance.now() - started) / 1000;
      const peak = await rssKiB(pid);

      // Every call answered exactly once.
      assertEquals(answers.size, CLIENTS * CALLS);
      assert([...answers.values()].every((count) => count === 1), "each call answered once");
      // Each tab ran its calls once each, in the order its client sent them.
      for (const agent of agents) {
        for (const [tabId, parity] of [[agent.shared, 0], [agent.own, 1]] as const) {
          const read = await call(agent, "javascript_tool", {
            action: "javascript_exec",
            text: "JSON.stringify(window.__log)",
            tabId,
          });
          const said = textOf(read) + JSON.stringify(read.structuredContent ?? {});
          const log = JSON.parse(/\[[\d,]*\]/.exec(said.replaceAll("\\", ""))?.[0] ?? "null");
          const expected = Array.from({ length: CALLS }, (_, i) => i)
            .filter((i) => i % 2 === parity && i % 10 !== 9);
          assertEquals(JSON.stringify(log), JSON.stringify(expected), `${agent.name} tab order`);
        }
      }
      // The memory settles back: polled, not slept.
      const after = await pollUntil(
        () => rssKiB(pid),
        (rss) => rss <= idle * 1.2,
        `the service's memory to come back within 20% of ${idle} KiB`,
      );
      console.log(
        `load: ${CLIENTS}×${CALLS} calls in ${seconds.toFixed(1)} s ` +
          `(${((CLIENTS * (CALLS - WARMUP)) / seconds).toFixed(0)} calls/s); service RSS idle ` +
          `${idle} KiB, peak seen ${peak} KiB, after ${after} KiB`,
      );
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await s.close();
    }
  },
});
