import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "../tests/support/assert.ts";
import { CallRestriction } from "../shared/bridge.ts";
import { CallBook, connectorRestriction, MAX_OPEN_REQUESTS } from "./calls.ts";
import { ErrorCode, RpcError, StdioPeer } from "./jsonrpc.ts";
import { ServiceLink } from "./service_link.ts";

/**
 * A call book whose client output lands in `lines`; with `held`, each write is seen at once but
 * completes only when `held` resolves (a client pipe that has not drained yet).
 */
function book(held?: Promise<void>): { calls: CallBook; lines: string[] } {
  const lines: string[] = [];
  const peer = new StdioPeer(
    new WritableStream({
      write: (chunk) => {
        lines.push(new TextDecoder().decode(chunk));
        return held;
      },
    }),
  );
  // A link that is never used here: nothing in this test reaches for the service.
  const link = new ServiceLink(
    resolveInstancePaths("unused", (key) => ({ HOME: "/nonexistent" })[key]),
    {
      name: "t",
      version: "1",
    },
  );
  return {
    calls: new CallBook(link, peer, {
      callDeadlineMs: 60_000,
      progressIntervalMs: 5_000,
      restrictCapabilities: undefined,
      restrictHosts: undefined,
    }),
    lines,
  };
}

Deno.test("open requests are bounded, and an id is free again once answered", async () => {
  const { calls, lines } = book();
  // Null: a cancelled call, for which nothing is sent.
  const waiting = Promise.withResolvers<null>();
  for (let id = 0; id < MAX_OPEN_REQUESTS; id++) calls.serve(id, () => waiting.promise);
  let refused: unknown = null;
  try {
    calls.admit("one too many");
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof RpcError && refused.code === ErrorCode.invalidRequest);
  calls.serve(0, () => Promise.resolve());
  waiting.resolve(null);
  await calls.drain(1_000);
  assertEquals(lines.length, 1);
  assertEquals(JSON.parse(lines[0]).error.message, "Request id 0 is already in use");
  calls.admit("one too many");
});

Deno.test("an id is free again before its answer is on its way, not after it was written", async () => {
  // The client may read the answer and reuse its id before this process hears that the write
  // completed: the id must be free by then.
  const written = Promise.withResolvers<void>();
  const { calls, lines } = book(written.promise);
  calls.serve(5, () => Promise.resolve({ ok: true }));
  for (let turn = 0; turn < 20 && lines.length === 0; turn++) await Promise.resolve();
  assertEquals(lines.length, 1, "the answer is out");
  calls.admit(5);
  written.resolve();
  calls.serve(6, () => Promise.reject(new RpcError(ErrorCode.invalidParams, "bad")));
  for (let turn = 0; turn < 20 && lines.length === 1; turn++) await Promise.resolve();
  calls.admit(6);
  await calls.drain(1_000);
});

Deno.test("a request cancelled before its call starts never runs", async () => {
  const { calls } = book();
  calls.admit(7);
  calls.cancel(7);
  assertEquals(
    await calls.run(7, {
      tool: "navigate",
      arguments: {},
      context: { client_name: "t", client_version: "1" },
    }),
    null,
  );
});

Deno.test("an environment restriction the bridge cannot carry still travels, and refuses", () => {
  const settings = (capabilities?: string[], hosts?: string[]) => ({
    callDeadlineMs: 60_000,
    progressIntervalMs: 5_000,
    restrictCapabilities: capabilities,
    restrictHosts: hosts,
  });
  // Passed on as written, the service took each call's start for a broken connector and ended
  // the session. What travels instead is within the bridge's bounds and names no capability the
  // service can read, so every call is refused with the reason, as for any unreadable value.
  for (
    const [capabilities, hosts] of [
      [Array(9).fill("read"), undefined],
      [["read", "write-everything-please"], undefined],
      [undefined, Array.from({ length: 65 }, (_, i) => `h${i}.test`)],
    ] as [string[] | undefined, string[] | undefined][]
  ) {
    const restriction = connectorRestriction(settings(capabilities, hosts));
    assert(CallRestriction.safeParse(restriction).success, JSON.stringify(restriction));
    assertEquals(restriction?.capabilities?.length, 1);
    assert(!["read", "action", "write", "execute"].includes(restriction!.capabilities![0]));
  }
  // One the bridge carries travels as written.
  assertEquals(connectorRestriction(settings(["read"], ["a.test"]))?.capabilities, ["read"]);
});
