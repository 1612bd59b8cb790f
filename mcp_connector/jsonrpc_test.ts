import { assert, assertEquals } from "../tests/support/assert.ts";
import { waitFor, within } from "../tests/support/wait.ts";
import { base64Length, MAX_UPLOAD_BYTES } from "../shared/transfer.ts";
import { classify, ErrorCode, idOfCutLine, MAX_LINE_BYTES, StdioPeer } from "./jsonrpc.ts";

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
  assertEquals(classify('{"jsonrpc":"2.0","id":"x","result":{}}'), {
    kind: "response",
    id: "x",
    result: {},
  });
  // A response carries what it says, for the request the connector sent (an elicitation).
  assertEquals(classify('{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}'), {
    kind: "response",
    id: 3,
    error: { code: -32601, message: "no" },
  });
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
  const peer = new StdioPeer(writable, { maxWaiting: 4, maxBytes: 1 << 20, stallMs: 60_000 });
  for (let id = 1; id <= 6; id++) peer.result(id, {});
  const reason = await peer.stuck;
  assert(reason.includes("not keeping up"), reason);
  // Closing does not wait for a reader that is never coming back.
  await peer.close();
  assertEquals(lines.length, 1);
});

Deno.test("the reader is held off while half the bounds wait, and let go as they drain", async () => {
  const release: (() => void)[] = [];
  let reading = false;
  const writable = new WritableStream<Uint8Array>({
    write: () => reading ? undefined : new Promise<void>((resolve) => release.push(resolve)),
  }, { highWaterMark: 1 });
  const peer = new StdioPeer(writable, { maxWaiting: 8, maxBytes: 1 << 20, stallMs: 60_000 });
  for (let id = 1; id <= 3; id++) peer.result(id, {});
  let roomy = false;
  await Promise.race([peer.room().then(() => roomy = true), Promise.resolve()]);
  assert(roomy, "three of eight waiting leave room");
  peer.result(4, {});
  let freed = false;
  const room = peer.room().then(() => freed = true);
  // Nothing is written while the client takes nothing: the reader stays held off.
  await waitFor(() => Promise.resolve(release.length === 1), "the first write to wait");
  assert(!freed, "four of eight waiting hold the reader off");
  // Each answer the client takes brings the reader nearer; one below half lets it go.
  await waitFor(() => {
    release.shift()?.();
    return Promise.resolve(freed);
  }, "the reader to be let go");
  await room;
  reading = true;
  for (const resolve of release) resolve();
  await peer.close();
});

Deno.test("a client that leaves an answer unread past the stall bound is stuck", async () => {
  const writable = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) }, {
    highWaterMark: 1,
  });
  const peer = new StdioPeer(writable, { maxWaiting: 1024, maxBytes: 1 << 20, stallMs: 50 });
  peer.result(1, {});
  peer.result(2, {});
  // The stall check's timer does not keep a process alive; this test's own wait does.
  const reason = await within(peer.stuck, 10_000, "the client to be found stuck");
  assert(reason.includes("has not read its answers"), reason);
  await peer.close();
});

Deno.test("the line bound admits the largest upload a tool accepts, with its request", () => {
  const request = {
    jsonrpc: "2.0",
    id: 12,
    method: "tools/call",
    params: {
      name: "file_upload",
      arguments: {
        tabId: 4294967297,
        ref: "ref_123",
        files: [{ name: "x".repeat(255), mimeType: "application/octet-stream", data: "" }],
      },
      _meta: { progressToken: "p".repeat(1000) },
    },
  };
  const envelope = JSON.stringify(request).length + 1;
  assert(base64Length(MAX_UPLOAD_BYTES) + envelope + 512 * 1024 < MAX_LINE_BYTES);
});

Deno.test("a line too long to parse still yields its request id, from its start or its end", () => {
  assertEquals(
    idOfCutLine('{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"a":"xx', ""),
    41,
  );
  assertEquals(idOfCutLine('{"id" : "r-1", "params": {', ""), "r-1");
  // Nested ids are not the request's.
  assertEquals(
    idOfCutLine('{"method":"m","params":{"id":5,"x":"yyy', 'yyy"},"jsonrpc":"2.0","id":9}'),
    9,
  );
  assertEquals(idOfCutLine('{"method":"m","params":{"id":5,"x":"yy', 'yy","id":6}}'), null);
  assertEquals(idOfCutLine("aaaa", "aaaa"), null);
  assertEquals(idOfCutLine('{"id":true,"x":"', ""), null);
  assertEquals(idOfCutLine('{"a":"\\"}","id":3,"p":"', ""), 3);
});
