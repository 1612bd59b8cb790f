/**
 * Admitted peers only, against a real service process under its own permissions: a connector
 * proves its role's key before anything of it is read or routed to it, a browser id cannot be
 * taken by a link without the proof, each socket holds a bounded number of connections, and the
 * browser hello's fields are bounded.
 */

import { BRIDGE_MAJOR, BRIDGE_MAX_FRAME, type Role } from "../shared/bridge.ts";
import {
  BROWSER_ID,
  FROM_EXTENSION_MAX_FRAME,
  MAX_EXTENSION_VERSION,
} from "../shared/browser_protocol.ts";
import { encodeFrame, FrameReader } from "../shared/framing.ts";
import { connectAndVerify, type OpenedConnection, writeAll } from "../shared/handshake.ts";
import { freshNonce } from "../shared/proof.ts";
import { fetchStatus } from "../service/control/mod.ts";
import {
  MAX_BRIDGE_CONNECTIONS,
  MAX_BROWSER_CONNECTIONS,
} from "../service/daemon/connection_gate.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { makeTestEnv, type TestEnv } from "./support/env.ts";
import { startService } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";

/** A running service for one test, stopped and cleaned up by `close`. */
async function serviceFor(): Promise<{ testEnv: TestEnv; close(): Promise<void> }> {
  const testEnv = await makeTestEnv("peer");
  const service = startService(testEnv);
  const { controlSocket } = testEnv.plan.paths;
  await waitFor(() => fetchStatus(controlSocket).then(() => true), "the service");
  return {
    testEnv,
    async close() {
      service.kill("SIGTERM");
      await service.status;
      await testEnv.dispose();
    },
  };
}

function connect(testEnv: TestEnv, role: Role): Promise<OpenedConnection<unknown>> {
  const paths = testEnv.plan.paths;
  return connectAndVerify({
    socket: role === "mcp" ? paths.bridgeSocket : paths.browserSocket,
    keys: paths.keys,
    role,
    maxFrame: role === "mcp" ? BRIDGE_MAX_FRAME : FROM_EXTENSION_MAX_FRAME,
  });
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

/** Every frame a connection receives until the service closes it. */
async function framesUntilClosed(reader: FrameReader): Promise<unknown[]> {
  const frames: unknown[] = [];
  try {
    for (let frame = await reader.next(); frame !== null; frame = await reader.next()) {
      frames.push(frame);
    }
  } catch {
    // A reset counts as closed.
  }
  return frames;
}

function extensionHello(browserId: string, version = "1.0.0"): Record<string, unknown> {
  return { type: "hello", browser_id: browserId, extension_version: version, user_agent: "t" };
}

/**
 * A peer that can reach the browser socket but not the secret: it says hello, answers the
 * challenge with `proof` (none at all when null), then claims `browserId` and waits for work.
 */
async function unprovenBrowser(
  testEnv: TestEnv,
  options: { proof: string | null; browserId: string },
): Promise<unknown[]> {
  const conn = await Deno.connect({ transport: "unix", path: testEnv.plan.paths.browserSocket });
  const reader = new FrameReader(conn.readable, 1024 * 1024);
  const hello = { type: "hello", bridge_major: BRIDGE_MAJOR, role: "browser", nonce: freshNonce() };
  await writeAll(conn, encodeFrame(hello, 1024));
  const frames = [await reader.next()];
  if (options.proof !== null) {
    await writeAll(conn, encodeFrame({ type: "proof", proof: options.proof }, 1024));
  }
  await writeAll(conn, encodeFrame(extensionHello(options.browserId), 1024)).catch(() => {});
  frames.push(...await framesUntilClosed(reader));
  closeQuietly(conn);
  return frames;
}

Deno.test("a browser link without the proof gets no work and cannot take a browser id", async () => {
  const { testEnv, close } = await serviceFor();
  const status = () => fetchStatus(testEnv.plan.paths.controlSocket);
  const browserId = "first-browser-0001";
  assert(BROWSER_ID.test(browserId));
  const first = await connect(testEnv, "browser");
  try {
    await first.writer.write(encodeFrame(extensionHello(browserId), 1024));
    await waitFor(async () => (await status()).browsers.length === 1, "the first browser");
    const slot = (await status()).browsers[0].slot;

    for (const proof of [null, btoa("a guess at the proof that is long enough")]) {
      const frames = await unprovenBrowser(testEnv, { proof, browserId });
      const types = frames.map((frame) => (frame as { type: string } | null)?.type);
      // Its hello was answered (with the service's own proof and a challenge), then nothing but
      // a refusal: no command ever reached it.
      assertEquals(types[0], "hello");
      assert(types.slice(1).every((type) => type === "refused"), `got ${types}`);
      if (proof !== null) {
        assertMatch(
          (frames[1] as { message: string }).message,
          /could not prove it holds this instance's browser key/,
        );
      }
    }

    // The first link still holds its browser id and slot, and work still goes to it.
    const after = await status();
    assertEquals(after.browsers.map((browser) => browser.slot), [slot]);
    const mcp = await connect(testEnv, "mcp");
    try {
      await mcp.writer.write(encodeFrame({ type: "open_workspace", seq: 1, label: "t" }, 1024));
      const opened = await mcp.reader.next() as { type: string; workspace: string };
      assertEquals(opened.type, "workspace_opened");
      await mcp.writer.write(encodeFrame({
        type: "start",
        seq: 2,
        tool: "tabs_create_mcp",
        arguments: {},
        workspace: opened.workspace,
        context: { client_name: "peers-test", client_version: "1" },
      }, 64 * 1024));
      const command = await first.reader.next() as { type: string; op: string };
      assertEquals([command.type, command.op], ["command", "tab.create"]);
    } finally {
      closeQuietly(mcp.conn);
    }
  } finally {
    closeQuietly(first.conn);
    await close();
  }
});

Deno.test("a connector's hello past its frame cap is not read", async () => {
  const { testEnv, close } = await serviceFor();
  try {
    const conn = await Deno.connect({ transport: "unix", path: testEnv.plan.paths.bridgeSocket });
    const reader = new FrameReader(conn.readable, 1024 * 1024);
    const padded = {
      type: "hello",
      bridge_major: BRIDGE_MAJOR,
      role: "mcp",
      nonce: freshNonce(),
      client: { name: "x".repeat(17_000), version: "1" },
    };
    await writeAll(conn, encodeFrame(padded, 1024 * 1024));
    assertEquals(await framesUntilClosed(reader), [], "closed without an answer");
    closeQuietly(conn);
  } finally {
    await close();
  }
});

for (
  const [role, max] of [["mcp", MAX_BRIDGE_CONNECTIONS], ["browser", MAX_BROWSER_CONNECTIONS]] as [
    Role,
    number,
  ][]
) {
  Deno.test(`the ${role} socket holds ${max} connections; one past is refused`, async () => {
    const { testEnv, close } = await serviceFor();
    const held: OpenedConnection<unknown>[] = [];
    try {
      for (let i = 0; i < max; i++) held.push(await connect(testEnv, role));
      await assertRejects(
        () => connect(testEnv, role),
        new RegExp(`socket already holds ${max} connections; close one and retry`),
      );
      closeQuietly(held.pop()!.conn);
      // Its place is given back once the service has seen it close.
      await waitFor(
        () => connect(testEnv, role).then((opened) => (held.push(opened), true)),
        "a place to free up",
      );
      const log = await Deno.readTextFile(testEnv.plan.paths.logFile);
      assertEquals(log.split("\n").filter((line) => line.includes("already holds")).length, 1);
    } finally {
      for (const opened of held) closeQuietly(opened.conn);
      await close();
    }
  });
}

Deno.test("a browser hello's version is held to its bound and to one line", async () => {
  const { testEnv, close } = await serviceFor();
  const browsers = async () => (await fetchStatus(testEnv.plan.paths.controlSocket)).browsers;
  try {
    for (
      const version of ["1".repeat(MAX_EXTENSION_VERSION + 1), "1.0\n2026-01-01 error forged"]
    ) {
      const link = await connect(testEnv, "browser");
      await link.writer.write(encodeFrame(extensionHello("bad-version-01", version), 4096));
      assertEquals(await framesUntilClosed(link.reader), [], "the link is closed");
      closeQuietly(link.conn);
    }
    assertEquals(await browsers(), []);
    const atBound = await connect(testEnv, "browser");
    const version = "1".repeat(MAX_EXTENSION_VERSION);
    await atBound.writer.write(encodeFrame(extensionHello("good-version-1", version), 4096));
    await waitFor(async () => (await browsers()).length === 1, "the browser at the bound");
    assertEquals((await browsers())[0].extensionVersion, version);
    closeQuietly(atBound.conn);
    const log = await Deno.readTextFile(testEnv.plan.paths.logFile);
    assert(!log.includes("error forged"), "no peer's words were logged raw");
  } finally {
    await close();
  }
});
