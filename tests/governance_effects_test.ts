/**
 * Capabilities by what an action can cause, end to end through a real MCP client, the three
 * processes and headless Chromium (decision 0280): a hover or a scroll runs the page's handlers,
 * so a read-only grant refuses them before the page sees an event; a forced navigation answers
 * the leave-page prompt of the page it leaves, so it needs there what answering a dialog needs,
 * and never touches a sacred page's prompt.
 */

import { assertMatch } from "./support/assert.ts";
import { ghostlight } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** Reading on 127.0.0.1 and nothing else. */
const READ_ONLY = `{ "mode": "enforce", "default": "deny",
  "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read"] }] }`;

/** Writes the person's policy and waits until the service has it in force, as explain tells. */
async function usePolicy(s: E2ESession, policy: string): Promise<void> {
  const paths = JSON.parse((await ghostlight(s.testEnv, ["paths", "--json"])).stdout);
  const explained = async () => s.text(await s.ok("explain", {}));
  const before = await explained();
  await Deno.writeTextFile(paths.policyFile, policy);
  await pollUntil(explained, (now) => now !== before, "the service to take the new policy");
}

Deno.test("under a read-only grant, hover and scroll are refused and the page sees no event", async () => {
  const s = await startSession({ policy: READ_ONLY });
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/watched.html"), tabId });
    const far = await s.ok("find", { query: "Far button", tabId });
    const ref = /ref_\d+/.exec(s.text(far))?.[0];
    const refused = [
      ["computer", { action: "hover", coordinate: [40, 70], tabId }],
      ["computer", { action: "scroll", coordinate: [40, 70], scroll_direction: "down", tabId }],
      ["computer", { action: "scroll_to", ref, tabId }],
      ["act_on", { action: "hover", target: { ref }, tabId }],
      ["act_on", { action: "scroll_to", target: { ref }, tabId }],
    ] as const;
    for (const [tool, args] of refused) {
      assertMatch(
        await s.fail(tool, args),
        new RegExp(
          // The tab's host is the page's to choose: inside the fence (decision 0326).
          `^Denied: ${tool} ${args.action} needs the action capability on the page in its tab, ` +
            `which is refused [^\\n]*The tab is on:\\n<page-content-[^\\n]*>\\n127\\.0\\.0\\.1\\n`,
        ),
      );
      // Reading still works, and shows the page saw neither a hover nor a scroll.
      assertMatch(s.text(await s.ok("get_page_text", { tabId })), /hovered 0 scrolled 0/);
    }
    await s.ok("computer", { action: "screenshot", tabId });
    await s.ok("read_page", { tabId });
  } finally {
    await s.close();
  }
});

Deno.test("navigate's force answers the leaving page's prompt only where a dialog may be answered", async () => {
  const s = await startSession({
    policy: `{ "default": "allow" }`,
    env: { GHOSTLIGHT_POLICY_RELOAD_MS: "100" },
  });
  try {
    const tabId = await s.firstTab();
    const leave = s.fixtures.url("/leave.html").replace("127.0.0.1", "localhost");
    await s.ok("navigate", { url: leave, tabId });
    await s.ok("computer", { action: "left_click", coordinate: [100, 80], tabId });
    await s.ok("computer", { action: "type", text: "draft", tabId });
    const away = { url: s.fixtures.url("/index.html"), force: true, tabId };
    const stays = async () => {
      const text = s.text(
        await s.ok("javascript_tool", {
          action: "javascript_exec",
          text: "location.pathname + ' ' + document.getElementById('draft').value",
          tabId,
        }),
      );
      assertMatch(text, /\/leave\.html draft/, "the page and its unsaved draft are still there");
    };

    // Where the dialog capability (action) is refused, force is refused with it.
    await usePolicy(
      s,
      `{ "default": "allow", "grants": [{ "hosts": ["localhost"], "deny": ["action"] }] }`,
    );
    assertMatch(
      await s.fail("navigate", away),
      /^Denied: navigate needs the action capability on the page in its tab, which is refused [^\n]*The tab is on:\n<page-content-[^\n]*>\nlocalhost\n/,
    );
    assertMatch(
      await s.fail("dialog", { action: "accept", tabId }),
      /^Denied: dialog accept needs the action capability on the page in its tab[^\n]*The tab is on:\n<page-content-[^\n]*>\nlocalhost\n/,
    );
    await stays();

    // A sacred page's prompt is never answered.
    await usePolicy(s, `{ "default": "allow", "sacred": ["localhost"] }`);
    assertMatch(
      await s.fail("navigate", away),
      /^Denied: navigate would touch the page in its tab, which Ghostlight never touches[^\n]*The tab is on:\n<page-content-[^\n]*>\nlocalhost\n/,
    );
    // Without force nothing is answered for the page: it asks to stay, and stays.
    assertMatch(await s.fail("navigate", { ...away, force: false }), /asked to stay/);

    // Where it may, force still leaves.
    await usePolicy(s, `{ "default": "allow" }`);
    await stays();
    const forced = await s.ok("navigate", away);
    assertMatch(s.text(forced), /index\.html/);
  } finally {
    await s.close();
  }
});
