/**
 * The wait before trying again: doubling from the first wait to a cap, then jittered into the
 * upper half, so that many shores or links cut at once do not all come back in one instant.
 *
 * @module
 */

/** The wait before attempt `attempt` (0 first): doubling from `firstMs`, capped, into [half, whole]. */
export function backoffDelay(
  attempt: number,
  firstMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const whole = Math.min(capMs, firstMs * 2 ** Math.min(attempt, 16));
  return Math.round(whole / 2 + (whole / 2) * random());
}
