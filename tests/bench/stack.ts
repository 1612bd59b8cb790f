/**
 * Ghostlight's own figures, beside the journey: how long the connector takes from spawn to its
 * `initialize` answer (service already running, and started on demand), the service's resident
 * memory idle and after 8 clients × 200 light calls, the advertised tool list's size, and what a
 * light call costs above bare round trips through the same sockets.
 *
 * The per-call comparison, sample by sample and interleaved:
 * - `tabs_context_mcp` with one tab: MCP client → stdio → connector → bridge socket → service
 *   (scheduler, workspace, handler) → browser socket → browser connector → native messaging →
 *   extension (`chrome.tabs.get`) and back: the stack's light call.
 * - MCP `ping`: client → stdio → connector and back: the stdio hop and JSON-RPC, bare.
 * - a raw bridge exchange: a `start` for a tool that does not exist, written straight onto the
 *   bridge socket after the same proof handshake the connector does, answered `rejected` by the
 *   service before any scheduling: the bridge socket hop and the service's framing, bare.
 * - a bare browser hop: one `POST /probe?rounds=1` on the control socket, whose figure is the
 *   service's own timing of one `tab.get` of tab 0 from send to answer (service → browser socket
 *   → browser connector → native messaging → extension, answered "no such tab" at once, and
 *   back): the browser hop and its framing, bare, without the control socket's HTTP around it.
 * - `update_plan`: the whole stack to the service and back without the browser.
 * - `GET /status` on the control socket: an HTTP round trip on another owner-only socket, for
 *   scale.
 * The overhead is `tabs_context_mcp − (ping + raw bridge + bare browser hop)`: everything the
 * stack adds to the three bare hops: the scheduler, the gate and the audit, the handler, and the
 * page's own part of the title read (its CDP commands, which a bare hop does not send).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fetchProbe } from "../../service/control/client.ts";
import { controlKey } from "../../service/endpoint/mod.ts";
import { BRIDGE_MAX_FRAME } from "../../shared/bridge.ts";
import { encodeFrame } from "../../shared/framing.ts";
import { connectAndVerify } from "../../shared/handshake.ts";
import { type InstancePaths, resolveInstancePaths } from "../../shared/instance.ts";
import { launchBrowser, type LaunchedBrowser } from "../support/browser.ts";
import { executable, makeTestEnv, type TestEnv } from "../support/env.ts";
import { isRunning, startService } from "../support/processes.ts";
import type { CallResult } from "../support/session.ts";
import { waitFor, within } from "../support/wait.ts";
import type { ToolList } from "./mcp_peers.ts";
import { memoryOf } from "./processes.ts";

/** Calls in the per-call comparison, of each kind. */
const PER_CALL_SAMPLES = 200;
/** The load before the second memory reading. */
const LOAD_CLIENTS = 8;
const LOAD_CALLS = 200;

/** What this part measured; a part that broke says why in `errors`. */
export interface StackFigures {
  coldStart: { warmMs: number[]; demandMs: number[] };
  memory: {
    idleKiB: number | null;
    afterLoadKiB: number | null;
    peakKiB: number | null;
    clients: number;
    callsPerClient: number;
    failedCalls: number;
    loadWallMs: number | null;
  };
  perCall: {
    samples: number;
    tabsContextMs: number[];
    pingMs: number[];
    rawBridgeMs: number[];
    /** The service's timing of one bare browser hop; absent in runs recorded before it was. */
    browserHopMs?: number[];
    updatePlanMs: number[];
    controlStatusMs: number[];
  };
  tools: ToolList | null;
  errors: string[];
}

export function pathsOf(testEnv: TestEnv): InstancePaths {
  return resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
}

/** An SDK client on a freshly spawned connector; `ms` is spawn to the `initialize` answer. */
export async function connector(testEnv: TestEnv): Promise<{ client: Client; ms: number }> {
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "ghostlight-bench", version: "1.0.0" });
  const transport = new StdioClientTransport({ command, args, env: testEnv.env, stderr: "ignore" });
  const started = performance.now();
  await within(client.connect(transport), 60_000, "the connector's initialize answer");
  return { client, ms: performance.now() - started };
}

export async function status(
  controlSocket: string,
  client?: Deno.HttpClient,
): Promise<{ service: { pid: number } }> {
  const own = client ??
    Deno.createHttpClient({ proxy: { transport: "unix", path: controlSocket } });
  try {
    const response = await fetch("http://ghostlight/status", { client: own });
    return await response.json();
  } finally {
    if (!client) own.close();
  }
}

/**
 * One bare browser hop as the service timed it (`POST /probe?rounds=1`, the one browser), proved
 * with the control key as every control request but a status read must be (decision 0335).
 */
export async function browserHop(paths: InstancePaths, key: Uint8Array): Promise<number> {
  const probe = await fetchProbe(paths.controlSocket, key, 1);
  const ms = probe.browsers[0]?.ms ?? null;
  if (probe.browsers.length !== 1 || ms === null) {
    throw new Error(`the probe answered ${JSON.stringify(probe).slice(0, 200)}`);
  }
  return ms;
}

/** A raw client on the bridge socket: the proof handshake, then `start`s that are refused. */
export async function rawBridge(paths: InstancePaths) {
  const opened = await connectAndVerify({
    socket: paths.bridgeSocket,
    keys: paths.keys,
    role: "mcp",
    client: { name: "ghostlight-bench-raw", version: "1.0.0" },
    maxFrame: BRIDGE_MAX_FRAME,
  });
  let seq = 0;
  return {
    async roundTrip(): Promise<void> {
      const mine = ++seq;
      await opened.writer.write(encodeFrame({
        type: "start",
        seq: mine,
        tool: "bench_no_such_tool",
        arguments: {},
        context: { client_name: "ghostlight-bench-raw", client_version: "1.0.0" },
      }, BRIDGE_MAX_FRAME));
      const answer = await opened.reader.next() as { type?: string; seq?: number } | null;
      if (answer?.type !== "rejected" || answer.seq !== mine) {
        throw new Error(`the bridge answered ${JSON.stringify(answer)?.slice(0, 200)}`);
      }
    },
    close: () => opened.conn.close(),
  };
}

async function timeIt(samples: number[], step: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await step();
  samples.push(performance.now() - started);
}

/** Measures everything above; `samples` sets how many cold starts of each kind. */
export async function measureStack(samples: number): Promise<StackFigures> {
  const figures: StackFigures = {
    coldStart: { warmMs: [], demandMs: [] },
    memory: {
      idleKiB: null,
      afterLoadKiB: null,
      peakKiB: null,
      clients: LOAD_CLIENTS,
      callsPerClient: LOAD_CALLS,
      failedCalls: 0,
      loadWallMs: null,
    },
    perCall: {
      samples: PER_CALL_SAMPLES,
      tabsContextMs: [],
      pingMs: [],
      rawBridgeMs: [],
      browserHopMs: [],
      updatePlanMs: [],
      controlStatusMs: [],
    },
    tools: null,
    errors: [],
  };
  const attempt = async (what: string, part: () => Promise<void>) => {
    try {
      await part();
    } catch (error) {
      figures.errors.push(`${what}: ${(error as Error).message}`.slice(0, 500));
    }
  };

  // A service started in the foreground (its pid is ours to read), with one browser on it.
  const testEnv = await makeTestEnv("bench");
  const paths = pathsOf(testEnv);
  const service = startService(testEnv);
  let browser: LaunchedBrowser | null = null;
  const clients: Client[] = [];
  try {
    await waitFor(
      () => status(paths.controlSocket).then(() => true),
      "the service to answer on its control socket",
      60_000,
    );
    browser = await launchBrowser(testEnv);
    figures.memory.idleKiB = (await memoryOf(service.pid))?.rssKiB ?? null;

    await attempt("per-call comparison", async () => {
      const { client } = await connector(testEnv);
      clients.push(client);
      const { tools } = await client.listTools();
      figures.tools = {
        count: tools.length,
        chars: JSON.stringify(tools).length,
        names: tools.map((t: { name: string }) => t.name),
      };
      const first = await client.callTool({
        name: "tabs_context_mcp",
        arguments: { createIfEmpty: true },
      }) as CallResult;
      if (first.isError) throw new Error(`tabs_context_mcp failed: ${first.content[0]?.text}`);
      const raw = await rawBridge(paths);
      const key = await controlKey(paths.keys);
      const http = Deno.createHttpClient({
        proxy: { transport: "unix", path: paths.controlSocket },
      });
      const p = figures.perCall;
      try {
        await within(
          (async () => {
            for (let i = 0; i < PER_CALL_SAMPLES; i++) {
              await timeIt(p.tabsContextMs, async () => {
                const result = await client.callTool({ name: "tabs_context_mcp", arguments: {} });
                if (result.isError) throw new Error("tabs_context_mcp failed");
              });
              await timeIt(p.pingMs, () => client.ping());
              await timeIt(p.rawBridgeMs, () => raw.roundTrip());
              p.browserHopMs!.push(await browserHop(paths, key));
              await timeIt(p.updatePlanMs, async () => {
                const result = await client.callTool({
                  name: "update_plan",
                  arguments: { domains: ["127.0.0.1"], approach: ["Measure the stack"] },
                });
                if (result.isError) throw new Error("update_plan failed");
              });
              await timeIt(p.controlStatusMs, () => status(paths.controlSocket, http));
            }
          })(),
          300_000,
          "the per-call samples",
        );
      } finally {
        raw.close();
        http.close();
      }
    });

    await attempt("memory under load", async () => {
      const load = await Promise.all(
        Array.from({ length: LOAD_CLIENTS }, () => connector(testEnv).then((c) => c.client)),
      );
      clients.push(...load);
      const started = performance.now();
      const failures = await within(
        Promise.all(load.map(async (client: Client) => {
          let failed = 0;
          for (let i = 0; i < LOAD_CALLS; i++) {
            const result = await client.callTool({
              name: "tabs_context_mcp",
              arguments: { createIfEmpty: i === 0 },
            }).catch(() => ({ isError: true }));
            if (result.isError) failed++;
          }
          return failed;
        })),
        600_000,
        `${LOAD_CLIENTS} clients × ${LOAD_CALLS} calls`,
      );
      figures.memory.loadWallMs = performance.now() - started;
      figures.memory.failedCalls = failures.reduce((a: number, b: number) => a + b, 0);
      const after = await memoryOf(service.pid);
      figures.memory.afterLoadKiB = after?.rssKiB ?? null;
      figures.memory.peakKiB = after?.hwmKiB ?? null;
    });

    await attempt("cold start, service warm", async () => {
      for (let i = 0; i < samples; i++) {
        const { client, ms } = await connector(testEnv);
        figures.coldStart.warmMs.push(ms);
        await within(client.close(), 15_000, "the connector to close");
      }
    });
  } finally {
    await stopStack({ clients, browser, service });
    await testEnv.dispose();
  }

  await attempt("cold start, service demand-started", async () => {
    for (let i = 0; i < samples; i++) {
      const fresh = await makeTestEnv("bench");
      const freshPaths = pathsOf(fresh);
      let pid: number | null = null;
      try {
        const { client, ms } = await connector(fresh);
        figures.coldStart.demandMs.push(ms);
        pid = (await status(freshPaths.controlSocket)).service.pid;
        await within(client.close(), 15_000, "the connector to close");
      } finally {
        // The connector started this service; it would exit when idle, but not before 30 s.
        if (pid !== null) {
          const started = pid;
          try {
            Deno.kill(started, "SIGTERM");
          } catch {
            // Already gone.
          }
          await waitFor(async () => !(await isRunning(started)), "the service to exit", 30_000)
            .catch(() => Deno.kill(started, "SIGKILL"));
        }
        await fresh.dispose();
      }
    }
  });
  return figures;
}

/**
 * Ends a bench's stack, whatever state it is in: its clients closed (each bounded), the browser
 * stopped, the service asked to exit and killed if it does not within 30 s.
 */
export async function stopStack(stack: {
  clients: { close(): Promise<void> }[];
  browser: LaunchedBrowser | null;
  service: ReturnType<typeof startService>;
}): Promise<void> {
  await Promise.all(
    stack.clients.map((c) => within(c.close(), 15_000, "a client to close").catch(() => {})),
  );
  await stack.browser?.stop();
  try {
    stack.service.kill("SIGTERM");
  } catch {
    // Already gone.
  }
  await within(stack.service.status, 30_000, "the service to exit").catch(() => {
    stack.service.kill("SIGKILL");
  });
}
