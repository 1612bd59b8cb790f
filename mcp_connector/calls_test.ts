import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "../tests/support/assert.ts";
import { CallRestriction } from "../shared/bridge.ts";
import { CallBook, connectorRestriction, MAX_OPEN_REQUESTS } from "./calls.ts";
import { ErrorCode, RpcError, StdioPeer } from "./jsonrpc.ts";
import { ServiceLink } from "./service_link.ts";

function book(): { calls: CallBook; lines: string[] } {
  const lines: string[] = [];
  const peer = new StdioPeer(
    new WritableStream({
      write: (chunk) => void lines.push(new TextDecoder().decode(chunk)),
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
  const waiting = Promise.withResolvers<void>();
  for (let id = 0; id < MAX_OPEN_REQUESTS; id++) calls.serve(id, () => waiting.promise);
  let refused: unknown = null;
  try {
    calls.admit("one too many");
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof RpcError && refused.code === ErrorCode.invalidRequest);
  calls.serve(0, () => Promise.resolve());
  waiting.resolve();
  await calls.drain(1_000);
  assertEquals(lines.length, 1);
  assertEquals(JSON.parse(lines[0]).error.message, "Request id 0 is already in use");
  calls.admit("one too many");
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
