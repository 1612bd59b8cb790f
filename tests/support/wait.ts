/**
 * The one place tests wait. A test waits on an observable state with a generous bound, never on
 * a fixed sleep that the code under test might outrun or lag behind: these machines are shared
 * and a two-core runner under load can be ten times slower than a quiet one. The architecture
 * test refuses a timer anywhere else in the tests.
 *
 * @module
 */

/** The default bound for a wait: generous, since reaching it means the test fails. */
export const WAIT_MS = 30_000;

/**
 * How often a condition is polled once it has not held for a while. The first polls come sooner
 * (1, 2, 4, ... ms), since most conditions hold within a few milliseconds of the event behind them.
 */
const POLL_MS = 50;

/**
 * Polls `read` until `done` holds for its value and returns that value; a rejection counts as
 * not yet. Fails after `ms` naming `what` and the last value seen.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  ms = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: { value: T } | { error: unknown } | null = null;
  for (let polls = 0;; polls++) {
    try {
      const value = await read();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) {
      const seen = last === null
        ? "nothing"
        : "value" in last
        ? JSON.stringify(last.value)?.slice(0, 1_000)
        : String(last.error);
      throw new Error(`timed out after ${ms} ms waiting for ${what}; last seen: ${seen}`);
    }
    await pause(Math.min(POLL_MS, 2 ** polls));
  }
}

/** Polls `check` (a rejection counts as not yet) until it holds, or fails after `ms`. */
export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  ms = WAIT_MS,
): Promise<void> {
  await pollUntil(check, (held) => held, what, ms);
}

/**
 * Resolves when `signal` aborts or `ms` passes, whichever is first; true if it was the signal.
 * For bounding a wait on an event (a line, an exit), never as a sleep on its own.
 */
export function signalOrTimeout(signal: AbortSignal, ms: number): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Resolves or rejects as `promise` does, or rejects after `ms` naming `what`: a bound on one
 * step that may never end (a peer that hangs), not a wait on its own. The promise keeps running.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const done = new AbortController();
  const settled = promise.finally(() => done.abort());
  if (await signalOrTimeout(done.signal, ms)) return await settled;
  settled.catch(() => {});
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** A signal that aborts after `ms`: the bound for a child process or a fetch. */
export function deadlineSignal(ms: number): AbortSignal {
  return AbortSignal.timeout(ms);
}

/**
 * What a fixture server does to answer late on purpose (a slow page is what such a test is
 * about); stops early when the request is aborted. Not for tests' own waiting.
 */
export function serverDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return signalOrTimeout(signal ?? new AbortController().signal, ms).then(() => {});
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
