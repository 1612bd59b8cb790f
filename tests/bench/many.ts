/**
 * Many agents at once (issue 32): one service and one browser; first one client alone with its
 * tabs, then `clients` clients each with `tabs` tabs of their own, all calling at once. Each call
 * is a `read_page` of a small fixture page in one of the client's tabs, round-robin over them.
 * Reports p50 and p95 call latency alone and together, each client's p95 (fairness), and the
 * service's resident memory idle, at its highest during the run (sampled) and after the clients
 * have gone; and the CPU each process used per call, alone and together, with the latency floor
 * that CPU implies on this machine's cores.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { median } from "../../service/control/mod.ts";
import { launchBrowser, type LaunchedBrowser } from "../support/browser.ts";
import { makeTestEnv } from "../support/env.ts";
import { serveFixtures } from "../support/fixtures.ts";
import { startService } from "../support/processes.ts";
import type { CallResult } from "../support/session.ts";
import { signalOrTimeout, waitFor, within } from "../support/wait.ts";
import { CPU_GROUPS, cpuBetween, type CpuMs, cpuSnapshot } from "./cpu.ts";
import { memoryOf } from "./processes.ts";
import { connector, pathsOf, status, stopStack } from "./stack.ts";
import type { TargetLine } from "./report.ts";

/** Connectors started, and clients opening their tabs, at once while the clients gather. */
const CONNECT_BATCH = 4;

/** The longest the service's memory is given to come back down once the clients have left. */
const SETTLE_MS = 90_000;

/**
 * Calls each client makes at the least, whatever the rounds. A client's p95 over 20 calls is its
 * second slowest: sixteen clients drawing from one and the same spread of latencies then differ
 * about 2× between the lowest and the highest p95 (a resampling of a 16 × 4 run's calls at load
 * 1–16), so the fairness target failed on noise alone. Over 200 calls the same resampling spreads
 * them 1.23× (1.32× at its 90th percentile), and a real unfairness shows (decision 0610).
 */
export const MIN_CALLS_PER_CLIENT = 200;

/** Calls per tab for a client with `tabs` tabs: `rounds`, or more to reach the least per client. */
export function callsPerTabFor(tabs: number, rounds: number): number {
  return Math.max(rounds, Math.ceil(MIN_CALLS_PER_CLIENT / tabs));
}

/** What the run measured. */
export interface ManyFigures {
  clients: number;
  tabs: number;
  callsPerTab: number;
  /** Every call's latency, one client alone. */
  aloneMs: number[];
  /** Every call's latency per client, all at once. */
  togetherMs: number[][];
  failed: number;
  /** CPU milliseconds each group of processes used while one client called alone, and all. */
  cpuMs: { alone: CpuMs | null; together: CpuMs | null };
  /** The machine's cores. */
  cores: number;
  rssKiB: { idle: number | null; during: number | null; after: number | null };
  /** How long after the clients left the reading after was taken. */
  settledMs: number | null;
  errors: string[];
}

/** The p-th percentile (0–100) of `values`, nearest rank; null when empty. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One client's tabs: its first (made with its workspace) and `count − 1` more, on `url`. */
async function openTabs(client: Client, count: number, url: string): Promise<number[]> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }) as CallResult;
    if (result.isError) throw new Error(`${name}: ${result.content[0]?.text?.slice(0, 200)}`);
    return result;
  };
  const first = await call("tabs_context_mcp", { createIfEmpty: true });
  const tabs = [(first.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId];
  for (let i = 1; i < count; i++) {
    const made = await call("tabs_create_mcp", {});
    tabs.push((made.structuredContent as { tabs: { tabId: number }[] }).tabs.at(-1)!.tabId);
  }
  for (const tabId of tabs) await call("navigate", { url, tabId });
  return tabs;
}

/** `calls` read_pages round-robin over `tabs`; each latency, and how many failed. */
async function readLoop(client: Client, tabs: number[], calls: number) {
  const ms: number[] = [];
  let failed = 0;
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const result = await client.callTool({
      name: "read_page",
      arguments: { tabId: tabs[i % tabs.length], filter: "interactive" },
    }).catch(() => ({ isError: true }));
    ms.push(performance.now() - started);
    if (result.isError) failed++;
  }
  return { ms, failed };
}

/** Runs the measurement; a part that broke says why in `errors`. */
export async function measureMany(
  clients: number,
  tabs: number,
  rounds: number,
): Promise<ManyFigures> {
  const callsPerTab = callsPerTabFor(tabs, rounds);
  const figures: ManyFigures = {
    clients,
    tabs,
    callsPerTab,
    aloneMs: [],
    togetherMs: [],
    failed: 0,
    cpuMs: { alone: null, together: null },
    cores: navigator.hardwareConcurrency,
    rssKiB: { idle: null, during: null, after: null },
    settledMs: null,
    errors: [],
  };
  const testEnv = await makeTestEnv("bench");
  const fixtures = serveFixtures();
  const service = startService(testEnv);
  let browser: LaunchedBrowser | null = null;
  const open: Client[] = [];
  const url = fixtures.url("/tasks/settings.html");
  try {
    await waitFor(
      () => status(pathsOf(testEnv).controlSocket).then(() => true),
      "the service to answer on its control socket",
      60_000,
    );
    browser = await launchBrowser(testEnv);
    figures.rssKiB.idle = (await memoryOf(service.pid))?.rssKiB ?? null;

    const alone = (await connector(testEnv)).client;
    open.push(alone);
    const aloneTabs = await within(openTabs(alone, tabs, url), 120_000, "one client's tabs");
    const aloneBefore = await cpuSnapshot(service.pid);
    const single = await within(
      readLoop(alone, aloneTabs, tabs * callsPerTab),
      600_000,
      "one client's calls",
    );
    figures.cpuMs.alone = cpuBetween(aloneBefore, await cpuSnapshot(service.pid));
    figures.aloneMs = single.ms;
    figures.failed += single.failed;

    // A few connectors start at a time: sixteen Deno processes starting at once on two loaded
    // cores can miss the service's 5 s wait for their handshake proof, and the measurement is of
    // the calls, not of the start (journal 0502).
    const many: Client[] = [];
    for (let i = 1; i < clients; i += CONNECT_BATCH) {
      const batch = Math.min(CONNECT_BATCH, clients - i);
      many.push(
        ...await Promise.all(
          Array.from({ length: batch }, () => connector(testEnv).then((c) => c.client)),
        ),
      );
      open.push(...many.slice(-batch));
    }
    const everyone = [alone, ...many];
    // The tabs are opened a few clients at a time too: at a high load 45 navigations at once
    // outwait the scheduler's 30 s queue deadline, and they are not what is measured.
    const tabsOf = await within(
      (async () => {
        const out: number[][] = [aloneTabs];
        for (let i = 1; i < clients; i += CONNECT_BATCH) {
          out.push(
            ...await Promise.all(
              everyone.slice(i, i + CONNECT_BATCH).map((client) => openTabs(client, tabs, url)),
            ),
          );
        }
        return out;
      })(),
      600_000,
      `${clients} clients' tabs`,
    );
    let peak = 0;
    const stop = new AbortController();
    const sampler = (async () => {
      // One reading every 250 ms while the clients call, at most 2,400 (ten minutes).
      for (let i = 0; i < 2_400; i++) {
        peak = Math.max(peak, (await memoryOf(service.pid))?.rssKiB ?? 0);
        if (await signalOrTimeout(stop.signal, 250)) break;
      }
    })();
    const togetherBefore = await cpuSnapshot(service.pid);
    try {
      const together = await within(
        Promise.all(everyone.map((client, i) => readLoop(client, tabsOf[i], tabs * callsPerTab))),
        900_000,
        `${clients} × ${tabs} calling at once`,
      );
      figures.togetherMs = together.map((t) => t.ms);
      figures.failed += together.reduce((sum, t) => sum + t.failed, 0);
      figures.cpuMs.together = cpuBetween(togetherBefore, await cpuSnapshot(service.pid));
    } finally {
      stop.abort();
      await sampler;
    }
    figures.rssKiB.during = peak || null;
    await Promise.all(
      open.splice(0).map((c) => within(c.close(), 15_000, "a client to close").catch(() => {})),
    );
    // The service's heap grown during the calls goes back only once it has been idle a while (V8
    // shrinks it after its idle collections): in a run of 3,200 calls it stayed at its peak, 159
    // MiB, for 10 s after the clients left, then fell to 99 MiB and stayed there (idle 94), and in
    // another it had not come down by 30 s. Give it a bounded while, and say how long it took.
    const closed = performance.now();
    await waitFor(
      async () => ((await memoryOf(service.pid))?.rssKiB ?? Infinity) <= figures.rssKiB.idle! * 1.2,
      "the service's memory to settle",
      SETTLE_MS,
    ).catch(() => {});
    figures.rssKiB.after = (await memoryOf(service.pid))?.rssKiB ?? null;
    figures.settledMs = performance.now() - closed;
  } catch (error) {
    figures.errors.push((error as Error).message.slice(0, 500));
  } finally {
    await stopStack({ clients: open, browser, service });
    await fixtures.close();
    await testEnv.dispose();
  }
  return figures;
}

/** The concurrency targets of issue 32. */
export function manyTargets(f: ManyFigures): TargetLine[] {
  const lines: TargetLine[] = [];
  const alone = percentile(f.aloneMs, 95);
  const all = percentile(f.togetherMs.flat(), 95);
  const p95s = f.togetherMs.map((ms) => percentile(ms, 95)!).filter((x) => x !== null);
  const title = `${f.clients} × ${f.tabs} concurrent: p95 at most 2× one client's p95`;
  if (alone === null || all === null) {
    lines.push({ target: title, pass: false, figure: "not measured" });
  } else {
    lines.push({
      target: title,
      pass: all <= 2 * alone && f.failed === 0,
      figure: `${Math.round(all)} ms vs ${Math.round(alone)} ms: ${(all / alone).toFixed(2)}×` +
        (f.failed ? `; ${f.failed} calls failed` : ""),
    });
  }
  if (p95s.length > 1) {
    const ratio = Math.max(...p95s) / Math.min(...p95s);
    lines.push({
      target: "…and no client's p95 more than 1.5× another's",
      pass: ratio <= 1.5,
      figure: `${Math.round(Math.min(...p95s))}–${Math.round(Math.max(...p95s))} ms: ${
        ratio.toFixed(2)
      }×`,
    });
  }
  const { idle, after } = f.rssKiB;
  lines.push({
    target: "Service RSS after the run within 120% of idle",
    pass: idle !== null && after !== null && after <= 1.2 * idle,
    figure: idle !== null && after !== null
      ? `${(after / 1024).toFixed(1)} MiB after vs ${(idle / 1024).toFixed(1)} MiB idle: ${
        (after / idle).toFixed(2)
      }×`
      : "not measured",
  });
  return lines;
}

/** CPU milliseconds per call of `cpu` over `calls`, by group and in all. */
function perCall(cpu: CpuMs, calls: number): { group: Record<string, number>; all: number } {
  const group = Object.fromEntries(CPU_GROUPS.map((g) => [g, cpu[g] / calls]));
  return { group, all: Object.values(group).reduce((sum, ms) => sum + ms, 0) };
}

/**
 * The latency the CPU alone sets, beside the PASS/FAIL lines (it changes none of them): with
 * every client's one call in flight and each call costing the machine `c` CPU milliseconds over
 * all the processes, the cores finish at most `cores / c` calls a millisecond, so a call waits on
 * average at least `clients × c / cores`. Null when the CPU was not read.
 */
export function manyBound(f: ManyFigures): string | null {
  const calls = f.togetherMs.flat().length;
  if (f.cpuMs.together === null || calls === 0 || f.clients < 2) return null;
  const { group, all } = perCall(f.cpuMs.together, calls);
  const stack = all - group["bench clients"];
  const floor = f.clients * all / f.cores;
  const alone = percentile(f.aloneMs, 95);
  return `Bound — ${f.clients} calls in flight × ${all.toFixed(1)} ms of CPU each ` +
    `(${
      stack.toFixed(1)
    } ms of it the stack's, the rest the bench's clients) ÷ ${f.cores} cores: ` +
    `at least ${Math.round(floor)} ms a call on average` +
    (alone === null ? "" : `, where the target allows ${Math.round(2 * alone)} ms at p95`);
}

/** The CPU per call table: each group alone and all at once. */
function cpuTable(f: ManyFigures): string[] {
  const rows: [string, CpuMs | null, number][] = [
    ["one client alone", f.cpuMs.alone, f.aloneMs.length],
    ["all at once", f.cpuMs.together, f.togetherMs.flat().length],
  ];
  if (rows.every(([, cpu]) => cpu === null)) return [];
  const cell = (v: number) => `${v.toFixed(2)} ms`;
  return [
    "",
    `CPU per call (user and system, from /proc), ${f.cores} cores:`,
    "",
    `| | ${CPU_GROUPS.join(" | ")} | all |`,
    `| --- |${" ---: |".repeat(CPU_GROUPS.length + 1)}`,
    ...rows.filter(([, cpu, calls]) => cpu !== null && calls > 0).map(([name, cpu, calls]) => {
      const { group, all } = perCall(cpu!, calls);
      return `| ${name} | ${CPU_GROUPS.map((g) => cell(group[g])).join(" | ")} | ${cell(all)} |`;
    }),
  ];
}

/** The figures as markdown. */
export function manyMarkdown(f: ManyFigures, lines: TargetLine[]): string {
  const ms = (v: number | null) => v === null ? "–" : `${Math.round(v)} ms`;
  const mib = (v: number | null) => v === null ? "–" : `${(v / 1024).toFixed(1)} MiB`;
  const all = f.togetherMs.flat();
  const bound = manyBound(f);
  return [
    `Many agents: ${f.clients} clients × ${f.tabs} tabs, ${f.callsPerTab} \`read_page\` ` +
    "(interactive, the settings page) per tab, round-robin over the client's tabs:",
    "",
    "| | p50 | p95 | calls |",
    "| --- | ---: | ---: | ---: |",
    `| one client alone | ${ms(median(f.aloneMs))} | ${
      ms(percentile(f.aloneMs, 95))
    } | ${f.aloneMs.length} |`,
    `| all at once | ${ms(median(all))} | ${ms(percentile(all, 95))} | ${all.length} |`,
    "",
    `Service RSS: ${mib(f.rssKiB.idle)} idle, ${mib(f.rssKiB.during)} at most during, ` +
    `${mib(f.rssKiB.after)} after` +
    (f.settledMs === null ? "" : ` (${(f.settledMs / 1000).toFixed(0)} s after the clients left)`) +
    `; ${f.failed} calls failed.` +
    (f.errors.length ? ` Broke: ${f.errors.join("; ")}` : ""),
    ...cpuTable(f),
    "",
    ...lines.map((line) => `- ${line.pass ? "PASS" : "FAIL"} — ${line.target}: ${line.figure}`),
    ...(bound === null ? [] : [`- ${bound}`]),
  ].join("\n");
}
