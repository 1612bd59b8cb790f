/**
 * A real daemon on a fresh instance of its own, in the test's process, reached through its real
 * sockets: connectors and browsers are driven frame by frame from the test.
 *
 * @module
 */

import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import { TO_EXTENSION_MAX_FRAME } from "../../shared/browser_protocol.ts";
import { encodeFrame } from "../../shared/framing.ts";
import { connectAndVerify } from "../../shared/handshake.ts";
import { type InstancePaths, resolveInstancePaths } from "../../shared/instance.ts";
import { fetchStatus } from "../../service/control/mod.ts";
import { type Daemon, startDaemon } from "../../service/daemon/mod.ts";
import { readServiceSettings } from "../../service/settings.ts";
import { makeTestEnv, type TestEnv } from "./env.ts";
import { waitFor } from "./wait.ts";

/** A daemon on a fresh instance of its own, in this process. */
export async function startInstance(prefix: string) {
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
        keys: paths.keys,
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

/** A daemon started by {@linkcode startInstance}. */
export type DaemonInstance = Awaited<ReturnType<typeof startInstance>>;

/** A connector's session: sends `start` messages and reads what the service answers. */
export async function connector(instance: DaemonInstance) {
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

/** Starts one call on `session` and reads its one message, its `completed`. */
export async function completedCall(
  session: Awaited<ReturnType<typeof connector>>,
  tool: string,
  options: { args?: Record<string, unknown>; workspace?: string } = {},
): Promise<Extract<ServiceMessage, { type: "completed" }>> {
  await session.start(tool, options.args ?? {}, options.workspace);
  const message = await session.next();
  if (message.type !== "completed") throw new Error(`unexpected ${JSON.stringify(message)}`);
  return message;
}

/**
 * What a fake extension answers each operation with, the tab it creates or is asked about being
 * `tab(op)`.
 */
export function fakeExtensionAnswer(op: string, tab: (op: string) => unknown): unknown {
  switch (op) {
    case "tab.create":
    case "tab.get":
      return tab(op);
    case "group.update":
      return { updated: true };
    case "tab.release":
      return { detached: false };
    case "cdp.sequence":
      return { results: [] };
    case "tab.frames":
      return { sessions: [] };
    default:
      return {};
  }
}
