/**
 * `deno task bench [--rounds N]`: the measuring instrument of issue 14. One invocation runs the
 * scripted journey (see journey.ts) against Ghostlight, Playwright MCP, chrome-devtools-mcp and a
 * raw-CDP floor, in interleaved rounds with a fresh server and browser per round for each peer;
 * then Ghostlight's stack figures (stack.ts) and its per-tool figures (per_tool.ts). Prints a
 * markdown table with the targets as pass/fail lines, writes every sample as JSON and prints the
 * file's path. Not a test: it exits 0 whatever the figures say, and 1 only when the instrument
 * itself broke.
 *
 * Options:
 *   --rounds N     rounds of the journey (default 5; a bare number works too)
 *   --out FILE     where the JSON goes (default ~/.cache/ghostlight-bench/results/…)
 *   --record       rewrite the latest-run section of docs/performance.md with this run
 *   --note TEXT    a line to print under the run's heading (e.g. what the machine was doing)
 *   --peers LIST   only these peers (ghostlight,playwright,devtools,cdp)
 *   --no-stack     skip the stack figures
 *   --no-tools     skip the per-tool figures
 *
 * Everything it starts listens on, or talks to, 127.0.0.1 or a Unix socket; every loop has a
 * count and every wait a bound.
 *
 * @module
 */

import { ROOT } from "../support/env.ts";
import { serveFixtures } from "../support/fixtures.ts";
import { within } from "../support/wait.ts";
import { startCdpFloor } from "./cdp_floor.ts";
import { runJourney } from "./journey.ts";
import {
  installNpmPeers,
  NPM_PEERS,
  type RunningPeer,
  startDevtools,
  startGhostlight,
  startPlaywright,
} from "./mcp_peers.ts";
import { measurePerTool, perToolMarkdown, type ToolFigure } from "./per_tool.ts";
import {
  markdown,
  PEER_TITLES,
  type PeerId,
  type PeerRun,
  PEERS,
  summarise,
  targets,
} from "./report.ts";
import { measureStack, type StackFigures } from "./stack.ts";

/** How long a peer may take to start, and a whole journey to run. */
const START_MS = 180_000;
const JOURNEY_MS = 900_000;

interface Options {
  rounds: number;
  out: string | null;
  record: boolean;
  note: string | null;
  peers: PeerId[];
  stack: boolean;
  tools: boolean;
}

function parseOptions(args: string[]): Options {
  const options: Options = {
    rounds: 5,
    out: null,
    record: false,
    note: null,
    peers: [...PEERS],
    stack: true,
    tools: true,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--rounds") options.rounds = Number(value());
    else if (/^\d+$/.test(arg)) options.rounds = Number(arg);
    else if (arg === "--out") options.out = value();
    else if (arg === "--record") options.record = true;
    else if (arg === "--note") options.note = value();
    else if (arg === "--no-stack") options.stack = false;
    else if (arg === "--no-tools") options.tools = false;
    else if (arg === "--peers") {
      const wanted = value().split(",");
      const unknown = wanted.filter((p) => !(PEERS as readonly string[]).includes(p));
      if (unknown.length > 0) throw new Error(`unknown peers: ${unknown.join(", ")}`);
      options.peers = wanted as PeerId[];
    } else throw new Error(`unknown argument ${arg}; see tests/bench/main.ts`);
  }
  if (!Number.isInteger(options.rounds) || options.rounds < 1 || options.rounds > 50) {
    throw new Error("--rounds takes a whole number from 1 to 50");
  }
  return options;
}

async function version(command: string, args: string[]): Promise<string> {
  try {
    const output = await new Deno.Command(command, { args, stdin: "null", stderr: "null" })
      .output();
    return new TextDecoder().decode(output.stdout).trim().split("\n")[0];
  } catch {
    return "unavailable";
  }
}

/** Starts a peer within a bound; one that starts after the bound is stopped when it does. */
async function startWithin(start: () => Promise<RunningPeer>, what: string): Promise<RunningPeer> {
  let late = false;
  const starting = start();
  starting.then(async (peer) => {
    if (late) await peer.stop();
  }).catch(() => {});
  try {
    return await within(starting, START_MS, what);
  } catch (error) {
    late = true;
    throw error;
  }
}

const RECORD_START = "<!-- bench:latest:start -->";
const RECORD_END = "<!-- bench:latest:end -->";

async function record(section: string): Promise<void> {
  const path = `${ROOT}/docs/performance.md`;
  const text = await Deno.readTextFile(path);
  const start = text.indexOf(RECORD_START);
  const end = text.indexOf(RECORD_END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${RECORD_START} … ${RECORD_END}`);
  await Deno.writeTextFile(
    path,
    `${text.slice(0, start + RECORD_START.length)}\n\n${section}\n\n${text.slice(end)}`,
  );
  // The table goes in as printed; `deno task check` wants the file formatted.
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", path], stdin: "null" }).output();
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const startedAt = new Date();
  const machine = {
    cores: navigator.hardwareConcurrency,
    loadavgBefore: Deno.loadavg(),
    chromium: await version("/usr/bin/chromium", ["--version"]),
    node: await version("node", ["--version"]),
    deno: Deno.version.deno,
    commit: await version("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]),
  };

  const unavailable: Partial<Record<PeerId, string>> = {};
  const npm = options.peers.some((p) => p === "playwright" || p === "devtools")
    ? await installNpmPeers()
    : { entries: {}, problems: {} };
  const starters: Record<PeerId, () => Promise<RunningPeer>> = {
    ghostlight: startGhostlight,
    playwright: () => startPlaywright(npm.entries.playwright!),
    devtools: () => startDevtools(npm.entries.devtools!),
    cdp: startCdpFloor,
  };
  for (const peer of ["playwright", "devtools"] as const) {
    const problem = npm.problems[peer];
    if (problem) unavailable[peer] = problem;
  }
  for (const peer of PEERS) {
    if (!options.peers.includes(peer)) unavailable[peer] ??= "not selected (--peers)";
  }
  const active = PEERS.filter((peer) => !unavailable[peer]);

  const fixtures = serveFixtures();
  const runs: PeerRun[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      // Interleaved: every peer once per round, the order rotated so no peer always goes first.
      const order = active.map((_, i) => active[(i + round) % active.length]);
      for (const [place, peer] of order.entries()) {
        const runId = `r${round}-${peer}-${crypto.randomUUID().slice(0, 8)}`;
        const started = performance.now();
        let running: RunningPeer;
        try {
          running = await startWithin(starters[peer], `${PEER_TITLES[peer]} to start`);
        } catch (error) {
          const message = (error as Error).message.slice(0, 1_000);
          console.error(`round ${round + 1}: ${PEER_TITLES[peer]} did not start: ${message}`);
          runs.push({ peer, round, order: place, startMs: null, error: message, steps: [] });
          continue;
        }
        const startMs = performance.now() - started;
        const run: PeerRun = {
          peer,
          round,
          order: place,
          startMs,
          steps: [],
          tools: running.tools,
        };
        try {
          const journey = await within(
            runJourney(running.driver, fixtures, runId),
            JOURNEY_MS,
            "the journey",
          );
          run.steps = journey.steps;
          run.evidence = journey.evidence;
        } catch (error) {
          run.error = `the journey broke: ${(error as Error).message}`.slice(0, 1_000);
        } finally {
          await running.stop().catch((error) =>
            console.error(`stopping ${peer}: ${error.message}`)
          );
        }
        runs.push(run);
        const journeyMs = run.steps.filter((s) => !s.skipped).reduce(
          (sum, s) => sum + (s.ms ?? 0),
          0,
        );
        const failed = run.steps.filter((s) => !s.ok && !s.skipped).map((s) => s.step);
        console.error(
          `round ${round + 1}/${options.rounds}: ${PEER_TITLES[peer]}: ${
            Math.round(journeyMs)
          } ms ` +
            `in all steps, ${
              failed.length === 0 ? "every step checked out" : `failed: ${failed.join(", ")}`
            }` +
            (run.error ? ` (${run.error})` : ""),
        );
      }
    }
  } finally {
    await fixtures.close();
  }

  let stack: StackFigures | null = null;
  if (options.stack && !unavailable.ghostlight) {
    console.error("measuring Ghostlight's stack (cold starts, memory, per-call overhead)…");
    stack = await measureStack(Math.max(3, options.rounds)).catch((error) => {
      console.error(`the stack figures broke: ${error.message}`);
      return null;
    });
  }
  let perTool: ToolFigure[] | null = null;
  if (options.tools && !unavailable.ghostlight) {
    console.error("measuring Ghostlight per tool…");
    perTool = await measurePerTool(options.rounds).catch((error) => {
      console.error(`the per-tool figures broke: ${error.message}`);
      return null;
    });
  }

  const summary = summarise(runs, unavailable);
  const lines = targets(summary, stack);
  const finishedAt = new Date();
  const versions = [
    `Ghostlight ${machine.commit}`,
    `${NPM_PEERS.playwright.name}@${NPM_PEERS.playwright.version}`,
    `${NPM_PEERS.devtools.name}@${NPM_PEERS.devtools.version}`,
    machine.chromium,
    `Node ${machine.node}`,
    `Deno ${machine.deno}`,
  ].join(", ");
  const heading = [
    `### ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC: ${options.rounds} ` +
    `round${options.rounds === 1 ? "" : "s"}`,
    "",
    `${machine.cores} cores, load average ${
      machine.loadavgBefore.map((x) => x.toFixed(2)).join(" ")
    } ` +
    `at the start; ${versions}.`,
    ...(options.note ? ["", `**${options.note}**`] : []),
  ].join("\n");
  let text = markdown(summary, stack, lines, heading);
  if (perTool) text += `\n\n${perToolMarkdown(perTool, options.rounds)}`;
  console.log(text);

  const cache = Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`;
  const out = options.out ??
    `${cache}/ghostlight-bench/results/bench-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`;
  await Deno.mkdir(out.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  await Deno.writeTextFile(
    out,
    JSON.stringify(
      {
        startedAt,
        finishedAt,
        options,
        machine: { ...machine, loadavgAfter: Deno.loadavg() },
        peers: PEERS.map((peer) => ({
          id: peer,
          title: PEER_TITLES[peer],
          ...(peer === "playwright" || peer === "devtools" ? NPM_PEERS[peer] : {}),
          ...(unavailable[peer] ? { unavailable: unavailable[peer] } : {}),
        })),
        runs,
        summary,
        stack,
        perTool,
        targets: lines,
        markdown: text,
      },
      null,
      2,
    ),
  );
  if (options.record) {
    await record(text);
    console.error(`recorded in docs/performance.md`);
  }
  console.log(`\nJSON: ${out}`);
}

try {
  await main();
} catch (error) {
  console.error(`the bench itself broke: ${(error as Error).stack ?? error}`);
  Deno.exit(1);
}
