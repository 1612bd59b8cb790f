// Two services in one process share nothing: each daemon builds its own workspaces, holds,
// scheduler and work ids, so nothing one does is visible to the other.

import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import { TO_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { encodeFrame } from "../../shared/framing.ts";
import { connectAndVerify } from "../../shared/handshake.ts";
import { type InstancePaths, resolveInstancePaths } from "../../shared/instance.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { makeTestEnv, type TestEnv } from "../../tests/support/env.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { fetchStatus } from "../control/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS } from "../scheduler/mod.ts";
import { readServiceSettings } from "../settings.ts";
import { type Daemon, startDaemon } from "./mod.ts";

/** A daemon on a fresh instance of its own, in this process. */
async function startInstance(prefix: string) {
  const testEnv: TestEnv = await makeTestEnv(prefix);
  const paths: InstancePaths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const daemon: Daemon = await startDaemon(paths, {
    settings: readServiceSettings(() => undefined),
    exitWhenIdle: false,
    logToStderr: false,
  });
  const connections: Deno.Conn[] = [];
  return {
    paths,
    /** Opens a connection that has passed the hello, in `role`. */
    async connect(role: "mcp" | "browser") {
      const opened = await connectAndVerify({
        socket: role === "mcp" ? paths.bridgeSocket : paths.browserSocket,
        secretFile: paths.secretFile,
        role,
        client: { name: "test", version: "1" },
        maxFrame: role === "mcp" ? BRIDGE_MAX_FRAME : TO_EXTENSION_MAX_FRAME,
      });
      connections.push(opened.conn);
      return {
        send: (message: Record<string, unknown>) =>
          opened.writer.write(encodeFrame(message, BRIDGE_MAX_FRAME)),
        next: () => opened.reader.next(),
        close: () => opened.conn.close(),
      };
    },
    /** Closes every connection, waits for the service to see them gone, and stops it. */
    async stop() {
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // Closed by the test already.
        }
      }
      await waitFor(async () => {
        const status = await fetchStatus(paths.controlSocket);
        return status.connectors.length === 0 && status.browsers.length === 0;
      }, "the service to see its connections gone");
      await daemon.stop();
      await testEnv.dispose();
    },
  };
}

/** Arguments for update_plan, a tool that needs no browser. */
const PLAN = { domains: ["example.com"], approach: ["look around"] };

/** A connector's session: sends `start` messages and reads what the service answers. */
async function connector(instance: Awaited<ReturnType<typeof startInstance>>) {
  const link = await instance.connect("mcp");
  let seq = 0;
  return {
    send: link.send,
    start(tool: string, args: Record<string, unknown> = {}, workspace?: string) {
      return link.send({
        type: "start",
        seq: ++seq,
        tool,
        arguments: args,
        ...(workspace === undefined ? {} : { workspace }),
        context: { client_name: "test", client_version: "1" },
      });
    },
    next: async () => ServiceMessage.parse(await link.next()),
  };
}

Deno.test("a workspace minted through one daemon's bridge is unknown to another's", async () => {
  const one = await startInstance("one");
  const other = await startInstance("oth");
  try {
    const first = await connector(one);
    await first.send({ type: "open_workspace", seq: 100, label: "test" });
    const opened = await first.next();
    assert(opened.type === "workspace_opened", JSON.stringify(opened));

    const second = await connector(other);
    await second.start("update_plan", PLAN, opened.workspace);
    const refused = await second.next();
    assert(refused.type === "rejected" && refused.kind === "no_workspace", JSON.stringify(refused));

    await first.start("update_plan", PLAN, opened.workspace);
    const known = await first.next();
    assert(known.type === "started", JSON.stringify(known));
    assertEquals((await first.next()).type, "completed");
    assertEquals((await fetchStatus(one.paths.controlSocket)).plans?.length, 1);
    assertEquals((await fetchStatus(other.paths.controlSocket)).plans?.length ?? 0, 0);

    // Each daemon counts its own works: the first work of each has the same id.
    await second.start("update_plan", PLAN);
    const started = await second.next();
    assert(started.type === "started", JSON.stringify(started));
    assertEquals(started.work, known.work);
    assertEquals((await second.next()).type, "completed");
  } finally {
    await one.stop();
    await other.stop();
  }
});

Deno.test("one daemon's full scheduler holds back none of another daemon's works", async () => {
  const one = await startInstance("one");
  const other = await startInstance("oth");
  try {
    // A browser that takes commands and never answers them: each work it gets keeps running.
    const browser = await one.connect("browser");
    await browser.send({
      type: "hello",
      browser_id: "browser-of-one",
      extension_version: "0",
      user_agent: "test",
    });
    await waitFor(
      async () => (await fetchStatus(one.paths.controlSocket)).browsers.length === 1,
      "the browser to attach",
    );
    // Every running slot of the first daemon's scheduler, each taken by a work in its own
    // workspace (so on its own lane) that waits in the browser.
    const { maxRunning } = DEFAULT_SCHEDULER_OPTIONS;
    for (let n = 0; n < maxRunning; n++) {
      const session = await connector(one);
      await session.start("tabs_create_mcp");
      const started = await session.next();
      assert(started.type === "started", JSON.stringify(started));
    }
    for (let n = 0; n < maxRunning; n++) {
      const command = await browser.next() as { op?: string };
      assertEquals(command.op, "tab.create");
    }

    // Were the scheduler shared, this would wait behind those works until its queue deadline
    // and come back not_dispatched.
    const session = await connector(other);
    await session.start("update_plan", PLAN);
    assertEquals((await session.next()).type, "started");
    const completed = await session.next();
    assert(
      completed.type === "completed" && completed.outcome.kind === "success",
      JSON.stringify(completed),
    );
    browser.close();
  } finally {
    await one.stop();
    await other.stop();
  }
});
