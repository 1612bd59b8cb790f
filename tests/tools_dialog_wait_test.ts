/**
 * `dialog` and `wait_for` end to end: a real MCP client, all three processes and headless
 * Chromium on the keeper's desk fixture. A click that opens confirm(), prompt() or a leave-page
 * prompt returns at once naming it, `dialog` answers it and the page sees the answer; a wait
 * holds when its text appears, fails at its timeout saying so, and stops when cancelled.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { allText, onlyFenced } from "./support/results.ts";
import { type E2ESession, freshPage, startSession } from "./support/session.ts";
import { pollUntil, waitFor } from "./support/wait.ts";

/** What the page recorded last (`#out`). */
async function pageSaw(s: E2ESession, tabId: number, expected: string): Promise<void> {
  await pollUntil(
    () => s.ok("get_page_text", { tabId }),
    (read) => allText(read).includes(expected),
    `the page to show ${expected}`,
  );
}

/** Clicks a button by its words and times the call. */
async function click(s: E2ESession, tabId: number, name: string) {
  const started = performance.now();
  const result = await s.ok("act_on", {
    tabId,
    target: { role: "button", name },
    action: "left_click",
  });
  return { result, ms: performance.now() - started };
}

Deno.test("dialogs and wait_for in one browser: never a hung call, each wait ends on what it waits for", async (t) => {
  const s = await startSession();
  try {
    await t.step("dialog: confirm, prompt and leave-page prompts never hang a call", async (t) => {
      const tabId = await s.firstTab();

      await t.step("a click that opens confirm() returns at once naming it; accept", async () => {
        await freshPage(s, tabId, "/workflow.html");
        const { result, ms } = await click(s, tabId, "Delete draft");
        assert(ms < 2_000, `the click returned after ${Math.round(ms)} ms`);
        const text = allText(result);
        assertMatch(text, /confirm dialog is open[\s\S]*dialog \{"action": "accept"/);
        onlyFenced(text, "Delete the draft?");
        const status = await s.ok("dialog", { tabId, action: "status" });
        assertEquals((plain(status)?.dialog as { type: string }).type, "confirm");
        const accepted = await s.ok("dialog", { tabId, action: "accept" });
        assertMatch(allText(accepted), /Accepted the confirm dialog; the page runs again/);
        await pageSaw(s, tabId, "confirm:true");
      });

      await t.step("dismissing a confirm gives the page false", async () => {
        await freshPage(s, tabId, "/workflow.html");
        await click(s, tabId, "Delete draft");
        await s.ok("dialog", { tabId, action: "dismiss" });
        await pageSaw(s, tabId, "confirm:false");
        assertMatch(
          await s.fail("dialog", { tabId, action: "accept" }),
          /No JavaScript dialog is open/,
        );
      });

      await t.step("a prompt takes the response as its answer", async () => {
        await freshPage(s, tabId, "/workflow.html");
        const { result, ms } = await click(s, tabId, "Name the lamp");
        assert(ms < 2_000, `the click returned after ${Math.round(ms)} ms`);
        assertMatch(allText(result), /prompt dialog is open[\s\S]*"respond" with text/);
        assertMatch(
          await s.fail("dialog", { tabId, action: "accept", text: "x" }),
          /"text" must not be given unless "action" is "respond"/,
        );
        await s.ok("dialog", { tabId, action: "respond", text: "Beacon" });
        await pageSaw(s, tabId, 'prompt:"Beacon"');
      });

      await t.step("a leave-page prompt a click raises is answered by dialog", async () => {
        await freshPage(s, tabId, "/workflow.html");
        await click(s, tabId, "Start editing");
        const started = performance.now();
        const left = await s.ok("act_on", {
          tabId,
          target: { role: "link", name: "Leave the desk" },
          action: "left_click",
        });
        assert(performance.now() - started < 2_000, "the click returned at once");
        assertMatch(allText(left), /beforeunload dialog is open[\s\S]*to leave the page/);
        const status = await s.ok("dialog", { tabId, action: "status" });
        assertEquals((plain(status)?.dialog as { type: string }).type, "beforeunload");
        assertMatch(
          await s.fail("dialog", { tabId, action: "respond", text: "x" }),
          /only a prompt takes text/,
        );
        const accepted = await s.ok("dialog", { tabId, action: "accept" });
        assertMatch(allText(accepted), /the page is leaving/);
        await pollUntil(
          () => s.ok("tabs_context_mcp", {}),
          (tabs) => allText(tabs).includes("/index.html"),
          "the tab to reach the page it left for",
        );
      });

      await t.step("a reload held by a leave-page prompt stays when dismissed", async () => {
        await freshPage(s, tabId, "/workflow.html");
        await click(s, tabId, "Start editing");
        const reload = await s.ok("tab_control", { tabId, action: "reload" });
        assertMatch(allText(reload), /reload of tab \d+ waits on a JavaScript beforeunload dialog/);
        await s.ok("dialog", { tabId, action: "dismiss" });
        await pageSaw(s, tabId, "dirty:true");
      });
    });

    await t.step(
      "wait_for: holds when text appears, fails at its timeout, stops when cancelled",
      async (t) => {
        const tabId = await s.firstTab();

        await t.step("text that appears after 1 s is waited for about 1 s", async () => {
          await freshPage(s, tabId, "/workflow.html");
          const started = performance.now();
          await click(s, tabId, "Prepare shipment");
          const waited = await s.ok("wait_for", {
            tabId,
            text: "Shipment ready",
            timeout_ms: 10_000,
          });
          const total = performance.now() - started;
          const elapsed = plain(waited)?.elapsedMs as number;
          assert(total >= 950 && total < 3_000, `the text showed after ${Math.round(total)} ms`);
          assert(elapsed < 1_500, `wait_for waited ${elapsed} ms of it`);
          assertMatch(allText(waited), /Held after [\d.]+ s: text "Shipment ready" visible/);
        });

        await t.step("a selector and a settled page are waited for too", async () => {
          const present = await s.ok("wait_for", { tabId, selector: "#news p", state: "present" });
          assertEquals(plain(present)?.present, 1);
          const settled = await s.ok("wait_for", { tabId });
          assertMatch(allText(settled), /the page settled/);
          assertMatch(
            await s.fail("wait_for", { tabId, selector: "p[", timeout_ms: 1_000 }),
            /not a valid CSS selector/,
          );
        });

        await t.step("text that never appears fails at the timeout, saying so", async () => {
          const started = performance.now();
          const failed = await s.fail("wait_for", {
            tabId,
            text: "Never written here",
            timeout_ms: 1_500,
          });
          const ms = performance.now() - started;
          assert(ms >= 1_500 && ms < 4_000, `the wait failed after ${Math.round(ms)} ms`);
          assertMatch(
            failed,
            /Timed out after 1\.50 s: text "Never written here" visible did not hold/,
          );
        });

        await t.step("a cancelled wait stops, and the tab's next call runs at once", async () => {
          const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
          const controller = new AbortController();
          const waiting = s.client.callTool(
            { name: "wait_for", arguments: { tabId, text: "Never", timeout_ms: 30_000 } },
            undefined,
            { signal: controller.signal },
          ).then(() => "answered", () => "cancelled");
          await waitFor(
            async () =>
              (await fetchStatus(paths.controlSocket)).connectors.some((c) => c.activeWorks === 1),
            "the wait to run in the service",
          );
          controller.abort();
          assertEquals(await waiting, "cancelled");
          // The workspace runs one call at a time: this one waits until the wait has really stopped.
          const started = performance.now();
          await s.ok("get_page_text", { tabId });
          const ms = performance.now() - started;
          assert(ms < 5_000, `the next call waited ${Math.round(ms)} ms behind the cancelled wait`);
        });
      },
    );
  } finally {
    await s.close();
  }
});
