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
 *   --tasks        run the task set instead (tasks.ts, issue 32): eight tasks per server, the
 *                  3,000-row page against the floor; --record then rewrites the task section
 *   --many [CxT]   run the many-agents measurement instead (many.ts, issue 32): C clients with T
 *                  tabs each, calling at once (default 16x4), against one client alone;
 *                  --rounds sets the calls per tab (at least 200 per client, many.ts);
 *                  --record rewrites its section
 *   --wake         run the wake-up measurement instead (wake.ts, issue 32): the same calls busy
 *                  and after 300 ms and 2 s idle, leg by leg; --rounds sets the samples of each
 *                  (default 5; 20 or more for steady medians); --record rewrites its section
 *   --only LIST    with --tasks: only these tasks (table,shop,checkout,settings,search,iframe,
 *                  article,compare), for a quick look while developing
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
import { callsPerTabFor, manyMarkdown, manyTargets, measureMany } from "./many.ts";
import { measureWake, wakeMarkdown } from "./wake.ts";
import { runTasks, TASK_PEERS, type TaskPeer, TASKS } from "./tasks.ts";
import {
  type BigPageRun,
  summariseTasks,
  taskMarkdown,
  type TaskRun,
  taskTargets,
} from "./tasks_report.ts";

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
  tasks: boolean;
  only: string[] | null;
  many: { clients: number; tabs: number } | null;
  wake: boolean;
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
    tasks: false,
    only: null,
    many: null,
    wake: false,
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
    else if (arg === "--tasks") options.tasks = true;
    else if (arg === "--wake") options.wake = true;
    else if (arg === "--many") {
      const shape = /^(\d+)x(\d+)$/.exec(args[i + 1] ?? "");
      if (shape) i++;
      const [clients, tabs] = shape ? [Number(shape[1]), Number(shape[2])] : [16, 4];
      if (clients < 1 || clients > 64 || tabs < 1 || tabs > 16) {
        throw new Error("--many takes CxT with 1 to 64 clients and 1 to 16 tabs");
      }
      options.many = { clients, tabs };
    } else if (arg === "--only") {
      const wanted = value().split(",");
      const unknown = wanted.filter((t) => !TASKS.some((task) => task.id === t));
      if (unknown.length > 0) throw new Error(`unknown tasks: ${unknown.join(", ")}`);
      options.only = wanted;
    } else if (arg === "--peers") {
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

/** Rewrites the section of docs/performance.md between `<!-- bench:NAME:start/end -->`. */
async function record(section: string, name = "latest"): Promise<void> {
  const RECORD_START = `<!-- bench:${name}:start -->`;
  const RECORD_END = `<!-- bench:${name}:end -->`;
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

/** Reads and finds per round on the 3,000-row page, alternated, after one navigation. */
const BIG_PAGE_SAMPLES = 3;
/** The row whose button the big page's find asks for. */
const BIG_PAGE_QUERY = "Open 1234";

/** The 3,000-row page on Ghostlight or the floor: reads and finds, alternated, timed. */
async function bigPage(
  peer: "ghostlight" | "cdp",
  running: RunningPeer,
  fixtures: ReturnType<typeof serveFixtures>,
  round: number,
): Promise<BigPageRun> {
  const run: BigPageRun = {
    peer,
    round,
    readMs: [],
    findMs: [],
    readChars: [],
    findChars: [],
    findFirst: 0,
  };
  try {
    const driver = running.driver;
    if (!driver.find) throw new Error("no search tool");
    await within(driver.navigate(fixtures.url("/rows.html")), 60_000, "the 3,000-row page");
    for (let i = 0; i < BIG_PAGE_SAMPLES; i++) {
      let started = performance.now();
      const read = await within(driver.read(), 60_000, "a read of the 3,000-row page");
      run.readMs.push(performance.now() - started);
      run.readChars.push(read.textChars);
      if (read.isError || !read.text.includes('"Open 1"')) {
        throw new Error(`the read does not show the first row: ${read.text.slice(0, 200)}`);
      }
      started = performance.now();
      const found = await within(driver.find(BIG_PAGE_QUERY), 60_000, "a find on the page");
      run.findMs.push(performance.now() - started);
      run.findChars.push(found.textChars);
      const first = found.text.split("\n").find((line) => /Open \d+/.test(line)) ?? "";
      if (new RegExp(`"?${BIG_PAGE_QUERY}"?(?!\\d)`).test(first)) run.findFirst++;
    }
  } catch (error) {
    run.error = (error as Error).message.slice(0, 500);
  }
  return run;
}

/** `--tasks`: the task set on every server, and the big page against the floor. */
async function taskBench(options: Options, machine: Machine, startedAt: Date): Promise<void> {
  const unavailable: Partial<Record<TaskPeer | "cdp", string>> = {};
  const wanted = options.peers;
  const npm = wanted.some((p) => p === "playwright" || p === "devtools")
    ? await installNpmPeers()
    : { entries: {}, problems: {} };
  for (const peer of ["playwright", "devtools"] as const) {
    const problem = npm.problems[peer];
    if (problem) unavailable[peer] = problem;
  }
  for (const peer of [...TASK_PEERS, "cdp" as const]) {
    if (!wanted.includes(peer)) unavailable[peer] ??= "not selected (--peers)";
  }
  const starters: Record<PeerId, () => Promise<RunningPeer>> = {
    ghostlight: startGhostlight,
    playwright: () => startPlaywright(npm.entries.playwright!),
    devtools: () => startDevtools(npm.entries.devtools!),
    cdp: startCdpFloor,
  };
  const active = PEERS.filter((peer) => !unavailable[peer]);
  const fixtures = serveFixtures();
  const runs: TaskRun[] = [];
  const big: BigPageRun[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order = active.map((_, i) => active[(i + round) % active.length]);
      for (const peer of order) {
        let running: RunningPeer;
        try {
          running = await startWithin(starters[peer], `${PEER_TITLES[peer]} to start`);
        } catch (error) {
          const message = (error as Error).message.slice(0, 1_000);
          console.error(`round ${round + 1}: ${PEER_TITLES[peer]} did not start: ${message}`);
          if (peer === "cdp") {
            big.push({
              peer,
              round,
              error: message,
              readMs: [],
              findMs: [],
              readChars: [],
              findChars: [],
              findFirst: 0,
            });
          } else runs.push({ peer, round, error: message, results: [] });
          continue;
        }
        try {
          if (peer !== "cdp") {
            const runId = `t${round}-${peer}-${crypto.randomUUID().slice(0, 8)}`;
            const results = await within(
              runTasks(
                peer,
                running.call!,
                running.driver.refOf,
                fixtures,
                runId,
                options.only,
              ),
              JOURNEY_MS,
              "the task set",
            );
            runs.push({ peer, round, results });
            const failed = results.filter((r) => !r.ok).map((r) => `${r.task} (${r.note})`);
            console.error(
              `round ${round + 1}/${options.rounds}: ${PEER_TITLES[peer]}: ${
                results.reduce((s, r) => s + r.calls, 0)
              } calls, ${Math.round(results.reduce((s, r) => s + r.ms, 0))} ms, ` +
                (failed.length === 0 ? "every task checked out" : `failed: ${failed.join("; ")}`),
            );
          }
          if (peer === "ghostlight" || peer === "cdp") {
            const figures = await bigPage(peer, running, fixtures, round);
            big.push(figures);
            console.error(
              `round ${round + 1}/${options.rounds}: ${PEER_TITLES[peer]}, 3,000-row page: reads ${
                figures.readMs.map(Math.round).join(", ")
              } ms, finds ${figures.findMs.map(Math.round).join(", ")} ms` +
                (figures.error ? ` (${figures.error})` : ""),
            );
          }
        } catch (error) {
          const message = `the task set broke: ${(error as Error).message}`.slice(0, 1_000);
          if (peer !== "cdp") runs.push({ peer, round, error: message, results: [] });
          console.error(`round ${round + 1}: ${PEER_TITLES[peer]}: ${message}`);
        } finally {
          await running.stop().catch((error) =>
            console.error(`stopping ${peer}: ${error.message}`)
          );
        }
      }
    }
  } finally {
    await fixtures.close();
  }
  const summary = summariseTasks(runs, big, unavailable, options.rounds);
  const lines = taskTargets(summary);
  const heading = runHeading(options, machine, startedAt) +
    (options.only ? `\n\nOnly the tasks ${options.only.join(", ")}.` : "");
  const text = taskMarkdown(summary, lines, heading);
  console.log(text);
  const out = await writeJson(options, startedAt, {
    startedAt,
    finishedAt: new Date(),
    options,
    machine: { ...machine, loadavgAfter: Deno.loadavg() },
    unavailable,
    runs,
    bigPage: big,
    summary,
    targets: lines,
    markdown: text,
  }, "tasks");
  if (options.record) {
    await record(text, "tasks");
    console.error(`recorded in docs/performance.md`);
  }
  console.log(`\nJSON: ${out}`);
}

/** `--many`: many clients with tabs of their own calling at once, against one alone. */
async function manyBench(
  options: Options,
  shape: { clients: number; tabs: number },
  machine: Machine,
  startedAt: Date,
): Promise<void> {
  console.error(
    `measuring ${shape.clients} clients × ${shape.tabs} tabs, ${
      callsPerTabFor(shape.tabs, options.rounds)
    } calls per tab…`,
  );
  const figures = await measureMany(shape.clients, shape.tabs, options.rounds);
  const lines = manyTargets(figures);
  const text = `${runHeading(options, machine, startedAt)}\n\n${manyMarkdown(figures, lines)}`;
  console.log(text);
  const out = await writeJson(options, startedAt, {
    startedAt,
    finishedAt: new Date(),
    options,
    machine: { ...machine, loadavgAfter: Deno.loadavg() },
    figures,
    targets: lines,
    markdown: text,
  }, "many");
  if (options.record) {
    await record(text, "many");
    console.error(`recorded in docs/performance.md`);
  }
  console.log(`\nJSON: ${out}`);
}

/** `--wake`: the same calls busy and after an idle pause, leg by leg. */
async function wakeBench(options: Options, machine: Machine, startedAt: Date): Promise<void> {
  console.error(`measuring wake-ups, ${options.rounds} samples of each leg after each pause…`);
  const figures = await measureWake(options.rounds);
  const text = `${runHeading(options, machine, startedAt)}\n\n${wakeMarkdown(figures)}`;
  console.log(text);
  const out = await writeJson(options, startedAt, {
    startedAt,
    finishedAt: new Date(),
    options,
    machine: { ...machine, loadavgAfter: Deno.loadavg() },
    figures,
    markdown: text,
  }, "wake");
  if (options.record) {
    await record(text, "wake");
    console.error(`recorded in docs/performance.md`);
  }
  console.log(`\nJSON: ${out}`);
}

interface Machine {
  cores: number;
  loadavgBefore: number[];
  chromium: string;
  node: string;
  deno: string;
  commit: string;
}

/** The run's heading: when, how many rounds, the machine and every version. */
function runHeading(options: Options, machine: Machine, startedAt: Date): string {
  const versions = [
    `Ghostlight ${machine.commit}`,
    `${NPM_PEERS.playwright.name}@${NPM_PEERS.playwright.version}`,
    `${NPM_PEERS.devtools.name}@${NPM_PEERS.devtools.version}`,
    machine.chromium,
    `Node ${machine.node}`,
    `Deno ${machine.deno}`,
  ].join(", ");
  return [
    `### ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC: ${options.rounds} ` +
    `round${options.rounds === 1 ? "" : "s"}`,
    "",
    `${machine.cores} cores, load average ${
      machine.loadavgBefore.map((x) => x.toFixed(2)).join(" ")
    } ` +
    `at the start; ${versions}.`,
    ...(options.note ? ["", `**${options.note}**`] : []),
  ].join("\n");
}

/** Writes the run's JSON where `--out` says, else in the cache; returns the path. */
async function writeJson(
  options: Options,
  startedAt: Date,
  value: unknown,
  kind: string,
): Promise<string> {
  const cache = Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`;
  const out = options.out ??
    `${cache}/ghostlight-bench/results/${kind}-${
      startedAt.toISOString().replace(/[:.]/g, "-")
    }.json`;
  await Deno.mkdir(out.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(value, null, 2));
  return out;
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const startedAt = new Date();
  const machine: Machine = {
    cores: navigator.hardwareConcurrency,
    loadavgBefore: Deno.loadavg(),
    chromium: await version("/usr/bin/chromium", ["--version"]),
    node: await version("node", ["--version"]),
    deno: Deno.version.deno,
    commit: await version("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]),
  };
  if (options.tasks) return await taskBench(options, machine, startedAt);
  if (options.many) return await manyBench(options, options.many, machine, startedAt);
  if (options.wake) return await wakeBench(options, machine, startedAt);

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
  const heading = runHeading(options, machine, startedAt);
  let text = markdown(summary, stack, lines, heading);
  if (perTool) text += `\n\n${perToolMarkdown(perTool, options.rounds)}`;
  console.log(text);

  const out = await writeJson(options, startedAt, {
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
  }, "bench");
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
