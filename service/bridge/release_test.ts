import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import { FROM_EXTENSION_MAX_FRAME, TO_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { BoundedWriter, encodeFrame, FrameReader } from "../../shared/framing.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { testGovernance } from "../../tests/support/governance.ts";
import { pollUntil, waitFor } from "../../tests/support/wait.ts";
import { BrowserHub } from "../browser/mod.ts";
import { Catalog } from "../catalog/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import { Recordings, TOOLS } from "../tools/mod.ts";
import { WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";
import { releaseAfterRunning, serveSession, type SessionDeps, WorkIds } from "./mod.ts";

interface Command {
  id: number;
  op: string;
  params: Record<string, unknown>;
}

/** A browser on the hub whose commands the test sees and answers one by one. */
function fakeBrowser(hub: BrowserHub) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const toHub = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const fromHub = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new BoundedWriter(fromHub.writable, { maxWaiting: 64, maxBytes: 1 << 22 });
  hub.serve(new FrameReader(toHub, FROM_EXTENSION_MAX_FRAME), writer);
  const say = (message: unknown) => feed.enqueue(encodeFrame(message, FROM_EXTENSION_MAX_FRAME));
  say({ type: "hello", browser_id: "browser-fake", extension_version: "1", user_agent: "test" });
  const commands: Command[] = [];
  (async () => {
    const reader = new FrameReader(fromHub.readable, TO_EXTENSION_MAX_FRAME);
    for (let raw = await reader.next(); raw !== null; raw = await reader.next()) {
      commands.push(raw as Command);
    }
  })();
  return {
    commands,
    answer: (id: number, value: unknown) => say({ type: "result", id, ok: true, value }),
    end: () => feed.close(),
  };
}

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
  const workspaces = new WorkspaceRegistry();
  const holds = new WorkspaceHolds(workspaces, {
    graceMs: 60_000,
    releaseTabs: releaseAfterRunning(scheduler, browsers),
  });
  const deps: SessionDeps = {
    catalog: new Catalog(TOOLS),
    workspaces,
    holds,
    browsers,
    scheduler,
    workIds: new WorkIds(),
    activity: { works: 0 },
    settlementMs: 180_000,
    governance: await testGovernance(workspaces, holds),
    recordings: new Recordings(() => false),
  };
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const toService = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const fromService = new TransformStream<Uint8Array, Uint8Array>();
  const served = serveSession(
    new FrameReader(toService, BRIDGE_MAX_FRAME),
    new BoundedWriter(fromService.writable, { maxWaiting: 64, maxBytes: 1 << 22 }),
    { client: "test", connectedAt: new Date(), activeWorks: 0 },
    deps,
  );
  const replies = new FrameReader(fromService.readable, BRIDGE_MAX_FRAME);
  const send = (message: unknown) => feed.enqueue(encodeFrame(message, BRIDGE_MAX_FRAME));
  const next = async () => ServiceMessage.parse(await replies.next());
  const context = { client_name: "test", client_version: "1" };

  send({ type: "open_workspace", seq: 1, label: "test" });
  const opened = await next();
  assert(opened.type === "workspace_opened");
  const workspace = opened.workspace;
  send({ type: "start", seq: 2, tool: "tabs_create_mcp", arguments: {}, workspace, context });
  send({ type: "start", seq: 3, tool: "tabs_create_mcp", arguments: {}, workspace, context });
  assertEquals((await next()).type, "started");
  assertEquals((await next()).type, "started");
  const ops = () => Promise.resolve(browser.commands.map((command) => command.op));
  await pollUntil(ops, (seen) => seen.includes("tab.create"), "the first tab.create");

  // Released while the first call's tab.create is in the browser and the second call waits.
  send({ type: "release_workspace", workspace });
  await waitFor(() => Promise.resolve(workspaces.size === 0), "the workspace to be released");
  assertEquals(await ops(), ["tab.create"], "nothing is released before the call ends");
  browser.answer(browser.commands[0].id, tab(7));
  await pollUntil(ops, (seen) => seen.includes("tab.get"), "the call to list its tabs");
  browser.answer(browser.commands[1].id, tab(7));
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
  feed.close();
  await served;
  browser.end();
  holds.close();
});
