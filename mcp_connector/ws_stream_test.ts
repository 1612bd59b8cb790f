import { assert, assertEquals, assertMatch } from "../tests/support/assert.ts";
import { within } from "../tests/support/wait.ts";
import { openTunnel } from "./ws_stream.ts";

/** A WebSocket server on 127.0.0.1 that hands each accepted socket to `accepted`. */
function server(accepted: (socket: WebSocket, auth: string | null) => void) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const auth = request.headers.get("authorization");
    const { socket, response } = Deno.upgradeWebSocket(request);
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
  const host = server((socket) => {
    socket.onopen = () => socket.send(message(1, "x".repeat(2_000)));
  });
  const url = new URL(`ws://127.0.0.1:${host.addr.port}/`);
  const tunnel = await openTunnel(url, null, { stallMs: 5_000, maxInboundFrame: 1_024 });
  const why = await within(tunnel.closed, 10_000, "the tunnel to close");
  assertMatch(why, /a frame of \d+ bytes, over 1024/);
  assert(!why.includes("xxxx"));
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
