/**
 * From raw rounds to figures: medians per step and per journey, ratios to the floor, characters
 * returned, successes, the targets of issue 14 as pass/fail lines, and the markdown table.
 *
 * @module
 */

import { median } from "../../service/control/mod.ts";
import { FILLED_FIELDS, JOURNEY_STEPS, type StepResult } from "./journey.ts";
import type { ToolList } from "./mcp_peers.ts";
import type { StackFigures } from "./stack.ts";

/** The peers, in the table's column order. */
export const PEERS = ["ghostlight", "playwright", "devtools", "cdp"] as const;
export type PeerId = typeof PEERS[number];

export const PEER_TITLES: Record<PeerId, string> = {
  ghostlight: "Ghostlight",
  playwright: "Playwright MCP",
  devtools: "chrome-devtools-mcp",
  cdp: "raw CDP (floor)",
};

/** One peer's round. */
export interface PeerRun {
  peer: PeerId;
  round: number;
  /** Its place in the round's order (rotated each round). */
  order: number;
  /** Server and browser start, before the journey (not part of any figure). */
  startMs: number | null;
  /** Why the round could not run, if it could not. */
  error?: string;
  steps: StepResult[];
  /** What the checks saw: the submission the server received, the probes' answers. */
  evidence?: Record<string, unknown>;
  tools?: ToolList;
}

/** A figure over the rounds of one peer. */
export interface Figure {
  /** Median wall time over the rounds in which the step succeeded (all rounds if none did). */
  medianMs: number | null;
  /** Median characters of text returned, and of image data. */
  textChars: number | null;
  imageChars: number | null;
  ok: number;
  attempted: number;
  /** Why the peer cannot take this step (no such tool), when it cannot. */
  skipped?: string;
  /** The first failure's reason, if any round failed. */
  note?: string;
}

/** The figures of one peer. */
export interface PeerSummary {
  /** Why the peer did not run at all, when it did not. */
  unavailable?: string;
  steps: Record<string, Figure>;
  /** The 14 single fills, summed per round. */
  fills: Figure;
  /** The journey's steps summed per round. */
  journey: Figure;
  tools?: ToolList;
}

/**
 * What a light call is compared with: the sum of the bare hops' medians it crosses, and how that
 * sum is made (runs recorded before the bare browser hop was measured have only the first two).
 */
function bareRoundTrip(p: StackFigures["perCall"]): { ms: number; parts: string } | null {
  const ping = median(p.pingMs);
  const bridge = median(p.rawBridgeMs);
  if (ping === null || bridge === null) return null;
  const hop = median(p.browserHopMs ?? []);
  return hop === null
    ? { ms: ping + bridge, parts: "MCP ping + raw bridge exchange" }
    : { ms: ping + bridge + hop, parts: "MCP ping + raw bridge exchange + bare browser hop" };
}

/** Sums `steps` per round; a round counts as ok only if every step in it did. */
function summed(runs: PeerRun[], steps: string[]): Figure {
  const rounds = runs.filter((run) => !run.error).map((run) => {
    const chosen = run.steps.filter((s) => steps.includes(s.step));
    const timed = chosen.every((s) => s.ms !== null) && chosen.length === steps.length;
    return {
      ms: timed ? chosen.reduce((sum, s) => sum + s.ms!, 0) : null,
      text: chosen.reduce((sum, s) => sum + s.textChars, 0),
      image: chosen.reduce((sum, s) => sum + s.imageChars, 0),
      ok: timed && chosen.every((s) => s.ok),
      note: chosen.find((s) => !s.ok)?.note,
      failed: chosen.find((s) => !s.ok)?.step,
    };
  });
  const good = rounds.filter((r) => r.ok);
  const basis = good.length > 0 ? good : rounds;
  const firstBad = rounds.find((r) => !r.ok);
  return {
    medianMs: median(basis.filter((r) => r.ms !== null).map((r) => r.ms!)),
    textChars: median(basis.map((r) => r.text)),
    imageChars: median(basis.map((r) => r.image)),
    ok: good.length,
    attempted: rounds.length,
    ...(firstBad ? { note: `${firstBad.failed}: ${firstBad.note}` } : {}),
  };
}

function stepFigure(runs: PeerRun[], step: string): Figure {
  const results = runs.filter((run) => !run.error)
    .map((run) => run.steps.find((s) => s.step === step))
    .filter((s): s is StepResult => s !== undefined);
  const skipped = results.find((s) => s.skipped);
  if (skipped) {
    return {
      medianMs: null,
      textChars: null,
      imageChars: null,
      ok: 0,
      attempted: 0,
      skipped: skipped.note,
    };
  }
  const good = results.filter((s) => s.ok);
  const basis = good.length > 0 ? good : results.filter((s) => s.ms !== null);
  const bad = results.find((s) => !s.ok);
  return {
    medianMs: median(basis.filter((s) => s.ms !== null).map((s) => s.ms!)),
    textChars: median(basis.map((s) => s.textChars)),
    imageChars: median(basis.map((s) => s.imageChars)),
    ok: good.length,
    attempted: results.length,
    ...(bad ? { note: bad.note } : {}),
  };
}

export const FILL_STEPS = FILLED_FIELDS.map((field) => `fill:${field.name}`);

/** Summarises every peer's rounds. */
export function summarise(
  runs: PeerRun[],
  unavailable: Partial<Record<PeerId, string>>,
): Record<PeerId, PeerSummary> {
  const out = {} as Record<PeerId, PeerSummary>;
  for (const peer of PEERS) {
    const mine = runs.filter((run) => run.peer === peer);
    const steps: Record<string, Figure> = {};
    const names = new Set(mine.flatMap((run) => run.steps.map((s) => s.step)));
    for (const step of names) steps[step] = stepFigure(mine, step);
    const ran = mine.filter((run) => !run.error);
    out[peer] = {
      ...(unavailable[peer]
        ? { unavailable: unavailable[peer] }
        : ran.length === 0 && mine.length > 0
        ? { unavailable: `every round failed to start: ${mine[0].error}` }
        : {}),
      steps,
      fills: summed(mine, FILL_STEPS),
      journey: summed(mine, JOURNEY_STEPS),
      ...(mine.find((run) => run.tools)?.tools
        ? { tools: mine.find((run) => run.tools)!.tools }
        : {}),
    };
  }
  return out;
}

/** A target of issue 14 and whether this run met it. */
export interface TargetLine {
  target: string;
  pass: boolean;
  figure: string;
}

const ms = (value: number | null) => value === null ? "–" : `${Math.round(value)} ms`;
const kchars = (value: number | null) =>
  value === null ? "–" : value >= 1000 ? `${(value / 1000).toFixed(1)}k` : `${Math.round(value)}`;

/** The targets of issue 14, checked against this run's figures. */
export function targets(
  summary: Record<PeerId, PeerSummary>,
  stack: StackFigures | null,
): TargetLine[] {
  const gl = summary.ghostlight;
  const floor = summary.cdp;
  const lines: TargetLine[] = [];
  const add = (target: string, pass: boolean, figure: string) =>
    lines.push({ target, pass, figure });
  const failed = (figure: Figure) =>
    figure.ok < figure.attempted
      ? ` (failed in ${figure.attempted - figure.ok} of ${figure.attempted} rounds)`
      : "";

  const glJourney = gl.journey.medianMs;
  const floorJourney = floor.journey.medianMs;
  if (glJourney !== null && floorJourney !== null) {
    const ratio = glJourney / floorJourney;
    add(
      "Journey without the 3,000-row page at most 1.3× the raw-CDP floor",
      ratio <= 1.3 && gl.journey.ok > 0,
      `${ms(glJourney)} vs ${ms(floorJourney)}: ${ratio.toFixed(2)}×${failed(gl.journey)}`,
    );
  } else {
    add("Journey without the 3,000-row page at most 1.3× the raw-CDP floor", false, "not measured");
  }
  const peers = (["playwright", "devtools"] as const).filter((p) =>
    summary[p].journey.medianMs !== null
  );
  if (glJourney !== null && peers.length > 0) {
    const slowest = peers.map((p) => ({ p, ms: summary[p].journey.medianMs! }));
    add(
      "…and at least 3× faster than both peers",
      peers.length === 2 && slowest.every((x) => x.ms >= 3 * glJourney),
      slowest.map((x) => `${PEER_TITLES[x.p]} ${(x.ms / glJourney).toFixed(2)}×`).join(", ") +
        (peers.length < 2 ? " (a peer did not run)" : ""),
    );
  } else {
    add("…and at least 3× faster than both peers", false, "not measured");
  }
  for (
    const [step, title] of [
      ["click_field", "click a field"],
      ["type_field", "type into it"],
      ["submit", "submit (a click that loads a page)"],
      ["click_shadow", "click the shadow-DOM button"],
    ]
  ) {
    const mine = gl.steps[step];
    const base = floor.steps[step];
    if (mine?.medianMs != null && base?.medianMs != null) {
      const over = mine.medianMs - base.medianMs;
      add(
        `Action within 40 ms of the floor: ${title}`,
        over <= 40 && mine.ok === mine.attempted,
        `${ms(mine.medianMs)} vs ${ms(base.medianMs)}: +${Math.round(over)} ms${failed(mine)}`,
      );
    } else {
      add(`Action within 40 ms of the floor: ${title}`, false, "not measured");
    }
  }
  add(
    "The 14 field fills return at most 1,500 characters in total",
    gl.fills.textChars !== null && gl.fills.textChars <= 1500 && gl.fills.ok > 0,
    `${gl.fills.textChars ?? "–"} characters${failed(gl.fills)}`,
  );
  const all = gl.steps.form_fill_all;
  const allFloor = floor.steps.form_fill_all;
  if (all?.skipped) {
    add("One form_fill fills all 14 within 2× the floor", false, all.skipped);
  } else if (all?.medianMs != null && allFloor?.medianMs != null) {
    const ratio = all.medianMs / allFloor.medianMs;
    add(
      "One form_fill fills all 14 within 2× the floor",
      ratio <= 2 && all.ok === all.attempted,
      `${ms(all.medianMs)} vs ${ms(allFloor.medianMs)}: ${ratio.toFixed(2)}×${failed(all)}`,
    );
  } else {
    add("One form_fill fills all 14 within 2× the floor", false, all?.note ?? "not measured");
  }
  const rows = gl.steps.read_rows;
  add(
    "read_page of the 3,000-row page within its max_chars default (24,000)",
    rows?.textChars != null && rows.textChars <= 24_000 && rows.ok > 0,
    `${rows?.textChars ?? "–"} characters${rows ? failed(rows) : ""}`,
  );
  const find = gl.steps.find_row;
  add(
    "A following find for one row's button returns it first",
    find !== undefined && find.attempted > 0 && find.ok === find.attempted,
    find === undefined ? "not measured" : find.note ?? `in ${find.ok} of ${find.attempted} rounds`,
  );
  const bare = stack ? bareRoundTrip(stack.perCall) : null;
  if (stack && stack.perCall.tabsContextMs.length > 0 && bare) {
    const light = median(stack.perCall.tabsContextMs)!;
    add(
      "Stack overhead per light call (tabs_context_mcp) within 3 ms of a bare round trip",
      light - bare.ms <= 3,
      `${light.toFixed(2)} ms vs ${bare.ms.toFixed(2)} ms (${bare.parts}): ` +
        `+${(light - bare.ms).toFixed(2)} ms`,
    );
  } else {
    add("Stack overhead per light call within 3 ms of a bare round trip", false, "not measured");
  }
  const tools = stack?.tools ?? gl.tools ?? null;
  if (tools) {
    add(
      "The advertised tool list for all 25 tools under 24,000 characters",
      tools.count >= 25 && tools.chars < 24_000,
      `${tools.count} tools advertised, ${tools.chars.toLocaleString("en")} characters` +
        (tools.count < 25 ? " (the target is for all 25)" : ""),
    );
  } else {
    add("The advertised tool list for all 25 tools under 24,000 characters", false, "not measured");
  }
  return lines;
}

/** The rows of the tables: a label, and the step (or sum) they show. */
const ROWS: [string, string][] = [
  ["open the form (navigate)", "navigate_form"],
  ["read the form", "read_form"],
  ["click a field", "click_field"],
  ["type into it", "type_field"],
  ["fill the other 14 fields, one call each (sum)", "#fills"],
  ["submit (click; the confirmation loads)", "submit"],
  ["read the confirmation", "read_confirmation"],
  ["screenshot", "screenshot"],
  ["open the iframe + shadow-DOM page", "navigate_frames"],
  ["read it", "read_frames"],
  ["click the shadow-DOM button", "click_shadow"],
  ["**journey (no 3,000-row page)**", "#journey"],
  ["3,000-row page: navigate", "navigate_rows"],
  ["3,000-row page: one read", "read_rows"],
  ["find one row's button", "find_row"],
  ["all 14 fields in one call", "form_fill_all"],
];

function figureOf(summary: PeerSummary, key: string): Figure | undefined {
  if (key === "#fills") return summary.fills;
  if (key === "#journey") return summary.journey;
  return summary.steps[key];
}

function mark(figure: Figure): string {
  return figure.ok < figure.attempted
    ? ` ✗${figure.attempted - figure.ok}/${figure.attempted}`
    : "";
}

/** The markdown: the time table, the characters table, failures, stack figures and targets. */
export function markdown(
  summary: Record<PeerId, PeerSummary>,
  stack: StackFigures | null,
  lines: TargetLine[],
  heading: string,
): string {
  const out: string[] = [heading, ""];
  const header = `| | ${PEERS.map((p) => PEER_TITLES[p]).join(" | ")} |`;
  const rule = `| --- | ${PEERS.map(() => "---:").join(" | ")} |`;
  out.push(
    "Median wall time per step as the client saw it, and its ratio to the floor; ✗k/n: the step " +
      "failed its check on the page in k of n rounds (medians are over the rounds that passed).",
    "",
    header,
    rule,
  );
  for (const [label, key] of ROWS) {
    const cells = PEERS.map((peer) => {
      const summaryOf = summary[peer];
      if (summaryOf.unavailable) return "n/a";
      const figure = figureOf(summaryOf, key);
      if (!figure) return "–";
      if (figure.skipped) return "no such tool";
      if (figure.medianMs === null) return `not measured${mark(figure)}`;
      const base = figureOf(summary.cdp, key)?.medianMs ?? null;
      const ratio = peer !== "cdp" && base ? ` (${(figure.medianMs / base).toFixed(1)}×)` : "";
      return `${ms(figure.medianMs)}${ratio}${mark(figure)}`;
    });
    out.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  out.push(
    "",
    "Characters returned to the model (median; text, with ≈ tokens at 4 characters each; image " +
      "data apart). The floor returns nothing a model reads.",
    "",
    header,
    rule,
  );
  for (const [label, key] of ROWS) {
    const cells = PEERS.map((peer) => {
      if (peer === "cdp") return "–";
      const summaryOf = summary[peer];
      if (summaryOf.unavailable) return "n/a";
      const figure = figureOf(summaryOf, key);
      if (!figure || figure.skipped) return "–";
      if (figure.textChars === null) return "–";
      const image = figure.imageChars ? ` + ${kchars(figure.imageChars)} image` : "";
      return `${kchars(figure.textChars)} (≈${kchars(figure.textChars / 4)} tok)${image}`;
    });
    out.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  const toolCells = PEERS.map((peer) => {
    const tools = summary[peer].tools;
    return peer === "cdp" ? "–" : tools ? `${tools.count} tools, ${kchars(tools.chars)}` : "n/a";
  });
  out.push(`| advertised tool list | ${toolCells.join(" | ")} |`);

  const notes: string[] = [];
  for (const peer of PEERS) {
    if (summary[peer].unavailable) {
      notes.push(`- ${PEER_TITLES[peer]}: did not run: ${summary[peer].unavailable}`);
    }
  }
  for (const peer of PEERS) {
    for (const [step, figure] of Object.entries(summary[peer].steps)) {
      if (figure.skipped) {
        notes.push(`- ${PEER_TITLES[peer]}, ${step}: not taken: ${figure.skipped}`);
      } else if (figure.ok < figure.attempted) {
        notes.push(
          `- ${PEER_TITLES[peer]}, ${step}: failed ${
            figure.attempted - figure.ok
          }/${figure.attempted}: ${figure.note}`,
        );
      }
    }
  }
  if (notes.length > 0) out.push("", "Failures and steps not taken:", "", ...notes);

  if (stack) {
    const p = stack.perCall;
    const mib = (kib: number | null) => kib === null ? "–" : `${(kib / 1024).toFixed(1)} MiB`;
    const fixed = (values: number[]) => {
      const m = median(values);
      return m === null ? "–" : `${m.toFixed(2)} ms`;
    };
    const light = median(p.tabsContextMs);
    const bare = bareRoundTrip(p);
    out.push(
      "",
      "Ghostlight's stack (medians):",
      "",
      "| | |",
      "| --- | ---: |",
      `| connector spawn → \`initialize\` answer, service warm (n=${stack.coldStart.warmMs.length}) | ${
        ms(median(stack.coldStart.warmMs))
      } |`,
      `| connector spawn → \`initialize\` answer, service demand-started (n=${stack.coldStart.demandMs.length}) | ${
        ms(median(stack.coldStart.demandMs))
      } |`,
      `| service resident memory, idle with one browser | ${mib(stack.memory.idleKiB)} |`,
      `| … after ${stack.memory.clients} clients × ${stack.memory.callsPerClient} \`tabs_context_mcp\` (peak) | ${
        mib(stack.memory.afterLoadKiB)
      } (${mib(stack.memory.peakKiB)}); ${stack.memory.failedCalls} failed; ${
        ms(stack.memory.loadWallMs)
      } in all |`,
      `| advertised tool list | ${
        stack.tools
          ? `${stack.tools.count} tools, ${stack.tools.chars.toLocaleString("en")} characters (≈${
            kchars(stack.tools.chars / 4)
          } tokens)`
          : "–"
      } |`,
      `| \`tabs_context_mcp\`, one tab (n=${p.tabsContextMs.length}) | ${fixed(p.tabsContextMs)} |`,
      `| MCP \`ping\` (stdio hop, bare) | ${fixed(p.pingMs)} |`,
      `| raw bridge exchange (bridge socket hop, bare) | ${fixed(p.rawBridgeMs)} |`,
      `| \`tab.get\` of no tab, timed in the service (browser hop, bare) | ${
        fixed(p.browserHopMs ?? [])
      } |`,
      `| \`update_plan\` (whole stack, no browser hop) | ${fixed(p.updatePlanMs)} |`,
      `| control socket \`GET /status\` | ${fixed(p.controlStatusMs)} |`,
      `| overhead: \`tabs_context_mcp\` − (${bare?.parts ?? "the bare hops"}) | ${
        light !== null && bare !== null ? `${(light - bare.ms).toFixed(2)} ms` : "–"
      } |`,
    );
    if (stack.errors.length > 0) {
      out.push("", "Stack measurements that broke:", "", ...stack.errors.map((e) => `- ${e}`));
    }
  }
  out.push("", "Targets (issue 14):", "");
  for (const line of lines) {
    out.push(`- ${line.pass ? "PASS" : "FAIL"} — ${line.target}: ${line.figure}`);
  }
  return out.join("\n");
}
