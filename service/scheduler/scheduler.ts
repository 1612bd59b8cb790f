/**
 * The service's work scheduler: one lane per workspace, first in first out inside a lane,
 * round-robin across lanes, a bound on running works, on queued works per lane and in total, and
 * a queue deadline. Work retires from the queue — cancelled or out of time — before it ever reaches the
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
  /** Works waiting across all lanes. */
  maxQueued: number;
  /** How long a work may wait in its lane before it retires as not dispatched. */
  queueDeadlineMs: number;
}

/** Defaults: a browser is one shared machine; a slow page must not starve the others. */
export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  maxRunning: 8,
  maxQueuedPerLane: 32,
  maxQueued: 256,
  queueDeadlineMs: 30_000,
};

interface Waiter {
  enqueuedAt: number;
  /** Its place in the order works were queued, across lanes. */
  serial: number;
  admit: () => void;
  retire: (reason: "cancelled" | "queue_deadline") => void;
}

interface Lane {
  /** When the lane was last given a slot (or created), in admissions: least recent goes first. */
  servedAt: number;
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
  /** Admissions so far: the clock of round-robin. */
  #admissions = 0;
  #serial = 0;

  constructor(options: SchedulerOptions = DEFAULT_SCHEDULER_OPTIONS) {
    this.options = options;
  }

  /**
   * Queues a work on `lane`. Returns null when the lane's queue or the scheduler's is full
   * (nothing was queued; {@linkcode full} says which);
   * otherwise a promise that settles when the work may run or has retired. An abort of `signal`
   * while waiting retires the work as cancelled.
   */
  enqueue(lane: string, signal: AbortSignal): Promise<Admission> | null {
    if (this.full(lane) !== null) return null;
    const state = this.#lane(lane);
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
        serial: ++this.#serial,
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

  /** Which queue bound a new work on `lane` would break: its lane's, the total, or none. */
  full(lane: string): "lane" | "total" | null {
    const waiting = this.#lanes.get(lane)?.waiting.length ?? 0;
    if (waiting >= this.options.maxQueuedPerLane) return "lane";
    if (this.queued >= this.options.maxQueued) return "total";
    return null;
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
      // A new lane ranks as served just now: it goes behind lanes that waited since their turn,
      // and a lane that emptied and comes back gains nothing over them.
      lane = { servedAt: this.#admissions, running: false, waiting: [], afterRunning: [] };
      this.#lanes.set(name, lane);
    }
    return lane;
  }

  #forgetIfIdle(name: string): void {
    const lane = this.#lanes.get(name);
    if (!lane || lane.running || lane.waiting.length > 0) return;
    this.#lanes.delete(name);
  }

  /**
   * Gives free slots to waiting lanes, least recently served first; a tie goes to the lane whose
   * next work was queued first.
   */
  #pump(): void {
    while (this.#running < this.options.maxRunning) {
      let next: Lane | undefined;
      for (const lane of this.#lanes.values()) {
        if (lane.running || lane.waiting.length === 0) continue;
        if (
          next === undefined || lane.servedAt < next.servedAt ||
          (lane.servedAt === next.servedAt && lane.waiting[0].serial < next.waiting[0].serial)
        ) next = lane;
      }
      if (next === undefined) return;
      next.servedAt = ++this.#admissions;
      next.waiting[0].admit();
    }
  }
}
