import { assert, assertEquals, assertMatch } from "../tests/support/assert.ts";
import { within } from "../tests/support/wait.ts";
import { openTunnel } from "./ws_stream.ts";

/** A WebSocket server on 127.0.0.1 that hands each accepted socket to `accepted`. */
function server(accepted: (socket: WebSocket, auth: string | null) => void, protocol?: string) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const auth = request.headers.get("authorization") ??
      request.headers.get("sec-websocket-protocol");
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol });
    accepted(socket, auth);
    return response;
  });
}

const message = (n: number, pad = "") =>
  JSON.stringify({ jsonrpc: "2.0", method: "x", params: { n, pad } });

Deno.test("the tunnel sends the token as a bearer header and passes messages both ways", async () => {
  const heard = Promise.withResolvers<{ auth: string | null; text: string }>();
  const host = server((socket, auth) => {
    socket.onopen = () => socket.send(message(1));
    socket.onmessage = (event) => heard.resolve({ auth, text: event.data });
  });
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const tunnel = await openTunnel(url, "a-token-of-sixteen+", { stallMs: 5_000 });
  const reader = tunnel.readable.getReader();
  assertEquals(((await reader.read()).value as { params: { n: number } }).params.n, 1);
  const writer = tunnel.writable.getWriter();
  await writer.write({ jsonrpc: "2.0", method: "y" });
  const { auth, text } = await within(heard.promise, 10_000, "the host to hear");
  assertEquals(auth, "Bearer a-token-of-sixteen+");
  assertEquals(JSON.parse(text).method, "y");
  tunnel.close("done");
  assertEquals(await tunnel.closed, "done");
  await host.shutdown();
});

Deno.test("an inbound frame over the bound closes the tunnel, and says so without its content", async () => {
  const hostSaw = Promise.withResolvers<number>();
  const host = server((socket) => {
    socket.onopen = () => socket.send(message(1, "x".repeat(2_000)));
    socket.onclose = (event) => hostSaw.resolve(event.code);
  });
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const tunnel = await openTunnel(url, null, { stallMs: 5_000, maxInboundFrame: 1_024 });
  const why = await within(tunnel.closed, 10_000, "the tunnel to close");
  assertMatch(why, /a frame of \d+ bytes, over 1024/);
  assert(!why.includes("xxxx"));
  // The socket itself is closed, with a code a client may send (1009 may not be: it would throw).
  assertEquals(await within(hostSaw.promise, 10_000, "the host to see the close"), 4009);
  await host.shutdown();
});

Deno.test("the openab carrier: bearer in the subprotocol offer; a method frame over its bound is answered, the tunnel kept", async () => {
  const heard = Promise.withResolvers<{ offer: string | null; text: string }>();
  const host = server((socket, offer) => {
    socket.onopen = () => {
      socket.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "big",
          params: { pad: "b".repeat(2_000) },
        }),
      );
      socket.send(message(2));
    };
    socket.onmessage = (event) => heard.resolve({ offer, text: event.data });
  }, "acp.v1");
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const tunnel = await openTunnel(
    url,
    "a-token-of-sixteen+",
    { stallMs: 5_000, maxMethodFrame: 1_024 },
    "subprotocol",
  );
  const { offer, text } = await within(heard.promise, 10_000, "the host to hear");
  assertEquals(offer, "openab.bearer.a-token-of-sixteen+, acp.v1");
  const answer = JSON.parse(text);
  assertEquals(answer.id, 7);
  assertEquals(answer.error.code, -32600);
  assertMatch(answer.error.message, /at most 1024 bytes/);
  // The small message after it still arrives: the tunnel was kept.
  const reader = tunnel.readable.getReader();
  assertEquals(((await reader.read()).value as { params: { n: number } }).params.n, 2);
  tunnel.close("done");
  await host.shutdown();
});

Deno.test("a token a subprotocol cannot carry, or a gateway that does not echo acp.v1, is refused", async () => {
  const host = server(() => {});
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const bad = await openTunnel(url, "has/a/slash/in/it/x", { stallMs: 1_000 }, "subprotocol")
    .then(() => "", (error: Error) => error.message);
  assertMatch(bad, /a character a WebSocket subprotocol cannot carry/);
  assert(!bad.includes("has/a/slash"));
  const unechoed = await openTunnel(url, "a-token-of-sixteen+", { stallMs: 1_000 }, "subprotocol")
    .then(() => "", (error: Error) => error.message);
  assertMatch(unechoed, /did not accept the acp\.v1 subprotocol|could not open/);
  await host.shutdown();
});

Deno.test("inbound messages not yet taken are bounded in bytes: past it the tunnel closes", async () => {
  const host = server((socket) => {
    socket.onopen = () => {
      for (let n = 0; n < 10; n++) socket.send(message(n, "y".repeat(500)));
    };
  });
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  // Nothing reads: the fourth message of ~540 bytes passes 2,000 bytes queued.
  const tunnel = await openTunnel(url, null, { stallMs: 5_000, maxInboundQueued: 2_000 });
  const why = await within(tunnel.closed, 10_000, "the tunnel to close");
  assertMatch(why, /more than 2000 bytes not yet taken/);
  await host.shutdown();
});

Deno.test("an outbound message over the budget is refused before it is sent", async () => {
  const host = server(() => {});
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const tunnel = await openTunnel(url, null, { stallMs: 200, maxOutbound: 1_000 });
  const writer = tunnel.writable.getWriter();
  const big = { jsonrpc: "2.0" as const, method: "z", params: { pad: "z".repeat(2_000) } };
  const refused = await writer.write(big).then(() => null, (error: Error) => error.message);
  assertMatch(refused ?? "", /over the 1000 bound/);
  tunnel.close("done");
  await host.shutdown();
});

Deno.test("ws:// to a host other than this machine is refused before any dial", async () => {
  const { readRemoteUrl } = await import("../shared/remotes.ts");
  let said = "";
  try {
    readRemoteUrl("ws://example.com/acp");
  } catch (error) {
    said = (error as Error).message;
  }
  assertMatch(said, /ws:\/\/ is not encrypted/);
  assertEquals(readRemoteUrl("wss://example.com/acp").host, "example.com");
  assertEquals(readRemoteUrl("ws://127.0.0.1:9/acp").port, "9");
  let withUser = "";
  try {
    readRemoteUrl("wss://me:secret@example.com/");
  } catch (error) {
    withUser = (error as Error).message;
  }
  assertMatch(withUser, /no user name or password/);
});

/**
 * A WebSocket host on 127.0.0.1 that completes the handshake and then never reads again, so the
 * shore's writes fill the kernel's buffers and then the socket's own.
 */
function deafHost() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(4_096);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buffer);
      if (n === null) break;
      head += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1] ?? "";
    const digest = await crypto.subtle.digest(
      "SHA-1",
      new TextEncoder().encode(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`),
    );
    const accept = btoa(String.fromCharCode(...new Uint8Array(digest)));
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    ));
    return conn;
  })();
  return {
    url: new URL(`ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/`),
    listener,
    accepted,
  };
}

Deno.test({
  name: "a host that stops reading: a write waits at most the stall bound, then the tunnel closes",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const host = deafHost();
    const stallMs = 300;
    const maxOutbound = 256 * 1024;
    const tunnel = await openTunnel(host.url, null, { stallMs, maxOutbound });
    const conn = await within(host.accepted, 10_000, "the handshake");
    const writer = tunnel.writable.getWriter();
    const chunk = { jsonrpc: "2.0" as const, method: "fill", params: { pad: "f".repeat(200_000) } };
    let refused = "";
    let written = 0;
    // Loopback's kernel buffers hold some megabytes; 400 writes of 200 kB is far past them.
    while (refused === "" && written < 400) {
      await writer.write(chunk).then(() => written++, (error: Error) => refused = error.message);
    }
    assertMatch(refused, /the tunnel is closed: the agent host did not read for 300 ms/);
    assertMatch(await within(tunnel.closed, 10_000, "the tunnel to close"), /did not read/);
    // Nothing more is taken once it closed.
    const after = await writer.write(chunk).then(() => "", (error: Error) => error.message);
    assertMatch(after, /closed/);
    conn.close();
    host.listener.close();
  },
});
