import { assertEquals } from "../../tests/support/assert.ts";
import { median } from "./probe.ts";

Deno.test("the median is the middle sample, or the mean of the two middle ones", () => {
  assertEquals(median([9, 1, 5]), 5, "unsorted, odd count");
  assertEquals(median([4, 1, 3, 2]), 2.5, "even count");
  assertEquals(median([7]), 7);
  assertEquals(median([]), null, "no samples: no figure");
  const samples = [3, 1, 2];
  median(samples);
  assertEquals(samples, [3, 1, 2], "the samples are left in their order");
});
