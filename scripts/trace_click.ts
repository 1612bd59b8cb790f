/**
 * Counts the files a ref click runs through on its way from the MCP `tools/call` at the service to
 * the extension's `Input.dispatchMouseEvent` (issue 27, decision 0380), by measuring instead of
 * reading: two sessions through all three processes and a headless Chromium, with V8 coverage on
 * in every Deno process. After the same setup, one session makes {@linkcode CALLS} `computer`
 * `left_click` calls by ref, the other as many `computer` `wait` calls of 0 s (the same way
 * through the bridge, the catalog and the handler, sending nothing to the page). A file counts when
 * one of its functions ran at least {@linkcode CALLS} times more in the click session: each click
 * ran it, and the per-call pipeline every tool shares cancels out; the baseline idles after its
 * calls until as long has passed as the clicks took, so what runs on a timer cancels out too.
 * Only files under `service/` and `shared/` count (the service, and the framing the native host
 * shares with it); the extension's side is two files by reading (`operations.ts` takes
 * `cdp.sequence`, `sequence.ts` runs it), and no change here moves them.
 *
 * The count covers the whole click call, its receipt included: coverage cannot cut the call at
 * the moment the input goes out, and the receipt's settle read travels in the same message as
 * the input. Run: `deno task build:extension && deno run -A scripts/trace_click.ts`.
 *
 * @module
 */

import { plain } from "../tests/support/fence.ts";
import { freshPage, startSession } from "../tests/support/session.ts";
import { ROOT } from "../tests/support/env.ts";

/** How many calls each session makes after its setup. */
const CALLS = 20;
/** Longest the click session's calls may take on a loaded machine (the baseline's is as long). */
const PHASE_MAX_MS = 120_000;

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

/** Per source file (relative to the repository), per function, how often it ran. */
type Counts = Map<string, Map<string, number>>;

/**
 * One session's coverage after its setup and {@linkcode CALLS} calls: clicks, or (given the click
 * session's `phaseMs`) waits of 0 s that then idle until as long has passed as the clicks took,
 * so that work done on a timer (the launcher asking for the status, the service's own sweeps)
 * runs about as often in both and does not count as the click's. Answers how long the calls took.
 */
async function session(baseline?: { phaseMs: number }): Promise<{ counts: Counts; took: number }> {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-trace-" });
  const s = await startSession({ env: { DENO_COVERAGE_DIR: dir } });
  let took: number;
  try {
    const tabId = await s.firstTab();
    await freshPage(s, tabId, "/actions.html");
    const found = await s.ok("find", { query: "click pad", tabId });
    const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
    const started = Date.now();
    for (let i = 0; i < CALLS; i++) {
      await s.ok(
        "computer",
        baseline ? { action: "wait", duration: 0, tabId } : { action: "left_click", ref, tabId },
      );
    }
    took = Date.now() - started;
    if (took > PHASE_MAX_MS) throw new Error(`the calls took ${took} ms, over ${PHASE_MAX_MS}`);
    const rest = baseline ? baseline.phaseMs - took : 0;
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  } finally {
    await s.close();
  }
  const counts = await read(dir);
  await Deno.remove(dir, { recursive: true });
  return { counts, took };
}

/** The coverage every process wrote into `dir`, summed per file and function. */
async function read(dir: string): Promise<Counts> {
  const counts: Counts = new Map();
  const root = `file://${ROOT}/`;
  for await (const entry of Deno.readDir(dir)) {
    const script = JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}`)) as {
      url: string;
      functions: FunctionCoverage[];
    };
    if (!script.url.startsWith(root)) continue;
    const file = script.url.slice(root.length);
    if (!/^(service|shared)\//.test(file) || /_test\.ts$/.test(file)) continue;
    const functions = counts.get(file) ?? new Map<string, number>();
    for (const fn of script.functions) {
      const key = `${fn.functionName}@${fn.ranges[0].startOffset}`;
      functions.set(key, (functions.get(key) ?? 0) + fn.ranges[0].count);
    }
    counts.set(file, functions);
  }
  return counts;
}

/** The files where some function ran at least {@linkcode CALLS} times more with the clicks. */
export async function traceClick(): Promise<{ file: string; functions: string[] }[]> {
  const { counts: clicked, took } = await session();
  const { counts: baseline } = await session({ phaseMs: took });
  const files: { file: string; functions: string[] }[] = [];
  for (const [file, functions] of clicked) {
    const before = baseline.get(file);
    const ran = [...functions].filter(([key, count]) => count - (before?.get(key) ?? 0) >= CALLS)
      .map(([key]) => key.replace(/@\d+$/, "") || "(anonymous)");
    if (ran.length > 0) files.push({ file, functions: ran });
  }
  return files.sort((a, b) => a.file.localeCompare(b.file));
}

if (import.meta.main) {
  const files = await traceClick();
  for (const { file, functions } of files) {
    console.log(`${file}  (${[...new Set(functions)].slice(0, 6).join(", ")})`);
  }
  console.log("extension/src/operations.ts  (by reading)");
  console.log("extension/src/sequence.ts  (by reading)");
  console.log(`${files.length} service-side files, ${files.length + 2} with the extension's`);
}
