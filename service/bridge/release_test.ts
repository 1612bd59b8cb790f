import { assert, assertEquals } from "../../tests/support/assert.ts";
import { bridgeSession, fakeBrowser, harnessDeps } from "../../tests/support/bridge_harness.ts";
import { pollUntil, waitFor } from "../../tests/support/wait.ts";
import { BrowserHub } from "../browser/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import { releaseAfterRunning } from "./mod.ts";

const tab = (id: number) => ({
  tab_id: id,
  window_id: 1,
  group_id: 3,
  url: "about:blank",
  title: "",
  status: "complete",
  active: true,
});

Deno.test("a release during a running tabs_create_mcp waits for it and releases its tab", async () => {
  const browsers = new BrowserHub();
  const browser = fakeBrowser(browsers);
  await waitFor(() => Promise.resolve(browsers.list().length === 1), "the browser");
  const scheduler = new Scheduler({ ...DEFAULT_SCHEDULER_OPTIONS, queueDeadlineMs: 60_000 });
  const deps = await harnessDeps(browsers, scheduler, releaseAfterRunning(scheduler, browsers));
  const { workspaces, holds } = deps;
  const session = bridgeSession(deps);
  const { send, next, context } = session;

  send({ type: "open_workspace", seq: 1, label: "test" });
  const opened = await next();
  assert(opened.type === "workspace_opened");
  const workspace = opened.workspace;
  send({ type: "start", seq: 2, tool: "tabs_create_mcp", arguments: {}, workspace, context });
  send({ type: "start", seq: 3, tool: "tabs_create_mcp", arguments: {}, workspace, context });
  const ops = () => Promise.resolve(browser.commands.map((command) => command.op));
  await pollUntil(ops, (seen) => seen.includes("tab.create"), "the first tab.create");

  // Released while the first call's tab.create is in the browser and the second call waits.
  send({ type: "release_workspace", workspace });
  await waitFor(() => Promise.resolve(workspaces.size === 0), "the workspace to be released");
  assertEquals(await ops(), ["tab.create"], "nothing is released before the call ends");
  browser.answer(browser.commands[0].id, tab(7));
  await pollUntil(ops, (seen) => seen.includes("tab.get"), "the call to list its tabs");
  const listing = browser.commands.find((command) => command.op === "tab.get")!;
  browser.answer(listing.id, tab(7));
  const first = await next();
  assert(first.type === "completed" && first.outcome.kind === "success", JSON.stringify(first));
  const second = await next();
  assert(
    second.type === "completed" && second.outcome.kind === "not_dispatched",
    JSON.stringify(second),
  );
  const released = await pollUntil(
    () => Promise.resolve(browser.commands.filter((command) => command.op === "tab.release")),
    (found) => found.length > 0,
    "the new tab's release",
  );
  assertEquals(released.map((command) => command.params), [{ tab_id: 7 }]);
  assertEquals(
    (await ops()).filter((op) => op === "tab.create").length,
    1,
    "the queued call never reached the browser",
  );
  await session.end();
  await browser.end();
  holds.close();
});
