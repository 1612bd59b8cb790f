import { assertEquals } from "../tests/support/assert.ts";
import { backoffDelay } from "./backoff.ts";

Deno.test("the back-off doubles from its first wait, stops at its cap, and jitters into the upper half", () => {
  assertEquals([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, 500, 30_000, () => 1)), [
    500,
    1_000,
    2_000,
    4_000,
  ]);
  assertEquals(backoffDelay(0, 500, 30_000, () => 0), 250);
  assertEquals(backoffDelay(12, 500, 30_000, () => 1), 30_000);
  assertEquals(backoffDelay(12, 500, 30_000, () => 0), 15_000);
  // A very long run of failures neither overflows nor passes the cap.
  assertEquals(backoffDelay(10_000, 500, 30_000, () => 1), 30_000);
});
