/**
 * From the task rounds to figures: per task and in total, each server's calls, characters
 * returned, images, wall time and successes; ratios to the best peer; the big-page figures against
 * the floor; and issue 32's targets as PASS/FAIL lines.
 *
 * @module
 */

import { median } from "../../service/control/mod.ts";
import { TASK_PEERS, type TaskPeer, type TaskResult, TASKS } from "./tasks.ts";
import { PEER_TITLES } from "./report.ts";
import type { TargetLine } from "./report.ts";

/** One server's round of the task set. */
export interface TaskRun {
  peer: TaskPeer;
  round: number;
  /** Why the round could not run, if it could not. */
  error?: string;
  results: TaskResult[];
}

/** One round of the big page for Ghostlight or the floor: reads and finds, alternated. */
export interface BigPageRun {
  peer: "ghostlight" | "cdp";
  round: number;
  error?: string;
  readMs: number[];
  findMs: number[];
  readChars: number[];
  findChars: number[];
  /** Finds whose first match was the asked row's button. */
  findFirst: number;
}

/** Medians of one task (or the total) for one server. */
export interface TaskFigure {
  calls: number | null;
  textChars: number | null;
  images: number | null;
  imageChars: number | null;
  ms: number | null;
  ok: number;
  attempted: number;
  note?: string;
}

export interface TaskSummary {
  peers: Record<
    TaskPeer,
    { unavailable?: string; tasks: Record<string, TaskFigure>; total: TaskFigure }
  >;
  bigPage: Record<"ghostlight" | "cdp", {
    readMs: number | null;
    findMs: number | null;
    readChars: number | null;
    findChars: number | null;
    findFirst: number;
    finds: number;
    error?: string;
  }>;
  rounds: number;
}

function figure(rounds: TaskResult[][]): TaskFigure {
  const sums = rounds.map((results) => ({
    calls: results.reduce((s, r) => s + r.calls, 0),
    textChars: results.reduce((s, r) => s + r.textChars, 0),
    images: results.reduce((s, r) => s + r.images, 0),
    imageChars: results.reduce((s, r) => s + r.imageChars, 0),
    ms: results.reduce((s, r) => s + r.ms, 0),
    ok: results.length > 0 && results.every((r) => r.ok),
    note: results.find((r) => !r.ok) &&
      `${results.find((r) => !r.ok)!.task}: ${results.find((r) => !r.ok)!.note}`,
  }));
  const good = sums.filter((s) => s.ok);
  const basis = good.length > 0 ? good : sums;
  const bad = sums.find((s) => !s.ok);
  const of = (key: "calls" | "textChars" | "images" | "imageChars" | "ms") =>
    median(basis.map((s) => s[key]));
  return {
    calls: of("calls"),
    textChars: of("textChars"),
    images: of("images"),
    imageChars: of("imageChars"),
    ms: of("ms"),
    ok: good.length,
    attempted: sums.length,
    ...(bad?.note ? { note: bad.note } : {}),
  };
}

/** Summarises the rounds. */
export function summariseTasks(
  runs: TaskRun[],
  bigPage: BigPageRun[],
  unavailable: Partial<Record<TaskPeer, string>>,
  rounds: number,
): TaskSummary {
  const peers = {} as TaskSummary["peers"];
  for (const peer of TASK_PEERS) {
    const mine = runs.filter((run) => run.peer === peer && !run.error);
    const tasks: Record<string, TaskFigure> = {};
    for (const task of TASKS) {
      const rounds = mine.map((run) => run.results.filter((r) => r.task === task.id))
        .filter((r) => r.length > 0);
      if (rounds.length > 0) tasks[task.id] = figure(rounds);
    }
    const failedToStart = runs.find((run) => run.peer === peer && run.error);
    peers[peer] = {
      ...(unavailable[peer]
        ? { unavailable: unavailable[peer] }
        : mine.length === 0 && failedToStart
        ? { unavailable: `every round failed: ${failedToStart.error}` }
        : {}),
      tasks,
      total: figure(mine.map((run) => run.results)),
    };
  }
  const big = (peer: "ghostlight" | "cdp") => {
    const mine = bigPage.filter((run) => run.peer === peer);
    const all = (key: "readMs" | "findMs" | "readChars" | "findChars") =>
      median(mine.flatMap((run) => run[key]));
    return {
      readMs: all("readMs"),
      findMs: all("findMs"),
      readChars: all("readChars"),
      findChars: all("findChars"),
      findFirst: mine.reduce((s, run) => s + run.findFirst, 0),
      finds: mine.reduce((s, run) => s + run.findMs.length, 0),
      ...(mine.find((run) => run.error) ? { error: mine.find((run) => run.error)!.error } : {}),
    };
  };
  return { peers, bigPage: { ghostlight: big("ghostlight"), cdp: big("cdp") }, rounds };
}

const ms = (value: number | null) => value === null ? "–" : `${Math.round(value)} ms`;
const chars = (value: number | null) =>
  value === null ? "–" : value >= 1000 ? `${(value / 1000).toFixed(1)}k` : `${Math.round(value)}`;

/** The best (lowest) peer's figure for `key` over the peers that ran every task. */
function best(summary: TaskSummary, key: "calls" | "textChars" | "ms") {
  const candidates = (["playwright", "devtools"] as const)
    .filter((p) => !summary.peers[p].unavailable && summary.peers[p].total[key] !== null)
    .map((p) => ({ peer: p, value: summary.peers[p].total[key]!, ok: summary.peers[p].total.ok }));
  if (candidates.length === 0) return null;
  return candidates.reduce((a, b) => (b.value < a.value ? b : a));
}

/** Issue 32's targets checked against this run. */
export function taskTargets(summary: TaskSummary): TargetLine[] {
  const lines: TargetLine[] = [];
  const add = (target: string, pass: boolean, figure: string) =>
    lines.push({ target, pass, figure });
  const gl = summary.peers.ghostlight;
  const few = summary.rounds < 5
    ? ` (${summary.rounds} round${summary.rounds === 1 ? "" : "s"}; the targets ask for 5 or more)`
    : "";
  const enough = summary.rounds >= 5;
  for (
    const [key, title, limit, unit] of [
      [
        "textChars",
        "Characters returned over the task set at most 0.6× the best peer's",
        0.6,
        "characters",
      ],
      ["calls", "Calls over the task set at most the best peer's", 1, "calls"],
      ["ms", "Task wall time over the task set at most 0.5× the best peer's", 0.5, "ms"],
    ] as const
  ) {
    const peer = best(summary, key);
    const mine = gl.total[key];
    if (gl.unavailable || mine === null || peer === null) {
      add(title, false, gl.unavailable ?? "not measured (no peer ran)");
      continue;
    }
    const ratio = mine / peer.value;
    add(
      title,
      enough && ratio <= limit,
      `${Math.round(mine)} vs ${PEER_TITLES[peer.peer]}'s ${Math.round(peer.value)} ${unit}: ` +
        `${ratio.toFixed(2)}×${few}`,
    );
  }
  add(
    "Every task succeeds for Ghostlight",
    enough && gl.total.attempted > 0 && gl.total.ok === gl.total.attempted,
    `${gl.total.ok} of ${gl.total.attempted} rounds with every task checked out` +
      (gl.total.note ? `; ${gl.total.note}` : "") + few,
  );
  const big = summary.bigPage;
  for (
    const [key, title, limit] of [
      [
        "findMs",
        "find for one row's button on the 3,000-row page at most 10× the floor's query",
        10,
      ],
      ["readMs", "read_page of the 3,000-row page at most 1.5× the floor's walk", 1.5],
    ] as const
  ) {
    const mine = big.ghostlight[key];
    const floor = big.cdp[key];
    if (mine === null || floor === null) {
      add(title, false, big.ghostlight.error ?? big.cdp.error ?? "not measured");
      continue;
    }
    add(
      title,
      enough && mine / floor <= limit,
      `${ms(mine)} vs ${ms(floor)}: ${(mine / floor).toFixed(1)}×${few}`,
    );
  }
  add(
    "…and find returns that row's button first",
    big.ghostlight.finds > 0 && big.ghostlight.findFirst === big.ghostlight.finds,
    `in ${big.ghostlight.findFirst} of ${big.ghostlight.finds} finds`,
  );
  return lines;
}

function mark(f: TaskFigure): string {
  return f.ok < f.attempted ? ` ✗${f.attempted - f.ok}/${f.attempted}` : "";
}

function cell(f: TaskFigure | undefined): string {
  if (!f) return "–";
  const images = f.images ? `, ${f.images} img ${chars(f.imageChars)}` : "";
  return `${f.calls ?? "–"} · ${chars(f.textChars)}${images} · ${ms(f.ms)}${mark(f)}`;
}

/** The markdown of a task run. */
export function taskMarkdown(summary: TaskSummary, lines: TargetLine[], heading: string): string {
  const out = [
    heading,
    "",
    "Per task, each server's medians over its rounds: calls · characters returned (text; ≈ " +
    "tokens at 4 each) · wall time; images are named where a sequence took any. ✗k/n: the " +
    "page's end state did not check out in k of n rounds (medians are over the rounds that did).",
    "",
    `| task | ${TASK_PEERS.map((p) => PEER_TITLES[p]).join(" | ")} |`,
    `| --- | ${TASK_PEERS.map(() => "---:").join(" | ")} |`,
  ];
  for (const task of TASKS) {
    const cells = TASK_PEERS.map((peer) =>
      summary.peers[peer].unavailable ? "n/a" : cell(summary.peers[peer].tasks[task.id])
    );
    out.push(`| ${task.title} | ${cells.join(" | ")} |`);
  }
  out.push(
    `| **all eight** | ${
      TASK_PEERS.map((peer) =>
        summary.peers[peer].unavailable ? "n/a" : `**${cell(summary.peers[peer].total)}**`
      ).join(" | ")
    } |`,
  );
  const gl = summary.peers.ghostlight.total;
  const ratio = (key: "calls" | "textChars" | "ms") => {
    const peer = best(summary, key);
    return peer && gl[key] !== null
      ? `${(gl[key]! / peer.value).toFixed(2)}× ${PEER_TITLES[peer.peer]}`
      : "–";
  };
  out.push(
    "",
    `Ghostlight against the best peer on each figure: calls ${ratio("calls")}, characters ` +
      `${ratio("textChars")}, wall time ${ratio("ms")}.`,
  );
  const big = summary.bigPage;
  out.push(
    "",
    "The 3,000-row page (rows.html), Ghostlight against the raw-CDP floor, medians of every " +
      'read and find (a find for one row\'s button, "Open 1234"):',
    "",
    "| | Ghostlight | raw CDP (floor) | ratio |",
    "| --- | ---: | ---: | ---: |",
    `| read_page / the floor's walk | ${ms(big.ghostlight.readMs)} (${
      chars(big.ghostlight.readChars)
    } chars) | ${ms(big.cdp.readMs)} | ${
      big.ghostlight.readMs && big.cdp.readMs
        ? `${(big.ghostlight.readMs / big.cdp.readMs).toFixed(1)}×`
        : "–"
    } |`,
    `| find / the floor's query | ${ms(big.ghostlight.findMs)} (${
      chars(big.ghostlight.findChars)
    } chars) | ${ms(big.cdp.findMs)} | ${
      big.ghostlight.findMs && big.cdp.findMs
        ? `${(big.ghostlight.findMs / big.cdp.findMs).toFixed(1)}×`
        : "–"
    } |`,
  );
  const notes: string[] = [];
  for (const peer of TASK_PEERS) {
    const s = summary.peers[peer];
    if (s.unavailable) {
      notes.push(`- ${PEER_TITLES[peer]}: did not run: ${s.unavailable}`);
      continue;
    }
    for (const [task, f] of Object.entries(s.tasks)) {
      if (f.ok < f.attempted) {
        notes.push(
          `- ${PEER_TITLES[peer]}, ${task}: failed ${f.attempted - f.ok}/${f.attempted}: ${f.note}`,
        );
      }
    }
  }
  for (const peer of ["ghostlight", "cdp"] as const) {
    if (big[peer].error) notes.push(`- big page, ${PEER_TITLES[peer]}: ${big[peer].error}`);
  }
  if (notes.length > 0) out.push("", "Failures:", "", ...notes);
  out.push("", "Targets (issue 32):", "");
  for (const line of lines) {
    out.push(`- ${line.pass ? "PASS" : "FAIL"} — ${line.target}: ${line.figure}`);
  }
  return out.join("\n");
}
