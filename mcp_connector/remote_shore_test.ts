import { assert, assertEquals } from "../tests/support/assert.ts";
import { RECONNECT, reconnectDelay } from "./remote_shore.ts";

Deno.test("reconnect waits double from 0.5 s, are capped at 30 s and jittered into [half, whole]", () => {
  assertEquals(reconnectDelay(0, 500, () => 0), 250);
  assertEquals(reconnectDelay(0, 500, () => 1), 500);
  assertEquals(reconnectDelay(1, 500, () => 1), 1_000);
  assertEquals(reconnectDelay(5, 500, () => 1), 16_000);
  for (const attempt of [6, 7, 20, 1_000]) {
    assertEquals(reconnectDelay(attempt, 500, () => 1), 30_000);
    assertEquals(reconnectDelay(attempt, 500, () => 0), 15_000);
  }
  for (let i = 0; i < 200; i++) {
    const wait = reconnectDelay(i % 10, 500);
    assert(wait >= 250 && wait <= 30_000, `${wait} is within the bounds`);
  }
  // Eight failed setups in a row at most: the whole run of waits is bounded.
  let total = 0;
  for (let attempt = 0; attempt < RECONNECT.maxFailedSetups; attempt++) {
    total += reconnectDelay(attempt, 500, () => 1);
  }
  assert(total <= 2 * 60_000 + 4_000, `at most about two minutes of waits (${total} ms)`);
  // A narrower first wait narrows the cap with it.
  assertEquals(reconnectDelay(20, 200, () => 1), 12_000);
});
