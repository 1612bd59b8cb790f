import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { bridgeSession, fakeBrowser, harnessDeps } from "../../tests/support/bridge_harness.ts";
import { pollUntil, waitFor } from "../../tests/support/wait.ts";
import { BrowserHub } from "../browser/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import { quarantinedTabs, quarantineEvents } from "./mod.ts";

const executor = (generation: string, link: number) => ({
  browser_run: "run-1",
  executor: { generation, link },
});

/** A hub whose browser reports feed the scheduler's quarantine, with one session on it. */
async function quarantineHarness() {
  const browsers = new BrowserHub();
  const scheduler = new Scheduler({ ...DEFAULT_SCHEDULER_OPTIONS, queueDeadlineMs: 60_000 });
  browsers.onEvents(quarantineEvents(scheduler));
  const deps = await harnessDeps(browsers, scheduler);
  const session = bridgeSession(deps);
  session.send({ type: "open_workspace", seq: 1, label: "test" });
  const opened = await session.next();
  assert(opened.type === "workspace_opened");
  const workspace = deps.workspaces.get(opened.workspace)!;
  // Slot 0, native tab 5: the model-facing id is 5 too.
  workspace.tabs.add(5);
  let seq = 1;
  /** Starts javascript_tool on tab 5 and returns the outcome the connector is told. */
  const runScript = async () => {
    session.send({
      type: "start",
      seq: ++seq,
      tool: "javascript_tool",
      arguments: { action: "javascript_exec", text: "1", tabId: 5 },
      workspace: workspace.id,
      context: session.context,
    });
    const completed = await session.next();
    assert(completed.type === "completed", JSON.stringify(completed));
    return completed.outcome;
  };
  return { browsers, scheduler, deps, session, runScript };
}

/** Waits until `browser` has been sent a command on native tab 5, and returns its id. */
async function commandOnTab5(browser: ReturnType<typeof fakeBrowser>): Promise<number> {
  const sent = await pollUntil(
    () => Promise.resolve(browser.commands.find((command) => command.params.tab_id === 5)),
    (command) => command !== undefined,
    "a command on tab 5",
  );
  return sent!.id;
}

Deno.test("a tab cut off mid-call is quarantined until the same executor acknowledges the command", async () => {
  const { browsers, scheduler, deps, session, runScript } = await quarantineHarness();
  const first = fakeBrowser(browsers, executor("gen-1", 1));
  await waitFor(() => Promise.resolve(browsers.list().length === 1), "the browser");
  const running = runScript();
  const cutOff = await commandOnTab5(first);
  // The browser connector dies with the command in the browser.
  await first.end();
  assertEquals((await running).kind, "outcome_unknown");
  assertEquals(quarantinedTabs(scheduler).map((entry) => entry.tabId), [5]);

  // The same executor comes back on a new link: the tab still takes nothing.
  const second = fakeBrowser(browsers, executor("gen-1", 2));
  await waitFor(() => Promise.resolve(browsers.pick()?.connected === true), "the new link");
  const refused = await runScript();
  assert(refused.kind === "not_dispatched", JSON.stringify(refused));
  assertMatch(refused.message, /^Tab 5 is quarantined: an earlier command on it was cut off/);
  assertMatch(refused.next_step, /waiting alone does not end it/);
  assertEquals(second.commands, [], "nothing reached the browser");

  // Another generation's acknowledgement of the same id proves nothing, nor one that names the
  // current link (whose commands are answered by results, not acknowledged).
  second.say({ type: "ended", generation: "gen-0", link: 1, id: cutOff });
  second.say({ type: "ended", generation: "gen-1", link: 2, id: cutOff });
  // A tab opening after them, once seen, says the hub has read them.
  const link = browsers.pick()!;
  second.say({ type: "tab_created", tab_id: 9, active: false });
  await waitFor(() => Promise.resolve(link.tabChangeSerial > 0), "the frames to be read");
  assert(scheduler.quarantine.has("tab:5"), "still quarantined");
  // The executor's own acknowledgement ends the quarantine.
  second.say({ type: "ended", generation: "gen-1", link: 1, id: cutOff });
  await waitFor(() => Promise.resolve(!scheduler.quarantine.has("tab:5")), "the quarantine's end");
  const dispatched = runScript();
  await commandOnTab5(second);
  // Cut off again: quarantined again, and a new executor generation (a service worker restart)
  // proves the old one's commands over.
  await second.end();
  assertEquals((await dispatched).kind, "outcome_unknown");
  assert(scheduler.quarantine.has("tab:5"), "quarantined again");
  const restarted = fakeBrowser(browsers, executor("gen-2", 1));
  await waitFor(() => Promise.resolve(!scheduler.quarantine.has("tab:5")), "the restart's proof");
  await restarted.end();
  await session.end();
  deps.holds.close();
});

Deno.test("a timed-out command's late answer, or its tab closing, ends a quarantine", async () => {
  const browsers = new BrowserHub();
  const scheduler = new Scheduler(DEFAULT_SCHEDULER_OPTIONS);
  browsers.onEvents(quarantineEvents(scheduler));
  const browser = fakeBrowser(browsers, executor("gen-1", 1));
  await waitFor(() => Promise.resolve(browsers.list().length === 1), "the browser");
  const link = browsers.pick()!;
  const timedOut = (tab: number) =>
    link.call("tab.get", { tab_id: tab }, { timeoutMs: 1 }).catch((error) => error.kind);
  assertEquals(await timedOut(5), "timeout");
  assertEquals(await timedOut(6), "timeout");
  assertEquals(quarantinedTabs(scheduler).map((entry) => entry.tabId), [5, 6]);
  const [late] = browser.commands.filter((command) => command.params.tab_id === 5);
  browser.answer(late.id, {});
  browser.say({ type: "tab_removed", tab_id: 6 });
  await waitFor(
    () => Promise.resolve(scheduler.quarantine.list().length === 0),
    "both quarantines to end",
  );
  await browser.end();
});
