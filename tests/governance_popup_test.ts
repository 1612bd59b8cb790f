/**
 * The popup, driven as the person would: it shows each agent's workspace (client, colour,
 * state, plan, last call), and its Pause, Resume and Stop buttons pause an agent (its next call
 * answers "paused", its tab group says so), let it carry on, and stop it (its tabs stay open).
 * The popup is opened as a tab of the headless browser over DevTools (launched with
 * `--remote-debugging`), and screenshotted (`docs/popup.png` shows a pending question, from
 * `governance_ask_popup_test.ts`).
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { type CdpPage, connectCdp } from "./support/cdp.ts";
import { allText } from "./support/results.ts";
import { type CallResult, startSession } from "./support/session.ts";
import { pollUntil, waitFor } from "./support/wait.ts";

/** Clicks a popup button and waits for the workspace card to show `state`. */
async function press(popup: CdpPage, op: string, workspace: number, state: string) {
  await popup.evaluate(
    `document.querySelector('button[data-op="${op}"][data-workspace="${workspace}"]').click()`,
  );
  await waitFor(
    () =>
      popup.evaluate<boolean>(
        `document.querySelector('.workspace[data-number="${workspace}"]')?.dataset.state === "${state}"`,
      ),
    `workspace ${workspace} to show ${state} in the popup`,
  );
}

/** The tab groups as the extension sees them (the popup is an extension page). */
function groups(popup: CdpPage): Promise<{ title: string; color: string }[]> {
  return popup.evaluate(
    "chrome.tabGroups.query({}).then((all) => all.map((g) => ({ title: g.title, color: g.color })))",
  );
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return await client.callTool({ name, arguments: args }) as CallResult;
}

Deno.test("the popup shows the agents and its buttons pause, resume and stop them", async () => {
  const s = await startSession({ launchArgs: ["--remote-debugging"], instancePrefix: "demo" });
  const endpoint = s.browser.ready.devtools;
  assert(endpoint, "browser launch --remote-debugging names its DevTools endpoint");
  const cdp = await connectCdp(endpoint);
  // Its client calls itself by a name of its own choosing; it was started as "research".
  const second = await s.connectClient("research-agent", {}, ["--principal", "research"]);
  try {
    const tab = await s.firstTab();
    await s.ok("update_plan", {
      domains: ["127.0.0.1"],
      approach: ["Read the keepers' almanac", "Note when the lamp is lit", "Report back"],
    });
    await s.ok("navigate", { url: s.fixtures.url("/index.html"), tabId: tab });
    await s.ok("get_page_text", { tabId: tab });
    const listed = await call(second, "tabs_context_mcp", { createIfEmpty: true });
    const otherTab = (listed.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    await call(second, "navigate", { url: s.fixtures.url("/article.html"), tabId: otherTab });

    const popup = await cdp.open(
      `chrome-extension://${s.browser.ready.extension_id}/popup.html`,
      { width: 380, height: 640, scale: 2 },
    );
    await waitFor(
      () => popup.evaluate<boolean>(`document.querySelectorAll(".workspace").length === 2`),
      "the popup to show both agents",
    );
    assertMatch(
      await popup.evaluate<string>(`document.body.innerText`),
      /Connected · instance demo-/,
    );

    // Pause the second agent from its card: its next call is answered at once.
    await press(popup, "hold", 2, "held");
    const held = await call(second, "get_page_text", { tabId: otherTab });
    assert(held.isError);
    assertMatch(allText(held), /^Paused by the person/);
    await waitFor(
      async () => (await groups(popup)).some((g) => g.title === "⏸ Paused — research"),
      "the paused agent's tab group to say so, by its principal",
    );
    assertEquals(
      (await groups(popup)).find((g) => g.title.endsWith("— research"))?.color,
      "grey",
    );
    // A client's own name labels no tab group (decision 0338).
    for (const group of await groups(popup)) {
      assert(!/research-agent|ghostlight-test/.test(group.title), group.title);
    }

    const card = await popup.evaluate<string>(`document.querySelector(".workspace").innerText`);
    // Named by its principal; its client's name only as the client's claim, below.
    assertEquals(
      await popup.evaluate<string>(`document.querySelector(".workspace .principal").innerText`),
      "unnamed",
    );
    assertMatch(card, /its client says: ghostlight-test/);
    assertMatch(card, /Read the keepers' almanac/);
    assertMatch(card, /Last: get_page_text on 127\.0\.0\.1/);
    const shot = await popup.screenshot("body");
    assert(shot.length > 10_000, "the screenshot holds a rendered popup");
    assertEquals([...shot.slice(1, 4)].map((c) => String.fromCharCode(c)).join(""), "PNG");

    // Pause and resume the first agent from its card.
    await press(popup, "hold", 1, "held");
    assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);
    await press(popup, "resume", 1, "idle");
    await s.ok("get_page_text", { tabId: tab });
    await waitFor(
      async () => (await groups(popup)).some((g) => g.title === "Ghostlight — unnamed"),
      "the resumed agent's tab group to show its principal again",
    );

    // Take over: the agent is paused and its tab is brought to the front of its window.
    await press(popup, "take_over", 1, "held");
    assertMatch(
      await popup.evaluate<string>(`document.getElementById("said").textContent`),
      /Its tab is in front/,
    );
    assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);
    const active = await popup.evaluate<string[]>(
      "chrome.tabs.query({ active: true }).then((tabs) => tabs.map((t) => t.url))",
    );
    assert(active.includes(s.fixtures.url("/index.html")), JSON.stringify(active));

    // Stop it: the agent is told, and its page stays open, the person's again.
    await popup.evaluate(
      `document.querySelector('button[data-op="stop"][data-workspace="1"]').click()`,
    );
    await waitFor(
      () => popup.evaluate<boolean>(`document.querySelectorAll(".workspace").length === 1`),
      "the stopped agent's workspace to leave the popup",
    );
    assertMatch(await s.fail("get_page_text", { tabId: tab }), /The person stopped this agent/);
    const pages = await pollUntil(
      () => cdp.pages(),
      (urls) => urls.includes(s.fixtures.url("/index.html")),
      "the stopped agent's page to be still open",
    );
    assert(pages.length >= 2);
    await popup.close();
  } finally {
    await second.close();
    cdp.close();
    await s.close();
  }
});
