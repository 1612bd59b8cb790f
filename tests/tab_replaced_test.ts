/**
 * A workspace tab the browser replaces (decision 0219): Chromium gives a discarded tab a new id
 * and says so only through `chrome.tabs.onReplaced`. End to end through the real connector,
 * service and headless Chromium; the test discards the tab from the extension's worker over
 * DevTools, as the browser would under memory pressure.
 */

import { decomposeTabId } from "../service/browser/mod.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectCdp, evaluateInExtension } from "./support/cdp.ts";
import { startFaultRig } from "./support/fault_rig.ts";
import { legacyWithTab, toolCall, waitFor } from "./mcp_support.ts";

/** The text of a tool result. */
function textOf(answer: Record<string, unknown>): string {
  return (answer.result as { content: { text: string }[] }).content[0].text;
}

Deno.test("a discarded workspace tab stays the workspace's, under its new id", async () => {
  const rig = await startFaultRig("rpl", { launchArgs: ["--remote-debugging"] });
  const cdp = await connectCdp(rig.browser.ready.devtools!);
  try {
    const mcp = rig.connector();
    const tabId = await legacyWithTab("rpl", mcp);
    const native = decomposeTabId(tabId)!.native;
    let id = 2;
    /** Sends `name` with `args` and answers its result. */
    const call = async (name: string, args: Record<string, unknown>) => {
      const sent = id++;
      await mcp.send(toolCall(sent, name, args));
      const answer = await mcp.nextJson(60_000);
      assertEquals(answer.id, sent);
      return answer;
    };
    assertMatch(
      textOf(await call("navigate", { url: rig.slow.url("rpl-page", 0), tabId })),
      /slow rpl-page/,
    );
    const group = await evaluateInExtension<number>(
      cdp,
      `chrome.tabs.get(${native}).then((tab) => tab.groupId)`,
    );

    const replacement = await evaluateInExtension<number>(
      cdp,
      `chrome.tabs.discard(${native}).then((tab) => tab.id)`,
    );
    assert(replacement !== native, "Chromium gave the discarded tab a new id");

    // The workspace holds the tab the person still sees, and only it, once the reports arrive.
    let listed: number[] = [];
    await waitFor(async () => {
      const context = await call("tabs_context_mcp", {});
      listed = (context.result as { structuredContent: { tabs: { tabId: number }[] } })
        .structuredContent.tabs.map((tab) => tab.tabId);
      return listed.length === 1 && decomposeTabId(listed[0])?.native === replacement;
    }, "the workspace to list the replacement instead of the discarded tab");
    const [renewed] = listed;

    assertMatch(
      textOf(await call("get_page_text", { tabId })),
      new RegExp(`^Tab ${tabId} is gone`),
      "the old id says the tab is gone",
    );
    const text = await call("get_page_text", { tabId: renewed });
    assertMatch(textOf(text), /page rpl-page/, "the replacement is read, restored");
    assertMatch(
      textOf(await call("navigate", { url: rig.slow.url("rpl-after", 0), tabId: renewed })),
      /slow rpl-after/,
    );
    const after = await evaluateInExtension<{ groupId: number; discarded: boolean }>(
      cdp,
      `chrome.tabs.get(${replacement}).then(({ groupId, discarded }) => ({ groupId, discarded }))`,
    );
    assertEquals(after, { groupId: group, discarded: false }, "still in the workspace's group");
  } finally {
    cdp.close();
    await rig.close();
  }
});
