/**
 * Small assertions (the standard library's are on JSR, which our machines cannot reach).
 *
 * @module
 */

/** Fails with `message` unless `condition` holds. */
export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

/** Fails unless the two values are deeply equal (compared as JSON with sorted keys). */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  const a = stableJson(actual);
  const b = stableJson(expected);
  if (a !== b) throw new Error(`${message ? `${message}: ` : ""}expected ${b}\n   actual ${a}`);
}

/** Fails unless `text` matches `pattern`. */
export function assertMatch(text: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(text)) {
    throw new Error(
      `${message ? `${message}: ` : ""}${
        JSON.stringify(text.slice(0, 2000))
      } does not match ${pattern}`,
    );
  }
}

/** Fails unless `fn` rejects with an error whose message matches `pattern`. */
export async function assertRejects(fn: () => Promise<unknown>, pattern: RegExp): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!pattern.test(message)) {
      throw new Error(`rejected with ${JSON.stringify(message)}, expected ${pattern}`);
    }
    return error as Error;
  }
  throw new Error(`expected a rejection matching ${pattern}`);
}

function stableJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      item && typeof item === "object" && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
        : item,
  );
}
