/**
 * Findings from a new user's trial, end to end: a real MCP client, all three processes and
 * headless Chromium. Each step is one finding that once failed.
 */

import { assert, assertMatch } from "./support/assert.ts";
import { startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** Runs `work` and returns its result with how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

Deno.test("trial: what a new user ran into", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/trial.html"), tabId });

    await t.step("every read answers at once while a dialog is open", async () => {
      const found = await s.ok("find", { query: "Alert me", tabId });
      const ref = (found.structuredContent?.matches as { ref: string }[])[0].ref;
      try {
        assertMatch(
          s.text(await s.ok("computer", { action: "left_click", ref, tabId })),
          /dialog says: "Trial alert"/,
        );
        const reads: [string, Record<string, unknown>][] = [
          ["get_page_text", { tabId }],
          ["find", { query: "Prompt", tabId }],
          ["read_page", { tabId, filter: "interactive" }],
          ["javascript_tool", { action: "javascript_exec", text: "1 + 1", tabId }],
        ];
        for (const [name, args] of reads) {
          // "At once" means well before the 30 s a held command would wait.
          const { value, ms } = await timed(() => s.fail(name, args));
          assertMatch(
            value,
            /alert dialog[\s\S]*is open[\s\S]*Trial alert[\s\S]*key "Return"/,
            name,
          );
          assert(ms < 10_000, `${name} answered in ${Math.round(ms)} ms`);
        }
      } finally {
        await s.ok("computer", { action: "key", text: "Return", tabId });
      }

      // A dialog that opens while Ghostlight still works in the page cuts its commands short;
      // the script had run, so its answer is its result with the dialog beside it.
      try {
        const late = await timed(() =>
          s.ok("javascript_tool", {
            action: "javascript_exec",
            text: "setTimeout(() => alert('Later alert'), 0); 1",
            tabId,
          })
        );
        assert(late.ms < 10_000, `javascript_tool answered in ${Math.round(late.ms)} ms`);
        const { value, ms } = await timed(() =>
          pollUntil(
            () => s.call("get_page_text", { tabId }),
            (read) => read.isError === true,
            "get_page_text to be refused under the dialog",
          )
        );
        assertMatch(s.text(value), /alert dialog[\s\S]*is open[\s\S]*Later alert/);
        assert(ms < 10_000, `get_page_text answered in ${Math.round(ms)} ms`);
      } finally {
        await s.ok("computer", { action: "key", text: "Return", tabId });
      }
    });

    await t.step("a script that runs too long is stopped and the tab works after", async () => {
      const looped = await timed(() =>
        s.fail("javascript_tool", { action: "javascript_exec", text: "while (true) {}", tabId })
      );
      assertMatch(looped.value, /ran over 10 s and was stopped/);
      assert(looped.ms < 16_000, `the loop was stopped after ${Math.round(looped.ms)} ms`);
      const after = await timed(() =>
        s.ok("javascript_tool", { action: "javascript_exec", text: "1 + 1", tabId })
      );
      assertMatch(s.text(after.value), /2/);
      assert(after.ms < 10_000, `the next script answered in ${Math.round(after.ms)} ms`);
      await s.ok("get_page_text", { tabId });
    });

    await t.step("navigate works right after an error page", async () => {
      // The failure says the tab left its page for the browser's error page, and the way back.
      const trial = s.fixtures.url("/trial.html");
      await s.ok("navigate", { url: trial, tabId });
      const failed = await s.fail("navigate", { url: "http://nonexistent.invalid/", tabId });
      assertMatch(failed, /ERR_NAME_NOT_RESOLVED\. The tab now shows the browser's error page/);
      assertMatch(failed, /host name does not resolve[\s\S]*Navigate back/);
      const back = await s.ok("navigate", { url: "back", tabId });
      assertMatch(s.text(back), /Trial page/);
      for (let round = 0; round < 3; round++) {
        assertMatch(
          await s.fail("navigate", { url: "http://nonexistent.invalid/", tabId }),
          /ERR_NAME_NOT_RESOLVED/,
        );
        const landed = await s.ok("navigate", { url: s.fixtures.url("/trial.html"), tabId });
        assertMatch(s.text(landed), /Trial page/);
      }
    });

    await t.step("a click outside the viewport is refused even before any screenshot", async () => {
      const opened = await s.ok("tabs_create_mcp", {});
      const fresh = (opened.structuredContent as { tabs: { tabId: number }[] }).tabs
        .map((tab) => tab.tabId).find((id) => id !== tabId)!;
      await s.ok("navigate", { url: s.fixtures.url("/trial.html"), tabId: fresh });
      assertMatch(
        await s.fail("computer", { action: "left_click", coordinate: [5000, 5000], tabId: fresh }),
        /coordinate \[5000, 5000\] is outside the viewport \(\d+×\d+ screenshot pixels\)/,
      );
      await s.ok("computer", { action: "left_click", coordinate: [5, 5], tabId: fresh });
    });

    await t.step("navigate counts only the console errors of the page it loaded", async () => {
      const first = await s.ok("navigate", { url: s.fixtures.url("/trial.html?errors=1"), tabId });
      assertMatch(s.text(first), /logged 1 console error /);
      const second = await s.ok("navigate", {
        url: s.fixtures.url("/trial.html?errors=1&again=1"),
        tabId,
      });
      assertMatch(s.text(second), /logged 1 console error /);
      const clean = await s.ok("navigate", { url: s.fixtures.url("/trial.html"), tabId });
      assert(!/console error/.test(s.text(clean)), s.text(clean));
    });

    await t.step("type answers and accepts a prompt, as the description says", async () => {
      const { tools } = await s.client.listTools();
      const computer = tools.find((tool: { name: string }) => tool.name === "computer")!;
      assertMatch(computer.description ?? "", /type answers a prompt and accepts it \(no Return/);
      const found = await s.ok("find", { query: "Prompt", tabId });
      const ref = (found.structuredContent?.matches as { ref: string }[])[0].ref;
      await s.ok("computer", { action: "left_click", ref, tabId });
      assertMatch(
        s.text(await s.ok("computer", { action: "type", text: "Ada", tabId })),
        /Accepted the prompt dialog; the page runs again/,
      );
      const title = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "document.title",
        tabId,
      });
      assertMatch(s.text(title), /Ada/);
    });

    await t.step("a read after clear says when the buffer was cleared", async () => {
      const opened = await s.ok("tabs_create_mcp", {});
      const listed = (opened.structuredContent as { tabs: { tabId: number }[] }).tabs;
      const newest = listed.map((tab) => tab.tabId).at(-1)!;
      assert(newest !== tabId, "a new tab");
      await s.ok("read_console_messages", { tabId: newest, onlyErrors: true, clear: true });
      const after = s.text(
        await s.ok("read_console_messages", { tabId: newest, pattern: "added" }),
      );
      assertMatch(after, /cleared at \d{4}-\d\d-\d\dT[\d:.]+Z; nothing was recorded since/);
      assert(!/just now/.test(after), after);
    });

    await t.step("read_page and get_page_text say what they did with max_chars", async () => {
      await s.ok("navigate", { url: s.fixtures.url("/rows.html"), tabId });
      const small = s.text(await s.ok("read_page", { tabId, depth: 4, max_chars: 800 }));
      assertMatch(small, /max_chars 800 was raised to the least read_page returns, 1000/);
      assertMatch(small, /depth: 3 for fewer levels/);
      assert(!/depth: 2/.test(small), small);
      const whole = s.text(await s.ok("read_page", { tabId, max_chars: 1000 }));
      assertMatch(whole, /depth: 2 for fewer levels/);
      assert(!/was raised/.test(whole), whole);
      for (const bad of [-5, 0]) {
        assertMatch(
          await s.fail("get_page_text", { tabId, max_chars: bad }),
          new RegExp(`"max_chars" must be a positive number of characters, not ${bad}`),
        );
      }
      assertMatch(
        s.text(await s.ok("get_page_text", { tabId, max_chars: 50 })),
        /max_chars 50 was raised to the least get_page_text returns, 100/,
      );
    });

    // Last: the browser goes away (and with it, once idle, the service and its workspaces).
    await t.step("after the browser goes, the agent is told to start again", async () => {
      await s.browser.stop();
      const restarted = /tabs from before Ghostlight or the browser restarted are not kept/;
      const said = await pollUntil(
        () => s.fail("get_page_text", { tabId }),
        (said) => /disconnected/.test(said) || restarted.test(said),
        "the loss of the browser to be told",
      );
      assertMatch(
        said,
        /The browser holding your tabs disconnected[\s\S]*tabs_context_mcp|not kept[\s\S]*createIfEmpty: true/,
      );
      assertMatch(
        s.text(await s.ok("tabs_context_mcp", {})),
        /Your earlier tabs are gone[\s\S]*createIfEmpty: true|not kept[\s\S]*createIfEmpty: true/,
      );
    });
  } finally {
    await s.close();
  }
});
