/**
 * The person stays in charge, from a terminal: `ghostlight hold` answers the next call "paused"
 * with nothing reaching the page, `resume` lets it run, `stop` ends the workspace and the agent
 * hears so, and the attention circuit holds an agent after a run of denials until `resume`.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { ghostlight } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";

interface PersonView {
  paused: boolean;
  stopped: number;
  workspaces: { number: number; client: string; state: string; denials: number }[];
}

async function person(s: E2ESession): Promise<PersonView> {
  const out = await ghostlight(s.testEnv, ["status", "--json"]);
  return JSON.parse(out.stdout).person;
}

async function run(s: E2ESession, args: string[]): Promise<string> {
  const out = await ghostlight(s.testEnv, args);
  assertEquals(out.code, 0, `ghostlight ${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
}

Deno.test("hold answers 'paused' with nothing reaching the page; resume lets calls run; stop ends the workspace", async () => {
  const s = await startSession();
  try {
    const tab = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/index.html"), tabId: tab });

    assertMatch(await run(s, ["hold"]), /Every agent is paused/);
    assertEquals((await person(s)).paused, true);
    const before = s.fixtures.requests("/article.html");
    const held = await s.fail("navigate", { url: s.fixtures.url("/article.html"), tabId: tab });
    assertMatch(
      held,
      /^Paused by the person: this agent is on hold .*nothing was done in the browser/,
    );
    assertEquals(s.fixtures.requests("/article.html"), before, "nothing reached the page");
    assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);

    assertMatch(await run(s, ["resume"]), /Every agent may carry on/);
    await s.ok("navigate", { url: s.fixtures.url("/article.html"), tabId: tab });
    assertEquals(s.fixtures.requests("/article.html"), before + 1);

    // One workspace, by the number status shows.
    const [mine] = (await person(s)).workspaces;
    assertEquals([mine.number, mine.client, mine.state], [1, "ghostlight-test", "idle"]);
    // Named by its principal (decision 0338); the client calls itself ghostlight-test.
    assertMatch(await run(s, ["hold", "1"]), /Workspace 1 \(unnamed\) is paused/);
    assertEquals((await person(s)).workspaces[0].state, "held");
    assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);
    await run(s, ["resume", "1"]);
    await s.ok("get_page_text", { tabId: tab });
    const unknown = await ghostlight(s.testEnv, ["hold", "9"]);
    assertEquals(unknown.code, 1);
    assertMatch(unknown.stderr, /there is no workspace 9/);

    assertMatch(await run(s, ["stop"]), /Stopped 1 agent\(s\); their tabs are yours again/);
    const after = await person(s);
    assertEquals([after.workspaces.length, after.stopped], [0, 1]);
    const stopped = await s.fail("get_page_text", { tabId: tab });
    assertMatch(stopped, /^Denied: The person stopped this agent: its workspace was ended/);
    // It stays stopped: a new context is refused too, until the client reconnects.
    assertMatch(await s.fail("tabs_context_mcp", { createIfEmpty: true }), /stopped this agent/);
    const fresh = await s.connectClient("reconnected-agent");
    try {
      const listed = await fresh.callTool({ name: "tabs_context_mcp", arguments: {} });
      assert(!listed.isError, JSON.stringify(listed));
    } finally {
      await fresh.close();
    }
  } finally {
    await s.close();
  }
});

Deno.test("the attention circuit opens after the configured denials and closes on resume", async () => {
  const s = await startSession({
    policy: `{ "default": "deny", "grants": [{ "hosts": ["127.0.0.1"], "allow": ["read"] }] }`,
    env: { GHOSTLIGHT_ATTENTION_DENIALS: "3" },
  });
  try {
    const tab = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/index.html"), tabId: tab });
    const click = { action: "left_click", coordinate: [5, 5], tabId: tab };
    assertMatch(await s.fail("computer", click), /^Denied: .*action capability/);
    // An allowed call ends a run of denials.
    await s.ok("get_page_text", { tabId: tab });
    assertMatch(await s.fail("computer", click), /^Denied/);
    assertMatch(await s.fail("computer", click), /^Denied/);
    assertEquals((await person(s)).workspaces[0].denials, 2);
    assertMatch(
      await s.fail("computer", click),
      /^Denied: .*That is 3 refusals in a row, so Ghostlight now holds this agent until the person looks\./,
    );
    assertEquals((await person(s)).workspaces[0].state, "attention");
    // Now even what the policy allows waits for the person.
    assertMatch(
      await s.fail("get_page_text", { tabId: tab }),
      /^Waiting for the person: Ghostlight holds this agent after 3 refused calls in a row/,
    );
    await run(s, ["resume", "1"]);
    assertEquals((await person(s)).workspaces[0].state, "idle");
    await s.ok("get_page_text", { tabId: tab });
  } finally {
    await s.close();
  }
});
