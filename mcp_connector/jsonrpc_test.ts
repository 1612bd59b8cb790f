import { assert, assertEquals } from "../tests/support/assert.ts";
import { classify, ErrorCode, StdioPeer } from "./jsonrpc.ts";

Deno.test("classify sorts lines into requests, notifications, responses and errors", () => {
  assertEquals(classify('{"jsonrpc":"2.0","id":1,"method":"m"}'), {
    kind: "request",
    id: 1,
    method: "m",
    params: {},
  });
  assertEquals(classify('{"jsonrpc":"2.0","method":"n","params":{"a":1}}'), {
    kind: "notification",
    method: "n",
    params: { a: 1 },
  });
  assertEquals(classify('{"jsonrpc":"2.0","id":"x","result":{}}'), { kind: "response", id: "x" });
  assertEquals((classify("{") as { code: number }).code, ErrorCode.parseError);
  assertEquals((classify("[]") as { code: number }).code, ErrorCode.invalidRequest);
  assertEquals(classify('{"jsonrpc":"2.0","id":true,"method":"m"}'), {
    kind: "invalid",
    id: null,
    code: ErrorCode.invalidRequest,
    message: "Invalid Request: id must be a string or an integer",
  });
  assertEquals(
    (classify('{"jsonrpc":"2.0","id":1,"method":"m","params":3}') as { code: number }).code,
    ErrorCode.invalidParams,
  );
});

Deno.test("a client that stops reading ends the connection instead of losing answers", async () => {
  const lines: string[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => {
      lines.push(new TextDecoder().decode(chunk));
      return new Promise(() => {}); // the client never reads again
    },
  }, { highWaterMark: 1 });
  const peer = new StdioPeer(writable, { maxWaiting: 4, maxBytes: 1 << 20 });
  for (let id = 1; id <= 6; id++) peer.result(id, {});
  const reason = await peer.stuck;
  assert(reason.includes("not keeping up"), reason);
  // Closing does not wait for a reader that is never coming back.
  await peer.close();
  assertEquals(lines.length, 1);
});
