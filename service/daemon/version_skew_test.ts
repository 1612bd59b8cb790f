// Version skew: a browser whose extension says hello as an older version, without the features
// this service knows, is attached; the tools that need a missing feature answer with the upgrade
// step and send it nothing; the other tools work; `status` shows the mismatch.

import { UPGRADE_STEP } from "../../shared/extension_features.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import {
  completedCall,
  connector,
  fakeExtensionAnswer,
  startInstance,
} from "../../tests/support/daemon.ts";
import { pollUntil } from "../../tests/support/wait.ts";
import { fetchStatus } from "../control/mod.ts";

/** The tab the fake extension creates and describes. */
function blankTab(native: number) {
  return {
    tab_id: native,
    window_id: 1,
    group_id: 1,
    url: "about:blank",
    title: "blank",
    status: "complete",
    active: true,
  };
}

Deno.test("an older extension without transfers: upload tools give the upgrade step, others work", async () => {
  const instance = await startInstance("skw");
  try {
    const browser = await instance.connect("browser");
    await browser.send({
      type: "hello",
      browser_id: "browser-of-old",
      extension_version: "0.0.9",
      user_agent: "test",
    });
    // The fake extension answers every command and remembers which operations reached it.
    const received: string[] = [];
    const serving = (async () => {
      for (;;) {
        const command = await browser.next().catch(() => null) as
          | { type?: string; id: number; op: string }
          | null;
        if (command === null) return;
        if (command.type !== "command") continue;
        received.push(command.op);
        await browser.send({
          type: "result",
          id: command.id,
          ok: true,
          value: fakeExtensionAnswer(command.op, () => blankTab(7)),
        }).catch(() => {});
      }
    })();

    const status = await pollUntil(
      () => fetchStatus(instance.paths.controlSocket),
      (found) => found.browsers.length === 1,
      "the browser to attach",
    );
    const [seen] = status.browsers;
    assertEquals(seen.features, []);
    assert(seen.mismatch?.includes("0.0.9"), JSON.stringify(seen));
    assert(seen.mismatch?.includes("lacks transfers"), JSON.stringify(seen));
    assert(seen.mismatch?.endsWith(UPGRADE_STEP), JSON.stringify(seen));

    const session = await connector(instance);
    const call = (tool: string, args: Record<string, unknown>, workspace?: string) =>
      completedCall(session, tool, { args, workspace });
    const created = await call("tabs_create_mcp", {});
    assert(created.outcome.kind === "success", JSON.stringify(created.outcome));
    const workspace = created.outcome.workspace;
    const text = created.outcome.content.map((block) => block.type === "text" ? block.text : "")
      .join("\n");
    const tabId = Number(/\b(\d{5,})\b/.exec(text)?.[1] ?? "7");
    assert(received.includes("tab.create"), received.join());

    for (
      const [tool, args] of [
        ["file_upload", { tabId, ref: "e1", files: [{ data: "aGk=", name: "a.txt" }] }],
        ["upload_image", { tabId, imageId: "img-1", ref: "e1" }],
      ] as const
    ) {
      const before = received.length;
      const refused = await call(tool, args, workspace);
      assert(refused.outcome.kind === "tool_failure", JSON.stringify(refused.outcome));
      assert(
        refused.outcome.message.includes("does not support transfers"),
        refused.outcome.message,
      );
      assertEquals(refused.outcome.next_step, UPGRADE_STEP);
      // Authorisation reads the tab's address; nothing else reaches the browser.
      assertEquals(
        received.slice(before).filter((op) => op !== "tab.get"),
        [],
        `${tool} sent the browser nothing but reads of its tab`,
      );
    }
    assert(!received.some((op) => op.startsWith("transfer") || op === "cdp.with_transfers"));

    // The tools that need no missing feature still work, on the same tab.
    const before = received.length;
    const context = await call("tabs_context_mcp", {}, workspace);
    assert(context.outcome.kind === "success", JSON.stringify(context.outcome));
    const listed = context.outcome.content.map((block) => block.type === "text" ? block.text : "")
      .join("\n");
    assert(listed.includes(String(tabId)), listed);
    assert(received.length > before, "tabs_context_mcp asked the browser");
    browser.close();
    await serving;
  } finally {
    await instance.stop();
  }
});
