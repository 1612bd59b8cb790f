/**
 * The tool benchmark: a fixed journey over the fixture site, repeated, through a real MCP
 * client, all three processes and headless Chromium. Prints, per tool (and computer action),
 * the median and slowest latency and the characters each call returns (text, and image data
 * separately). Not a test: it asserts nothing about time.
 *
 * Run: `deno task bench [rounds]`.
 */

import { ORDER_FIELDS } from "../support/order_form.ts";
import { type CallResult, startSession } from "../support/session.ts";

interface Sample {
  ms: number;
  text: number;
  image: number;
  failed: boolean;
}

const rounds = Math.max(1, Number(Deno.args[0] ?? 5));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One run of a multi-call journey: its total time, calls, text returned and errors. */
interface Journey {
  ms: number;
  calls: number;
  text: number;
  errors: number;
}

const s = await startSession();
const samples = new Map<string, Sample[]>();
const journeys = new Map<string, Journey[]>();

/** Times `run`, which makes its calls through the `call` it is given. */
async function journey(
  label: string,
  run: (
    call: (name: string, args: Record<string, unknown>) => Promise<CallResult>,
  ) => Promise<void>,
): Promise<void> {
  const done: Journey = { ms: 0, calls: 0, text: 0, errors: 0 };
  const started = performance.now();
  await run(async (name, args) => {
    const result = await s.call(name, args);
    done.calls++;
    done.text += result.content.reduce((sum, b) => sum + (b.text?.length ?? 0), 0);
    if (result.isError) done.errors++;
    return result;
  });
  done.ms = performance.now() - started;
  journeys.set(label, [...journeys.get(label) ?? [], done]);
}

/** The order form filled and sent field by field: find each field, set it, click submit. */
async function formByField(
  call: (name: string, args: Record<string, unknown>) => Promise<CallResult>,
  tabId: number,
) {
  for (const [label, value] of Object.entries(ORDER_FIELDS)) {
    const found = await call("find", { tabId, query: label });
    const ref = (found.structuredContent as { matches?: { ref: string }[] })?.matches?.[0]?.ref;
    if (ref) await call("form_input", { tabId, ref, value });
  }
  const button = await call("find", { tabId, query: "Place order button" });
  const ref = (button.structuredContent as { matches?: { ref: string }[] })?.matches?.[0]?.ref;
  if (ref) await call("computer", { action: "left_click", ref, tabId });
}
try {
  const { tools } = await s.client.listTools();
  const advertised = new Set(tools.map((tool: { name: string }) => tool.name));
  const measure = async (label: string, name: string, args: Record<string, unknown>) => {
    if (!advertised.has(name)) return null;
    const started = performance.now();
    const result = await s.call(name, args) as CallResult;
    const ms = performance.now() - started;
    const text = result.content.reduce((sum, b) => sum + (b.text?.length ?? 0), 0);
    const image = result.content.reduce((sum, b) => sum + (b.data?.length ?? 0), 0);
    const list = samples.get(label) ?? [];
    list.push({ ms, text, image, failed: result.isError === true });
    samples.set(label, list);
    return result;
  };

  const context = await measure("tabs_context_mcp", "tabs_context_mcp", { createIfEmpty: true });
  const tabId = (context!.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
  for (let round = 0; round < rounds; round++) {
    await measure("update_plan", "update_plan", {
      domains: ["127.0.0.1"],
      approach: ["Open the bench", "Click, type, scroll", "Read logs"],
    });
    await measure("navigate", "navigate", { url: s.fixtures.url("/actions.html"), tabId });
    await measure("computer screenshot", "computer", { action: "screenshot", tabId });
    await measure("computer left_click", "computer", {
      action: "left_click",
      coordinate: [200, 100],
      tabId,
    });
    await measure("computer hover", "computer", { action: "hover", coordinate: [450, 435], tabId });
    await s.call("computer", { action: "left_click", coordinate: [100, 435], tabId });
    await measure("computer type", "computer", {
      action: "type",
      text: "lighthouse keeper",
      tabId,
    });
    await measure("computer key", "computer", { action: "key", text: "ctrl+a Delete", tabId });
    await measure("computer type (200 chars)", "computer", {
      action: "type",
      text: "The fog bell was tested on Tuesday. ".repeat(6).slice(0, 200),
      tabId,
    });
    await s.call("computer", { action: "key", text: "ctrl+a Delete", tabId });
    await measure("computer left_click_drag", "computer", {
      action: "left_click_drag",
      start_coordinate: [100, 500],
      coordinate: [400, 500],
      tabId,
    });
    await measure("computer scroll", "computer", {
      action: "scroll",
      scroll_direction: "down",
      scroll_amount: 3,
      tabId,
    });
    await measure("computer zoom", "computer", { action: "zoom", region: [0, 0, 400, 200], tabId });
    await measure("get_page_text", "get_page_text", { tabId });
    await measure("read_page", "read_page", { tabId, filter: "interactive" });
    const found = await measure("find", "find", { tabId, query: "name field" });
    const field = (found?.structuredContent as { matches: { ref: string }[] } | undefined)
      ?.matches[0]?.ref;
    if (field) {
      await measure("form_input", "form_input", { ref: field, value: `round ${round}`, tabId });
    }
    await measure("javascript_tool", "javascript_tool", {
      action: "javascript_exec",
      text: "document.querySelectorAll('button').length",
      tabId,
    });
    await measure("navigate (logs page)", "navigate", { url: s.fixtures.url("/logs.html"), tabId });
    await measure("read_console_messages", "read_console_messages", { tabId, clear: true });
    await measure("read_network_requests", "read_network_requests", { tabId, clear: true });
    await measure("navigate back", "navigate", { url: "back", tabId });
    await measure("resize_window", "resize_window", {
      width: round % 2 ? 1280 : 1100,
      height: 800,
      tabId,
    });
    await s.call("navigate", { url: s.fixtures.url("/order.html"), tabId });
    await journey("per field: find + form_input ×15, click", (call) => formByField(call, tabId));
    await s.call("navigate", { url: s.fixtures.url("/order.html"), tabId });
    await journey("form_fill with submit", async (call) => {
      await call("form_fill", { tabId, fields: ORDER_FIELDS, submit: true });
    });
  }
} finally {
  await s.close();
}

const rows = [...samples.entries()].map(([label, list]) => [
  label,
  String(list.length),
  median(list.map((x) => x.ms)).toFixed(0),
  Math.max(...list.map((x) => x.ms)).toFixed(0),
  median(list.map((x) => x.text)).toFixed(0),
  median(list.map((x) => x.image)).toFixed(0),
  String(list.filter((x) => x.failed).length),
]);
const header = ["tool", "calls", "median ms", "max ms", "text chars", "image chars", "errors"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
console.log(`Ghostlight tool benchmark: ${rounds} rounds of the fixture journey\n`);
console.log(line(header));
for (const row of rows) console.log(line(row));

const journeyRows = [...journeys.entries()].map(([label, list]) => [
  label,
  String(list.length),
  median(list.map((x) => x.ms)).toFixed(0),
  median(list.map((x) => x.calls)).toFixed(0),
  median(list.map((x) => x.text)).toFixed(0),
  String(list.reduce((sum, x) => sum + x.errors, 0)),
]);
const journeyHeader = [
  "order form journey (15 fields)",
  "runs",
  "median ms",
  "calls",
  "text chars",
  "errors",
];
const journeyWidths = journeyHeader.map((h, i) =>
  Math.max(h.length, ...journeyRows.map((r) => r[i].length))
);
const journeyLine = (cells: string[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(journeyWidths[i]) : c.padStart(journeyWidths[i])))
    .join("  ");
console.log("");
console.log(journeyLine(journeyHeader));
for (const row of journeyRows) console.log(journeyLine(row));
