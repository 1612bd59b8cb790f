import { assertEquals } from "../tests/support/assert.ts";
import { writeAll } from "./handshake.ts";

Deno.test("a hello is written whole even when each write takes only a few bytes", async () => {
  const received: number[] = [];
  const trickle = {
    write: (bytes: Uint8Array) => {
      const taken = bytes.subarray(0, 3);
      received.push(...taken);
      return Promise.resolve(taken.length);
    },
  };
  const hello = new TextEncoder().encode('{"type":"hello","role":"mcp"}');
  await writeAll(trickle, hello);
  assertEquals(received, [...hello]);
});
