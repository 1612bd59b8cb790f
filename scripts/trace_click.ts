/**
 * Counts the files a ref click runs through on its way from the MCP `tools/call` at the service to
 * the extension's `Input.dispatchMouseEvent` (issue 27, decision 0380), by measuring instead of
 * reading: two sessions through all three processes and a headless Chromium, with V8 coverage on
 * in every Deno process. After the same setup, one session makes {@linkcode CALLS} `computer`
 * `left_click` calls by ref, the other as many `computer` `wait` calls of 0 s (the same way
 * through the bridge, the catalog and the handler, sending nothing to the page). A file counts when
 * one of its functions ran at least {@linkcode CALLS} times more in the click session: each click
 * ran it, and the per-call pipeline every tool shares cancels out; both sessions give their calls
 * the same {@linkcode PHASE_MS}, so what runs on a timer cancels out too. Only files under `service/`
 * and `shared/` count (the service, and the framing the native host shares with it); the
 * extension's side is two files by reading (`operations.ts` takes `cdp.sequence`, `sequence.ts`
 * runs it), and no change here moves them.
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
/**
 * How long each session's calls are given, whatever they take, so that work done on a timer (the
 * launcher asking for the status, the service's own sweeps) does not count as the click's.
 */
const PHASE_MS = 20_000;

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

/** Per source file (relative to the repository), per function, how often it ran. */
type Counts = Map<string, Map<string, number>>;

async function session(click: boolean): Promise<Counts> {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-trace-" });
  const s = await startSession({ env: { DENO_COVERAGE_DIR: dir } });
  try {
    const tabId = await s.firstTab();
    await freshPage(s, tabId, "/actions.html");
    const found = await s.ok("find", { query: "click pad", tabId });
    const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
    const end = Date.now() + PHASE_MS;
    for (let i = 0; i < CALLS; i++) {
      await s.ok(
        "computer",
        click ? { action: "left_click", ref, tabId } : { action: "wait", duration: 0, tabId },
      );
    }
    if (Date.now() > end) throw new Error(`the calls took longer than ${PHASE_MS} ms`);
    // Both sessions last as long after their setup: what runs on a timer runs as often in each.
    await new Promise((resolve) => setTimeout(resolve, end - Date.now()));
  } finally {
    await s.close();
  }
  const counts = await read(dir);
  await Deno.remove(dir, { recursive: true });
  return counts;
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
  const baseline = await session(false);
  const clicked = await session(true);
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
