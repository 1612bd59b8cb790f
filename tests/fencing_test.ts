/**
 * No page string reaches the client unfenced: every string the page chose (its title, text,
 * labels, console lines, what a script returned) that appears in any tool result's
 * `structuredContent` sits inside an untrusted-content fence, as it does in the text content.
 */

import { assert } from "./support/assert.ts";
import { type CallResult, startSession } from "./support/session.ts";

/** Every string the fixture page plants carries this word. */
const MARKER = "PLANTED";

/** Where in `value` a string holds the marker outside a fence: `path: string` per finding. */
function unfenced(value: unknown, path: string, found: string[]): void {
  if (typeof value === "string") {
    let at = value.indexOf(MARKER);
    while (at >= 0) {
      const open = value.lastIndexOf("<page-content-", at);
      const close = value.lastIndexOf("</page-content-", at);
      if (open < 0 || close > open) found.push(`${path}: ${JSON.stringify(value.slice(0, 80))}`);
      at = value.indexOf(MARKER, at + MARKER.length);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => unfenced(item, `${path}[${index}]`, found));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) unfenced(item, `${path}.${key}`, found);
  }
}

Deno.test({
  name: "no page-chosen string reaches structuredContent outside a fence, in any tool result",
  // Issue 13: structuredContent still carries raw page strings. Run with ignore off, it lists
  // them: `title` of navigate, get_page_text and read_page, `tabs[].title` of tabs_context_mcp
  // and tabs_create_mcp, find's `matches[].name` and `.value`, javascript_tool's `result`,
  // read_console_messages' `messages[].text`. The fix is in the tool handlers (service/tools),
  // which another branch is regrouping; it lands there and switches this test on.
  ignore: true,
}, async () => {
  const s = await startSession();
  const found: string[] = [];
  try {
    const tabId = await s.firstTab();
    const page = s.fixtures.url("/planted.html");
    const results: [string, CallResult][] = [
      ["navigate", await s.ok("navigate", { url: page, tabId })],
      ["tabs_context_mcp", await s.ok("tabs_context_mcp", {})],
      ["get_page_text", await s.ok("get_page_text", { tabId })],
      ["read_page", await s.ok("read_page", { tabId })],
      ["find", await s.ok("find", { query: "button", tabId })],
      [
        "javascript_tool",
        await s.ok("javascript_tool", { action: "javascript_exec", text: "window.planted", tabId }),
      ],
      ["read_console_messages", await s.ok("read_console_messages", { tabId })],
      ["tabs_create_mcp", await s.ok("tabs_create_mcp", {})],
    ];
    let seen = 0;
    for (const [tool, result] of results) {
      const text = JSON.stringify(result.structuredContent ?? {});
      seen += text.includes(MARKER) ? 1 : 0;
      unfenced(result.structuredContent ?? {}, tool, found);
    }
    assert(seen >= 4, "the planted strings reached the results at all");
    assert(found.length === 0, `page strings outside a fence:\n${found.join("\n")}`);
  } finally {
    await s.close();
  }
});
