import { assertEquals } from "../../tests/support/assert.ts";
import { parseResponse } from "./client.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("a control answer is read with a fixed length or in chunks, UTF-8 intact", () => {
  assertEquals(
    parseResponse(bytes('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\n{"a":"é"}')),
    { status: 200, body: '{"a":"é"}' },
  );
  const body = bytes('{"a":"é"}');
  const chunked = new Uint8Array([
    ...bytes(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n`),
    ...body.subarray(0, 4),
    ...bytes(`\r\n${(body.length - 4).toString(16)}\r\n`),
    ...body.subarray(4),
    ...bytes("\r\n0\r\n\r\n"),
  ]);
  assertEquals(parseResponse(chunked), { status: 200, body: '{"a":"é"}' });
});
