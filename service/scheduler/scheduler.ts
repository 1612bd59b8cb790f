/**
 * The service's work scheduler: one lane per workspace, first in first out inside a lane,
 * round-robin across lanes, a bound on running works and on queued works per lane, and a queue
 * deadline. Work retires from the queue — cancelled or out of time — before it ever reaches the
 * browser. Pure logic with timers; it knows nothing of tools or connectors.
 *
 * @module
 */

/** How a queued work left the queue. */
export type Admission =
  | { kind: "admitted"; release: () => void }
  | { kind: "retired"; reason: "cancelled" | "queue_deadline"; waitedMs: number };

/** Bounds of a scheduler. */
export interface SchedulerOptions {
  /** Works running at once across all lanes. */
  maxRunning: number;
  /** Works waiting in one lane (the running one not counted). */
  maxQueuedPerLane: number;
  /** How long a work may wait in its lane before it retires as not dispatched. */
  queueDeadlineMs: number;
}

/** Defaults: a browser is one shared machine; a slow page must not starve the others. */
export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  maxRunning: 8,
  maxQueuedPerLane: 32,
  queueDeadlineMs: 30_000,
};

interface Waiter {
  enqueuedAt: number;
  admit: () => void;
  retire: (reason: "cancelled" | "queue_deadline") => void;
}

interface Lane {
  running: boolean;
  waiting: Waiter[];
  /** Called once the work running now has released the lane. */
  afterRunning: (() => void)[];
}

/** FIFO per lane, round-robin across lanes, bounded. */
export class Scheduler {
  readonly options: SchedulerOptions;
  #lanes = new Map<string, Lane>();
  #running = 0;
  /** Lane names in the order they are offered a free slot; rotated on every admission. */
  #rotation: string[] = [];

  constructor(options: SchedulerOptions = DEFAULT_SCHEDULER_OPTIONS) {
    this.options = options;
  }

  /**
   * Queues a work on `lane`. Returns null when the lane's queue is full (nothing was queued);
   * otherwise a promise that settles when the work may run or has retired. An abort of `signal`
   * while waiting retires the work as cancelled.
   */
  enqueue(lane: string, signal: AbortSignal): Promise<Admission> | null {
    const state = this.#lane(lane);
    if (state.waiting.length >= this.options.maxQueuedPerLane) return null;
    if (signal.aborted) {
      return Promise.resolve({ kind: "retired", reason: "cancelled", waitedMs: 0 });
    }
    return new Promise((resolve) => {
      const enqueuedAt = Date.now();
      const leave = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const index = state.waiting.indexOf(waiter);
        if (index >= 0) state.waiting.splice(index, 1);
        this.#forgetIfIdle(lane);
      };
      const waiter: Waiter = {
        enqueuedAt,
        admit: () => {
          state.running = true;
          this.#running++;
          leave();
          let released = false;
          resolve({
            kind: "admitted",
            release: () => {
              if (released) return;
              released = true;
              state.running = false;
              this.#running--;
              for (const after of state.afterRunning.splice(0)) after();
              this.#forgetIfIdle(lane);
              this.#pump();
            },
          });
        },
        retire: (reason) => {
          leave();
          resolve({ kind: "retired", reason, waitedMs: Date.now() - enqueuedAt });
        },
      };
      const onAbort = () => waiter.retire("cancelled");
      const timer = setTimeout(() => waiter.retire("queue_deadline"), this.options.queueDeadlineMs);
      signal.addEventListener("abort", onAbort, { once: true });
      state.waiting.push(waiter);
      this.#pump();
    });
  }

  /**
   * Resolves once `lane` has no work running: at once when it has none, else when the running
   * one releases it. Works still waiting in the lane are not waited for, and nothing is queued.
   */
  afterRunning(lane: string): Promise<void> {
    const state = this.#lanes.get(lane);
    if (!state?.running) return Promise.resolve();
    return new Promise((resolve) => state.afterRunning.push(resolve));
  }

  /** Works running now. */
  get running(): number {
    return this.#running;
  }

  /** Works waiting now, across lanes. */
  get queued(): number {
    let total = 0;
    for (const lane of this.#lanes.values()) total += lane.waiting.length;
    return total;
  }

  #lane(name: string): Lane {
    let lane = this.#lanes.get(name);
    if (!lane) {
      lane = { running: false, waiting: [], afterRunning: [] };
      this.#lanes.set(name, lane);
      this.#rotation.push(name);
    }
    return lane;
  }

  #forgetIfIdle(name: string): void {
    const lane = this.#lanes.get(name);
    if (!lane || lane.running || lane.waiting.length > 0) return;
    this.#lanes.delete(name);
    this.#rotation = this.#rotation.filter((other) => other !== name);
  }

  #pump(): void {
    while (this.#running < this.options.maxRunning) {
      const index = this.#rotation.findIndex((name) => {
        const lane = this.#lanes.get(name)!;
        return !lane.running && lane.waiting.length > 0;
      });
      if (index < 0) return;
      const [name] = this.#rotation.splice(index, 1);
      this.#rotation.push(name);
      this.#lanes.get(name)!.waiting[0].admit();
    }
  }
}
