/**
 * Two smaller findings of issue 28, end to end: resize_window goes back to the launch size once
 * shrunk (headless Chromium launches a window larger than its screen), and tabs_context_mcp
 * after the agent closed its last tab says so instead of reading like a fault.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { startSession } from "./support/session.ts";

Deno.test("resize_window back to the launch size; no tabs after closing the last", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/index.html"), tabId });
    const sizes = async () => {
      const result = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "[outerWidth, outerHeight, innerWidth, innerHeight].join()",
        tabId,
      });
      return String((plain(result) as { result: unknown }).result).split(",").map(Number);
    };

    await t.step(
      "shrunk, then back to the launch size, the page sees its launch viewport",
      async () => {
        const [outerWidth, outerHeight, innerWidth, innerHeight] = await sizes();
        await s.ok("resize_window", { width: 800, height: 600, tabId });
        const shrunk = await sizes();
        assertEquals([shrunk[0], shrunk[1]], [800, 600]);
        const back = await s.ok("resize_window", { width: outerWidth, height: outerHeight, tabId });
        const viewport = (plain(back) as { viewport: { width: number; height: number } }).viewport;
        // The window's frame is the one measured before the tab's first resize: the shrunk
        // window may show the automation bar when the launched one did not (or the other way).
        assertEquals([viewport.width, viewport.height], [innerWidth, innerHeight], s.text(back));
        const now = await sizes();
        assertEquals([now[2], now[3]], [innerWidth, innerHeight], `page viewport ${now}`);
        // Shrinking again gives a real window and no emulation.
        await s.ok("resize_window", { width: 800, height: 600, tabId });
        const again = await sizes();
        assert(again[2] <= 800 && again[3] < 600, `viewport ${again}`);
      },
    );

    await t.step("after closing its last tab the agent is told so, not of a fault", async () => {
      await s.ok("tab_control", { tabId, action: "close" });
      const listed = s.text(await s.ok("tabs_context_mcp", {}));
      assertMatch(listed, /You have no tabs open: you closed your tab \(\d+\) with tab_control/);
      assert(!/gone|disconnected|restarted/.test(listed), listed);
      assertMatch(listed, /createIfEmpty: true/);
    });
  } finally {
    await s.close();
  }
});
