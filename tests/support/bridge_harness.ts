/**
 * A real bridge session and a fake browser on a real hub, driven frame by frame: the test plays
 * the connector and the extension, and sees every command the service sends the browser.
 *
 * @module
 */

import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import {
  FROM_EXTENSION_MAX_FRAME,
  type TabInfo,
  TO_EXTENSION_MAX_FRAME,
} from "../../shared/browser_protocol.ts";
import { BoundedWriter, encodeFrame, FrameReader } from "../../shared/framing.ts";
import { serveSession, type SessionDeps, WorkIds } from "../../service/bridge/mod.ts";
import type { SessionInfo } from "../../service/bridge/session.ts";
import { BrowserHub } from "../../service/browser/mod.ts";
import { Catalog } from "../../service/catalog/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../../service/scheduler/mod.ts";
import { Recordings, TOOLS } from "../../service/tools/mod.ts";
import { type Workspace, WorkspaceHolds, WorkspaceRegistry } from "../../service/workspace/mod.ts";
import { testGovernance } from "./governance.ts";
import { waitFor } from "./wait.ts";

/** A command the service sent the fake browser. */
export interface Command {
  id: number;
  op: string;
  params: Record<string, unknown>;
}

/** A browser on `hub` that says `hello` (over the defaults) and records every command it gets. */
export function fakeBrowser(hub: BrowserHub, hello: Record<string, unknown> = {}) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const toHub = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const fromHub = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new BoundedWriter(fromHub.writable, { maxWaiting: 64, maxBytes: 1 << 22 });
  const served = hub.serve(new FrameReader(toHub, FROM_EXTENSION_MAX_FRAME), writer);
  const say = (message: unknown) => feed.enqueue(encodeFrame(message, FROM_EXTENSION_MAX_FRAME));
  say({
    type: "hello",
    browser_id: "browser-fake",
    extension_version: "1",
    user_agent: "test",
    ...hello,
  });
  const commands: Command[] = [];
  (async () => {
    const reader = new FrameReader(fromHub.readable, TO_EXTENSION_MAX_FRAME);
    for (let raw = await reader.next(); raw !== null; raw = await reader.next()) {
      commands.push(raw as Command);
    }
  })();
  return {
    commands,
    say,
    answer: (id: number, value: unknown) => say({ type: "result", id, ok: true, value }),
    /** Ends the connection, as a browser connector that died would. */
    async end() {
      feed.close();
      await served;
    },
  };
}

/** Session deps over `browsers` and `scheduler`, with all-open governance. */
export async function harnessDeps(
  browsers: BrowserHub,
  scheduler: Scheduler,
  releaseTabs: (workspace: Workspace) => void = () => {},
): Promise<SessionDeps & { governance: { dir: string } }> {
  const workspaces = new WorkspaceRegistry();
  const holds = new WorkspaceHolds(workspaces, { graceMs: 60_000, releaseTabs });
  return {
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
}

/**
 * One connector's session on `deps`: what it sends, what it is told, and its end. `info` adds to
 * (or replaces) what the session knows of its connector, e.g. the remote it serves.
 */
export function bridgeSession(deps: SessionDeps, info: Partial<SessionInfo> = {}) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const toService = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const fromService = new TransformStream<Uint8Array, Uint8Array>();
  const served = serveSession(
    new FrameReader(toService, BRIDGE_MAX_FRAME),
    new BoundedWriter(fromService.writable, { maxWaiting: 64, maxBytes: 1 << 22 }),
    {
      principal: "unnamed",
      client: "test",
      clientName: "test",
      connectedAt: new Date(),
      activeWorks: 0,
      ...info,
    },
    deps,
  );
  const replies = new FrameReader(fromService.readable, BRIDGE_MAX_FRAME);
  return {
    send: (message: unknown) => feed.enqueue(encodeFrame(message, BRIDGE_MAX_FRAME)),
    next: async () => ServiceMessage.parse(await replies.next()),
    context: { client_name: "test", client_version: "1" },
    async end() {
      feed.close();
      await served;
    },
  };
}

/** A policy that refuses reading on `denied.test` and allows the rest. */
export const DENIED_TEST_POLICY =
  `{ "default": "allow", "grants": [{ "hosts": ["denied.test"], "deny": ["read"] }] }`;

/** Native tab 5, active and loaded, at `url`, as the fake browser reports it. */
export function tabAt(url: string): TabInfo {
  return {
    tab_id: 5,
    window_id: 1,
    group_id: -1,
    url,
    title: "",
    status: "complete",
    active: true,
  };
}

/**
 * A session under {@linkcode DENIED_TEST_POLICY} on a fake browser that declares `features`,
 * with a workspace that owns native tab 5.
 */
export async function deniedTestWorkspace(features: string[]) {
  const browsers = new BrowserHub();
  const deps = await harnessDeps(browsers, new Scheduler(DEFAULT_SCHEDULER_OPTIONS));
  await Deno.writeTextFile(`${deps.governance.dir}/policy.jsonc`, DENIED_TEST_POLICY);
  await deps.governance.policy.reload();
  const browser = fakeBrowser(browsers, { features });
  await waitFor(() => Promise.resolve(browsers.list().length === 1), "the browser");
  const session = bridgeSession(deps);
  session.send({ type: "open_workspace", seq: 1, label: "test" });
  const opened = await session.next();
  if (opened.type !== "workspace_opened") throw new Error(JSON.stringify(opened));
  deps.workspaces.get(opened.workspace)!.tabs.add(5);
  const close = async () => {
    await browser.end();
    await session.end();
    deps.holds.close();
  };
  return { deps, browser, session, workspace: opened.workspace, close };
}
