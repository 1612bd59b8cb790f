/**
 * Wake-ups (issue 32): the same calls with the chain busy (each right after the one before) and
 * after it has been idle for a while, leg by leg, to see which processes pay for waking. One
 * service, one browser, one client on the bench form; every sample kind is interleaved with the
 * others so the machine's load falls on all of them alike:
 *
 * - `form_input` of one field by ref: the whole chain (connector, service, browser connector,
 *   native messaging, the extension, CDP, the page) and back;
 * - `tabs_context_mcp`: the whole chain with no page work;
 * - MCP `ping`: the stdio hop to the connector, bare;
 * - a refused `start` on the bridge socket: the service hop, bare;
 * - one `tab.get` of no tab timed in the service: the browser hop (browser connector, native
 *   messaging, the extension's worker), bare.
 *
 * Each is timed after a pause of 0 (busy: the call before it has just answered), 300 ms and
 * 2,000 ms.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { median } from "../../service/control/mod.ts";
import { controlKey } from "../../service/endpoint/mod.ts";
import { launchBrowser, type LaunchedBrowser } from "../support/browser.ts";
import { makeTestEnv } from "../support/env.ts";
import { serveFixtures } from "../support/fixtures.ts";
import { startService } from "../support/processes.ts";
import type { CallResult } from "../support/session.ts";
import { signalOrTimeout, waitFor, within } from "../support/wait.ts";
import { browserHop, connector, pathsOf, rawBridge, status, stopStack } from "./stack.ts";

/** The pauses before a sample, in ms: busy, a short idle, a longer one. */
export const WAKE_PAUSES = [0, 300, 2_000] as const;

/** What is timed after each pause. */
export const WAKE_LEGS = ["fill", "light", "ping", "bridge", "browserHop"] as const;
export type WakeLeg = typeof WAKE_LEGS[number];

/** Every sample, by leg and pause (as a string key: "0", "300", "2000"). */
export interface WakeFigures {
  samples: number;
  ms: Record<WakeLeg, Record<string, number[]>>;
  errors: string[];
}

/** An idle pause: nothing of the bench runs while it lasts. */
const pause = (ms: number) => signalOrTimeout(new AbortController().signal, ms);

/** Measures `samples` of every leg after every pause. */
export async function measureWake(samples: number): Promise<WakeFigures> {
  const figures: WakeFigures = {
    samples,
    ms: Object.fromEntries(
      WAKE_LEGS.map((leg) => [leg, Object.fromEntries(WAKE_PAUSES.map((p) => [String(p), []]))]),
    ) as unknown as WakeFigures["ms"],
    errors: [],
  };
  const testEnv = await makeTestEnv("bench");
  const paths = pathsOf(testEnv);
  const fixtures = serveFixtures();
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
    const { client } = await connector(testEnv);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args }) as CallResult;
      if (result.isError) throw new Error(`${name}: ${result.content[0]?.text?.slice(0, 300)}`);
      return result;
    };
    const first = await call("tabs_context_mcp", { createIfEmpty: true });
    const tabId = (first.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    await call("navigate", { url: fixtures.url("/bench_form.html"), tabId });
    const read = await call("read_page", { tabId, filter: "interactive" });
    const line = read.content.map((c) => c.text ?? "").join("\n").split("\n")
      .find((l) => /^\s*textbox .*\[ref_\d+\]/.test(l));
    if (!line) throw new Error("the bench form shows no text field");
    const ref = /\[(ref_\d+)\]/.exec(line)![1];
    const raw = await rawBridge(paths);
    const key = await controlKey(paths.keys);
    const legs: Record<WakeLeg, (i: number) => Promise<number>> = {
      fill: async (i) => {
        const started = performance.now();
        await call("form_input", { tabId, ref, value: `wake ${i}` });
        return performance.now() - started;
      },
      light: async () => {
        const started = performance.now();
        await call("tabs_context_mcp", {});
        return performance.now() - started;
      },
      ping: async () => {
        const started = performance.now();
        await client.ping();
        return performance.now() - started;
      },
      bridge: async () => {
        const started = performance.now();
        await raw.roundTrip();
        return performance.now() - started;
      },
      browserHop: () => browserHop(paths, key),
    };
    try {
      await within(
        (async () => {
          for (let i = 0; i < samples; i++) {
            // Rotated each sample, so no leg or pause always follows the same one.
            for (let j = 0; j < WAKE_PAUSES.length; j++) {
              const idle = WAKE_PAUSES[(i + j) % WAKE_PAUSES.length];
              for (let k = 0; k < WAKE_LEGS.length; k++) {
                const leg = WAKE_LEGS[(i + k) % WAKE_LEGS.length];
                // Busy: the same leg once just before, so the chain is awake.
                if (idle === 0) await legs[leg](i);
                else await pause(idle);
                figures.ms[leg][String(idle)].push(await legs[leg](i));
              }
            }
          }
        })(),
        900_000,
        "the wake-up samples",
      );
    } finally {
      raw.close();
    }
  } catch (error) {
    figures.errors.push((error as Error).message.slice(0, 500));
  } finally {
    await stopStack({ clients, browser, service });
    await fixtures.close();
    await testEnv.dispose();
  }
  return figures;
}

const LEG_TITLES: Record<WakeLeg, string> = {
  fill: "`form_input` of one field (the whole chain and the page)",
  light: "`tabs_context_mcp` (the whole chain, no page work)",
  ping: "MCP `ping` (stdio hop, bare)",
  bridge: "raw bridge exchange (bridge socket hop, bare)",
  browserHop: "`tab.get` of no tab, timed in the service (browser hop, bare)",
};

/** The figures as markdown: medians per leg and pause, and what the idle adds. */
export function wakeMarkdown(f: WakeFigures): string {
  const ms = (values: number[]) => {
    const m = median(values);
    return m === null ? "–" : `${m.toFixed(2)} ms`;
  };
  const added = (leg: WakeLeg, idle: number) => {
    const busy = median(f.ms[leg]["0"]);
    const after = median(f.ms[leg][String(idle)]);
    if (busy === null || after === null) return "–";
    const delta = after - busy;
    return `${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(2)} ms`;
  };
  return [
    `Wake-ups: ${f.samples} samples of each leg after each pause, interleaved; medians, and what ` +
    "the idle adds to the busy median:",
    "",
    "| | busy | after 300 ms | after 2 s | idle adds (300 ms; 2 s) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...WAKE_LEGS.map((leg) =>
      `| ${LEG_TITLES[leg]} | ${ms(f.ms[leg]["0"])} | ${ms(f.ms[leg]["300"])} | ${
        ms(f.ms[leg]["2000"])
      } | ${added(leg, 300)}; ${added(leg, 2_000)} |`
    ),
    ...(f.errors.length ? ["", `Broke: ${f.errors.join("; ")}`] : []),
  ].join("\n");
}
