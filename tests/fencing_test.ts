/**
 * No page string reaches the client unfenced: every string the page chose (its title, text,
 * labels, console lines, what a script returned) that appears in any tool result's
 * `structuredContent` sits inside an untrusted-content fence, as it does in the text content.
 */

import { assert } from "./support/assert.ts";
import { type CallResult, type E2ESession, startSession } from "./support/session.ts";

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

/** What one call answered, by the tool's name. */
async function call(
  s: E2ESession,
  results: [string, CallResult][],
  tool: string,
  args: Record<string, unknown>,
): Promise<CallResult> {
  const result = await s.ok(tool, args);
  results.push([tool, result]);
  return result;
}

Deno.test("page-chosen strings stay fenced in every tool result and rewritten URL, one browser", async (t) => {
  const s = await startSession();
  try {
    await t.step(
      "no page-chosen string reaches structuredContent outside a fence, in any tool result",
      async () => {
        const found: string[] = [];
        const tabId = await s.firstTab();
        const page = s.fixtures.url("/planted.html");
        const results: [string, CallResult][] = [];
        await call(s, results, "navigate", { url: page, tabId });
        await call(s, results, "tabs_context_mcp", {});
        await call(s, results, "get_page_text", { tabId });
        await call(s, results, "read_page", { tabId });
        await call(s, results, "find", { query: "button", tabId });
        const js = { action: "javascript_exec", text: "window.planted", tabId };
        await call(s, results, "javascript_tool", js);
        await call(s, results, "read_console_messages", { tabId });
        await call(s, results, "form_fill", {
          tabId,
          fields: { "PLANTED label": "PLANTED typed" },
        });
        const target = { role: "button", name: "PLANTED button" };
        await call(s, results, "act_on", { tabId, target, action: "left_click" });
        await call(s, results, "wait_for", { tabId, text: "PLANTED paragraph" });
        await call(s, results, "tab_control", { tabId, action: "focus" });
        await call(s, results, "narrate", { tabId, text: "Reading the page" });
        await call(s, results, "script", {
          tabId,
          steps: [{ tool: "find", args: { query: "PLANTED button" } }, {
            tool: "javascript_tool",
            args: { action: "javascript_exec", text: "document.title" },
          }],
        });
        await call(s, results, "browser_batch", {
          actions: [{ name: "get_page_text", input: { tabId } }, {
            name: "computer",
            input: { action: "left_click", ref: "$none", coordinate: [1, 1], tabId },
          }],
        });
        await call(s, results, "explain", {});
        const ask = { role: "button", name: "PLANTED ask" };
        await call(s, results, "act_on", { tabId, target: ask, action: "left_click" });
        await call(s, results, "dialog", { tabId, action: "status" });
        await call(s, results, "dialog", { tabId, action: "accept" });
        await call(s, results, "tabs_create_mcp", {});
        const marked = new Set<string>();
        for (const [tool, result] of results) {
          if (JSON.stringify(result.structuredContent ?? {}).includes(MARKER)) marked.add(tool);
          unfenced(result.structuredContent ?? {}, tool, found);
        }
        for (
          const tool of [
            "navigate",
            "tabs_context_mcp",
            "get_page_text",
            "find",
            "javascript_tool",
            "read_console_messages",
            "act_on",
            "script",
            "browser_batch",
            "dialog",
          ]
        ) assert(marked.has(tool), `the planted strings reached ${tool}'s result at all`);
        assert(found.length === 0, `page strings outside a fence:\n${found.join("\n")}`);
      },
    );

    await t.step(
      "a URL the page rewrote is inside a fence past its origin, in text and structured content",
      async () => {
        const found: string[] = [];
        const tabId = await s.firstTab();
        const results: [string, CallResult][] = [];
        await call(s, results, "navigate", { url: s.fixtures.url("/replaced.html"), tabId });
        await call(s, results, "read_page", { tabId });
        await call(s, results, "read_page", { tabId, filter: "interactive" });
        await call(s, results, "find", { query: "Go button", tabId });
        await call(s, results, "get_page_text", { tabId });
        const js = { action: "javascript_exec", text: "document.title", tabId };
        await call(s, results, "javascript_tool", js);
        await call(s, results, "tabs_context_mcp", {});
        await call(s, results, "act_on", { tabId, target: { name: "Go" }, action: "left_click" });
        for (const [tool, result] of results) {
          const text = s.text(result);
          assert(
            text.includes(MARKER) || tool === "act_on",
            `${tool} says where the tab is: ${text.slice(0, 200)}`,
          );
          unfenced(text, `${tool} text`, found);
          unfenced(result.structuredContent ?? {}, tool, found);
        }
        // The origin, which the page cannot choose without navigating, stays readable outside.
        const [, navigated] = results[0];
        assert(
          new RegExp(`^Tab ${tabId} is at http://127\\.0\\.0\\.1:\\d+ <page-content-`).test(
            s.text(navigated),
          ),
          s.text(navigated),
        );
        assert(found.length === 0, `page-chosen URL text outside a fence:\n${found.join("\n")}`);
      },
    );
  } finally {
    await s.close();
  }
});

/** A policy under which a page may be read anywhere, and acted on nowhere under `.localhost`. */
const NO_ACTION_ON_LOCALHOST = `{ "default": "allow",
  "grants": [{ "hosts": ["*.localhost"], "deny": ["action"] }] }`;

Deno.test("a refusal on a host the page chose names that host only inside the fence", async () => {
  const s = await startSession({ policy: NO_ACTION_ON_LOCALHOST });
  try {
    const tabId = await s.firstTab();
    // The site sends the tab on to a host of its own choosing: its name is words the page chose.
    const chosen = "planted-obey-this-page.localhost";
    const there = s.fixtures.url("/article.html").replace("127.0.0.1", chosen);
    const to = s.fixtures.url(`/redirect?to=${encodeURIComponent(there)}`);
    await s.ok("navigate", { url: to, tabId });
    const refused = await s.fail("computer", { action: "left_click", coordinate: [5, 5], tabId });
    assert(
      /needs the action capability on the page in its tab, which is refused/.test(refused),
      refused,
    );
    const outside = refused.replace(/<page-content-[\s\S]*?<\/page-content-[\w-]+>/g, "");
    assert(refused.includes(chosen), `the refusal says where the tab is: ${refused}`);
    assert(!outside.includes(chosen), `the page-chosen host outside the fence: ${refused}`);
  } finally {
    await s.close();
  }
});
