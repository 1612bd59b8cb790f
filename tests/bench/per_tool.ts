/**
 * Ghostlight's figures per tool (and per computer action) over a fixed journey on the fixture
 * site's action page, through a real MCP client, all three processes and headless Chromium: the
 * median and slowest latency and the characters each call returns. Kept beside the comparison
 * for the tools the comparison's journey does not use (hover, scroll, zoom, drag, key, logs,
 * network, resize).
 *
 * @module
 */

import { type CallResult, startSession } from "../support/session.ts";
import { median } from "../../service/control/mod.ts";

interface Sample {
  ms: number;
  text: number;
  image: number;
  failed: boolean;
}

/** One tool's figures. */
export interface ToolFigure {
  label: string;
  calls: number;
  medianMs: number;
  maxMs: number;
  textChars: number;
  imageChars: number;
  errors: number;
}

/** Runs the per-tool journey `rounds` times in one session. */
export async function measurePerTool(rounds: number): Promise<ToolFigure[]> {
  const s = await startSession();
  const samples = new Map<string, Sample[]>();
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
      await measure("computer hover", "computer", {
        action: "hover",
        coordinate: [450, 435],
        tabId,
      });
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
      await measure("computer zoom", "computer", {
        action: "zoom",
        region: [0, 0, 400, 200],
        tabId,
      });
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
      await measure("navigate (logs page)", "navigate", {
        url: s.fixtures.url("/logs.html"),
        tabId,
      });
      await measure("read_console_messages", "read_console_messages", { tabId, clear: true });
      await measure("read_network_requests", "read_network_requests", { tabId, clear: true });
      await measure("navigate back", "navigate", { url: "back", tabId });
      await measure("resize_window", "resize_window", {
        width: round % 2 ? 1280 : 1100,
        height: 800,
        tabId,
      });
    }
  } finally {
    await s.close();
  }

  return [...samples.entries()].map(([label, list]) => ({
    label,
    calls: list.length,
    medianMs: median(list.map((x) => x.ms))!,
    maxMs: Math.max(...list.map((x) => x.ms)),
    textChars: median(list.map((x) => x.text))!,
    imageChars: median(list.map((x) => x.image))!,
    errors: list.filter((x) => x.failed).length,
  }));
}

/** The per-tool figures as a markdown table. */
export function perToolMarkdown(figures: ToolFigure[], rounds: number): string {
  const out = [
    `Ghostlight per tool (${rounds} round${
      rounds === 1 ? "" : "s"
    } of the action-page journey, one session):`,
    "",
    "| tool | calls | median ms | max ms | text chars | image chars | errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const f of figures) {
    out.push(
      `| ${f.label} | ${f.calls} | ${Math.round(f.medianMs)} | ${Math.round(f.maxMs)} | ` +
        `${Math.round(f.textChars)} | ${Math.round(f.imageChars)} | ${f.errors} |`,
    );
  }
  return out.join("\n");
}
