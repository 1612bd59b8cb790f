/**
 * A one-entry memory for a pure function of a string: a call shows and judges its page's URL
 * several times, and consecutive calls on one page the same URL, so the last answer is the one
 * most often asked again.
 *
 * @module
 */

/** `compute`, answering at once when asked again for the argument it was last given. */
export function rememberLast<T>(compute: (raw: string) => T): (raw: string) => T {
  let last: { raw: string; value: T } | null = null;
  return (raw) => {
    if (last?.raw === raw) return last.value;
    const value = compute(raw);
    last = { raw, value };
    return value;
  };
}
