// The tab list takes each tab from its title read's tail when the answer carries one (decision
// 0215), and asks the browser with `tab.get` when it does not.

import { assert, assertEquals } from "../../../tests/support/assert.ts";
import {
  completedCall,
  connector,
  fakeExtensionAnswer,
  startInstance,
} from "../../../tests/support/daemon.ts";
import { pollUntil } from "../../../tests/support/wait.ts";
import { fetchStatus } from "../../control/mod.ts";

const NATIVE = 7;

function tabAt(url: string) {
  return {
    tab_id: NATIVE,
    window_id: 1,
    group_id: 1,
    url,
    title: "blank",
    status: "complete",
    active: true,
  };
}

/** Lists the tabs with a fake extension that declares `tab_locations`, tailing its answers or not. */
async function listWith(tail: boolean): Promise<{ text: string; received: string[] }> {
  const instance = await startInstance("tls");
  try {
    const browser = await instance.connect("browser");
    await browser.send({
      type: "hello",
      browser_id: "browser-of-tails",
      extension_version: "9.9.9",
      user_agent: "test",
      features: ["tab_locations"],
    });
    const received: string[] = [];
    const serving = (async () => {
      for (;;) {
        const command = await browser.next().catch(() => null) as
          | { type?: string; id: number; op: string; params?: { tab_id?: number } }
          | null;
        if (command === null) return;
        if (command.type !== "command") continue;
        received.push(command.op);
        // As the extension does for a reporting tab: the answer to a command naming it carries
        // where it stands.
        const tailed = tail && command.params?.tab_id === NATIVE && command.op !== "tab.get";
        await browser.send({
          type: "result",
          id: command.id,
          ok: true,
          value: fakeExtensionAnswer(
            command.op,
            (op) => tabAt(op === "tab.get" ? "https://asked.test/" : "about:blank"),
          ),
          ...(tailed ? { tab: tabAt("https://tailed.test/") } : {}),
        }).catch(() => {});
      }
    })();
    await pollUntil(
      () => fetchStatus(instance.paths.controlSocket),
      (found) => found.browsers.length === 1,
      "the browser to attach",
    );
    const session = await connector(instance);
    const call = (tool: string, args: Record<string, unknown>, workspace?: string) =>
      completedCall(session, tool, { args, workspace });
    const created = await call("tabs_create_mcp", {});
    assert(created.outcome.kind === "success", JSON.stringify(created.outcome));
    const before = received.length;
    const listed = await call("tabs_context_mcp", {}, created.outcome.workspace);
    assert(listed.outcome.kind === "success", JSON.stringify(listed.outcome));
    const text = listed.outcome.content.map((block) => block.type === "text" ? block.text : "")
      .join("\n");
    const sent = received.slice(before);
    browser.close();
    await serving;
    return { text, received: sent };
  } finally {
    await instance.stop();
  }
}

Deno.test("a title read whose answer carries the tab spares the tab.get", async () => {
  const { text, received } = await listWith(true);
  assert(received.some((op) => op.startsWith("cdp")), received.join());
  assertEquals(received.filter((op) => op === "tab.get"), [], received.join());
  assert(text.includes("https://tailed.test/"), text);
});

Deno.test("without a tail the tab list asks the browser", async () => {
  const { text, received } = await listWith(false);
  assert(received.includes("tab.get"), received.join());
  assert(text.includes("https://asked.test/"), text);
});
