import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals } from "../tests/support/assert.ts";
import { CallBook, MAX_OPEN_REQUESTS } from "./calls.ts";
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
