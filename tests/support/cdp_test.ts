import { assertEquals, assertRejects } from "./assert.ts";
import { connectCdp } from "./cdp.ts";

/**
 * A stand-in DevTools endpoint: it answers nothing on its own; `peer` resolves with the server's
 * end of the first connection, so a test sends events or closes it.
 */
function fakeDevTools(): { endpoint: string; peer: Promise<WebSocket>; stop(): Promise<void> } {
  let accepted!: (socket: WebSocket) => void;
  const peer = new Promise<WebSocket>((resolve) => accepted = resolve);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onopen = () => accepted(socket);
    return response;
  });
  return {
    endpoint: `ws://127.0.0.1:${server.addr.port}/devtools/browser`,
    peer,
    stop: () => server.shutdown(),
  };
}

Deno.test("an event awaited is handed over once it comes", async () => {
  const devtools = fakeDevTools();
  const cdp = await connectCdp(devtools.endpoint);
  try {
    const loaded = cdp.nextEvent("Page.loadEventFired", "s1");
    const peer = await devtools.peer;
    peer.send(JSON.stringify({ method: "Page.loadEventFired", params: { n: 1 }, sessionId: "s2" }));
    peer.send(JSON.stringify({ method: "Page.loadEventFired", params: { n: 2 }, sessionId: "s1" }));
    assertEquals(await loaded, { n: 2 }, "the event of the session asked about");
  } finally {
    cdp.close();
    await devtools.stop();
  }
});

Deno.test("closing the connection ends what still waits on it, saying so", async () => {
  const devtools = fakeDevTools();
  const cdp = await connectCdp(devtools.endpoint);
  try {
    await devtools.peer;
    const event = cdp.nextEvent("Debugger.paused", "s1");
    const answer = cdp.send("Target.getTargets");
    cdp.close();
    await assertRejects(() => event, /closed by the test while a test awaited Debugger\.paused/);
    await assertRejects(() => answer, /closed by the test while Target\.getTargets awaited/);
    // Asked after closing: refused at once.
    await assertRejects(() => cdp.nextEvent("Page.loadEventFired"), /closed by the test/);
  } finally {
    await devtools.stop();
  }
});

Deno.test("the browser closing the connection ends what waits on it", async () => {
  const devtools = fakeDevTools();
  const cdp = await connectCdp(devtools.endpoint);
  try {
    const event = cdp.nextEvent("Debugger.paused");
    (await devtools.peer).close();
    await assertRejects(() => event, /closed by the browser/);
  } finally {
    cdp.close();
    await devtools.stop();
  }
});
