/**
 * Bad input at every hop, against the real processes under their own permission sets: an
 * oversized stdio line, frames over a hop's cap, malformed frames, a fake service that cannot
 * prove itself, and a connector whose proof came too late.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BRIDGE_MAX_FRAME } from "../shared/bridge.ts";
import { FROM_EXTENSION_MAX_FRAME } from "../shared/browser_protocol.ts";
import { encodeFrame, FrameReader } from "../shared/framing.ts";
import { MAX_LINE_BYTES } from "../mcp_connector/jsonrpc.ts";
import { acceptAndProve, connectAndVerify, type HandshakeRefusal } from "../shared/handshake.ts";
import { VERSION } from "../shared/version.ts";
import { type InstancePaths, resolveInstancePaths } from "../shared/instance.ts";
import { ensureKeys } from "../service/endpoint/mod.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { executable, makeTestEnv, type TestEnv } from "./support/env.ts";
import { startService } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";

function pathsOf(testEnv: TestEnv): InstancePaths {
  return resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
}

function spawn(
  testEnv: TestEnv,
  name: "service" | "mcp-connector" | "browser-connector",
  args: string[],
): Deno.ChildProcess {
  const { command, args: full } = executable(testEnv, name, args);
  return new Deno.Command(command, {
    args: full,
    env: testEnv.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // The peer closed it first.
  }
}

function header(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length, true);
  return out;
}

async function readLines(stream: ReadableStream<Uint8Array>, count: number): Promise<unknown[]> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n").length <= count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split("\n").slice(0, count).map((line) => JSON.parse(line));
}

Deno.test("an oversized stdio line gets one error and the stream resynchronises", async () => {
  const testEnv = await makeTestEnv();
  const connector = spawn(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  try {
    const writer = connector.stdin.getWriter();
    const encoder = new TextEncoder();
    await writer.write(encoder.encode("a".repeat(MAX_LINE_BYTES + 10) + "\n"));
    // A request over the bound is still answered, with its id, so the client is not left waiting.
    const big = `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"x":"${
      "b".repeat(MAX_LINE_BYTES)
    }"}}\n`;
    await writer.write(encoder.encode(big));
    await writer.write(encoder.encode('{"jsonrpc":"2.0","id":7,"method":"ping"}\n'));
    const [first, second, third] = await readLines(connector.stdout, 3) as {
      id: unknown;
      error?: { code: number; message: string };
    }[];
    assertEquals(first.id, null);
    assertEquals(first.error?.code, -32600);
    assertMatch(first.error!.message, new RegExp(`over the ${MAX_LINE_BYTES}-byte limit`));
    assertEquals(second.id, "big-1");
    assertEquals(second.error?.code, -32600);
    assertEquals(third.id, 7, "the next line is read normally");
    await writer.close();
    assertEquals((await connector.status).code, 0);
  } finally {
    await connector.stderr.cancel();
    await testEnv.dispose();
  }
});

Deno.test("the service drops a connection that sends an oversized or malformed frame", async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  const service = spawn(testEnv, "service", ["--instance", testEnv.instance, "service"]);
  try {
    const connect = () =>
      connectAndVerify({
        socket: paths.bridgeSocket,
        keys: paths.keys,
        role: "mcp",
        maxFrame: BRIDGE_MAX_FRAME,
      });
    await waitFor(
      () => connect().then((c) => (closeQuietly(c.conn), true), () => false),
      "the service",
    );

    const catalogWorks = async () => {
      const opened = await connect();
      await opened.writer.write(encodeFrame({ type: "catalog", seq: 1 }, 1024));
      const reply = await opened.reader.next() as { type: string; tools: unknown[] };
      closeQuietly(opened.conn);
      return reply.type === "catalog" && reply.tools.length > 0;
    };

    const oversized = await connect();
    await oversized.writer.write(header(BRIDGE_MAX_FRAME + 1));
    assertEquals(await oversized.reader.next(), null, "an oversized frame ends the connection");
    closeQuietly(oversized.conn);
    assert(await catalogWorks(), "other connections are unaffected");

    const malformed = await connect();
    await malformed.writer.write(
      new Uint8Array([...header(5), ...new TextEncoder().encode("{oops")]),
    );
    assertEquals(await malformed.reader.next(), null, "a malformed frame ends the connection");
    closeQuietly(malformed.conn);

    const unknown = await connect();
    await unknown.writer.write(encodeFrame({ type: "launch_missiles", seq: 1 }, 1024));
    assertEquals(await unknown.reader.next(), null, "an unknown message ends the connection");
    closeQuietly(unknown.conn);
    assert(await catalogWorks(), "the service still serves");

    // A browser connection is held to the same rules.
    const browserConn = await connectAndVerify({
      socket: paths.browserSocket,
      keys: paths.keys,
      role: "browser",
      maxFrame: BRIDGE_MAX_FRAME,
    });
    await browserConn.writer.write(header(FROM_EXTENSION_MAX_FRAME + 1));
    assertEquals(await browserConn.reader.next(), null);
    closeQuietly(browserConn.conn);

    // The wrong role on a socket is refused with a reason.
    await assertRejects(
      () =>
        connectAndVerify({
          socket: paths.browserSocket,
          keys: paths.keys,
          role: "mcp",
          maxFrame: 1024,
        }),
      /this socket serves browser connectors/,
    );
  } finally {
    service.kill("SIGTERM");
    assertEquals((await service.status).code, 0);
    await service.stdout.cancel();
    await service.stderr.cancel();
    await testEnv.dispose();
  }
});

Deno.test("the browser connector refuses a frame from Chrome over 64 MiB", async () => {
  const testEnv = await makeTestEnv();
  const connector = spawn(testEnv, "browser-connector", ["--instance", testEnv.instance]);
  try {
    const writer = connector.stdin.getWriter();
    await writer.write(header(FROM_EXTENSION_MAX_FRAME + 1));
    const status = await connector.status;
    assertEquals(status.code, 1);
    const stderr = new TextDecoder().decode(
      (await new Response(connector.stderr).arrayBuffer()) as ArrayBuffer,
    );
    assertMatch(stderr, /exceeds this hop's cap of 67108864 bytes/);
    await writer.close().catch(() => {});
  } finally {
    await connector.stdout.cancel().catch(() => {});
    await testEnv.dispose();
  }
});

Deno.test("a connector refuses a fake service that cannot prove itself", async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  await Deno.mkdir(paths.runtimeDir, { recursive: true, mode: 0o700 });
  await Deno.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  await ensureKeys(paths);
  const listener = Deno.listen({ transport: "unix", path: paths.bridgeSocket });
  const received: unknown[] = [];
  let hungUp = 0;
  const fake = (async () => {
    for await (const conn of listener) {
      const reader = new FrameReader(conn.readable, 1024 * 1024);
      received.push(await reader.next());
      await conn.write(encodeFrame({
        type: "hello",
        bridge_major: 1,
        proof: btoa("not the right proof, not even close!"),
        challenge: btoa("a challenge that is long enough to pass"),
        service: { version: "6.6.6", instance: testEnv.instance, pid: 1 },
      }, 1024));
      try {
        while ((await reader.next()) !== null) received.push("more");
      } catch {
        // The connector hung up.
      }
      hungUp++;
    }
  })();
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "impostor-test", version: "1.0.0" });
  try {
    const error = await assertRejects(
      () =>
        client.connect(
          new StdioClientTransport({ command, args, env: testEnv.env, stderr: "pipe" }),
        ),
      /refusing to talk to the process on .*bridge\.sock: it could not prove it holds the service's key/,
    );
    assertMatch(error.message, /not this user's Ghostlight service/);
    // Whatever the connector sent reached the fake before its hang-up did.
    await waitFor(() => Promise.resolve(hungUp > 0), "the connector to hang up");
    assertEquals(received.length, 1, "the connector sent its hello and nothing else");
    assertEquals((received[0] as { type: string }).type, "hello");
  } finally {
    await client.close().catch(() => {});
    listener.close();
    await fake.catch(() => {});
    await testEnv.dispose();
  }
});

Deno.test("a connector told its proof came too late connects again and is served", async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  await Deno.mkdir(paths.runtimeDir, { recursive: true, mode: 0o700 });
  await Deno.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  const keys = await ensureKeys(paths);
  // The first connection meets the service's own handshake with no time at all for the proof, as
  // on a machine too busy to answer within the wait; then the real service takes the socket.
  const listener = Deno.listen({ transport: "unix", path: paths.bridgeSocket });
  const refusals: HandshakeRefusal[] = [];
  let service: Deno.ChildProcess | null = null;
  const late = (async () => {
    const conn = await listener.accept();
    const opened = await acceptAndProve(conn, {
      expectedRole: "mcp",
      signer: keys.signer,
      roleKey: keys.roles.mcp,
      service: { version: VERSION, instance: testEnv.instance, pid: Deno.pid },
      maxFrame: BRIDGE_MAX_FRAME,
      proofTimeoutMs: 0,
      onRefused: (why) => refusals.push(why),
    });
    assertEquals(opened, null);
    closeQuietly(conn);
    listener.close();
    await Deno.remove(paths.bridgeSocket).catch(() => {});
    service = startService(testEnv);
  })();
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "late-proof-test", version: "1.0.0" });
  try {
    await client.connect(new StdioClientTransport({ command, args, env: testEnv.env }));
    await late;
    assertEquals(refusals, ["late_proof"], "the first handshake ended for lateness only");
    const { tools } = await client.listTools();
    assert(
      tools.some((tool: { name: string }) => tool.name === "tabs_context_mcp"),
      "the real service answered",
    );
  } finally {
    await client.close().catch(() => {});
    try {
      listener.close();
    } catch {
      // Closed once the late handshake ended.
    }
    await late.catch(() => {});
    const started = service as Deno.ChildProcess | null;
    if (started) {
      started.kill("SIGTERM");
      await started.status;
    }
    await testEnv.dispose();
  }
});
