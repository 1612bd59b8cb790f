import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { pollUntil } from "../../tests/support/wait.ts";
import { requestControl } from "./client.ts";
import {
  MAX_CONTROL_BODY,
  MAX_CONTROL_CONNECTIONS,
  MAX_CONTROL_HEAD,
  serveControl,
} from "./serve_control.ts";

/** A control server on a fresh socket answering with the request's method, path and body. */
async function echoServer() {
  const testEnv = await makeTestEnv("ctl");
  const path = `${testEnv.home}/control.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const server = serveControl(
    listener,
    async (request) =>
      Response.json({
        method: request.method,
        path: new URL(request.url).pathname,
        body: await request.text(),
      }),
  );
  return {
    path,
    async close() {
      await server.shutdown();
      await testEnv.dispose();
    },
  };
}

/** Reads everything the server sends until it closes the connection. */
async function readAll(conn: Deno.Conn): Promise<string> {
  let text = "";
  try {
    for await (const chunk of conn.readable) text += new TextDecoder().decode(chunk);
  } catch (error) {
    // A peer that closes with our bytes unread resets the connection after its answer.
    if (!(error instanceof Deno.errors.ConnectionReset)) throw error;
  }
  return text;
}

Deno.test("the control server answers one request per connection, body included", async () => {
  const server = await echoServer();
  try {
    const got = await requestControl(server.path, { method: "GET", path: "/status" });
    assertEquals([got.status, JSON.parse(got.body)], [200, {
      method: "GET",
      path: "/status",
      body: "",
    }]);
    const posted = await requestControl(server.path, {
      method: "POST",
      path: "/person",
      body: '{"op":"hold"}',
    });
    assertEquals(JSON.parse(posted.body).body, '{"op":"hold"}');
  } finally {
    await server.close();
  }
});

Deno.test("at most MAX_CONTROL_CONNECTIONS at once: one more is refused, and served once one ends", async () => {
  const server = await echoServer();
  const held: Deno.Conn[] = [];
  try {
    // Connections that say nothing hold their places (until the read time limit).
    for (let n = 0; n < MAX_CONTROL_CONNECTIONS; n++) {
      held.push(await Deno.connect({ transport: "unix", path: server.path }));
    }
    const past = await Deno.connect({ transport: "unix", path: server.path });
    assertMatch(await readAll(past), /^HTTP\/1\.1 503 [\s\S]*too many control connections/);
    held.pop()!.close();
    // The place is given back once the server has seen the close (until then a request may be
    // refused, or reset if it was sent before the refusal): poll for it, bounded.
    await pollUntil(
      () => requestControl(server.path, { method: "GET", path: "/x" }),
      (answer) => answer.status === 200,
      "a place freed by a closed connection to be served again",
    );
  } finally {
    for (const conn of held) conn.close();
    await server.close();
  }
});

Deno.test("a head or body over its bound is refused with its status, before the handler", async () => {
  const server = await echoServer();
  try {
    const head = await Deno.connect({ transport: "unix", path: server.path });
    await head.write(new TextEncoder().encode(`GET /${"x".repeat(MAX_CONTROL_HEAD)} HTTP/1.1\r\n`));
    assertMatch(await readAll(head), /^HTTP\/1\.1 431 /);
    const body = await Deno.connect({ transport: "unix", path: server.path });
    await body.write(
      new TextEncoder().encode(
        `POST /person HTTP/1.1\r\nContent-Length: ${MAX_CONTROL_BODY + 1}\r\n\r\n`,
      ),
    );
    assertMatch(await readAll(body), /^HTTP\/1\.1 413 /);
    const malformed = await Deno.connect({ transport: "unix", path: server.path });
    await malformed.write(new TextEncoder().encode("NONSENSE\r\n\r\n"));
    assertMatch(await readAll(malformed), /^HTTP\/1\.1 400 /);
  } finally {
    await server.close();
  }
});

Deno.test("fetch through a Unix-socket client (absolute-form targets) is answered", async () => {
  const server = await echoServer();
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: server.path } });
  try {
    const response = await fetch("http://ghostlight/status?x=1", { client });
    assertEquals([response.status, (await response.json()).path], [200, "/status"]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a client that never finishes its request is cut off at the read time limit", async () => {
  const server = await echoServer();
  try {
    const slow = await Deno.connect({ transport: "unix", path: server.path });
    await slow.write(new TextEncoder().encode("GET /status HTTP/1.1\r\n"));
    // The server closes it: the read ends (bounded by the test runner's own limits).
    assertEquals(await readAll(slow), "");
  } finally {
    await server.close();
  }
});
