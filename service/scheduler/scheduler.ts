/**
 * The service's work scheduler: one lane per workspace, first in first out inside a lane (one
 * work of a workspace at a time), round-robin across lanes, and resources below the lane: a
 * surface (one tab) runs one work at a time and takes none while quarantined, a whole-browser
 * work runs alone. Bounds on running works and on queued works per lane, per resource and in
 * total, and a queue deadline. Work retires from the queue (cancelled, out of time, or on a
 * quarantined surface) before it ever reaches the browser. Pure logic with timers; it knows
 * nothing of tools, tabs or connectors.
 *
 * @module
 */

import { Quarantine } from "./quarantine.ts";

/**
 * What a work binds while it runs, beside its lane: one tab (a surface), its workspace's tabs
 * and group as a whole (the topology), or the whole browser (a window resize). A work holds it
 * from admission to release, through authorisation, dispatch, the landing check and the audit.
 */
export type Resource =
  | { kind: "surface"; id: string }
  | { kind: "topology" }
  | { kind: "browser" };

/** How a queued work left the queue. */
export type Admission =
  | { kind: "admitted"; release: () => void }
  | { kind: "retired"; reason: "cancelled" | "queue_deadline"; waitedMs: number }
  /** Its surface is quarantined: nothing was dispatched; {@linkcode Quarantine} says why. */
  | { kind: "quarantined"; surface: string; waitedMs: number };

/** Bounds of a scheduler. */
export interface SchedulerOptions {
  /** Works running at once across all lanes. */
  maxRunning: number;
  /** Works waiting in one lane (the running one not counted). */
  maxQueuedPerLane: number;
  /** Works waiting for one resource: one tab, one workspace's topology, the whole browser. */
  maxQueuedPerResource: number;
  /** Works waiting across all lanes. */
  maxQueued: number;
  /** How long a work may wait in its lane before it retires as not dispatched. */
  queueDeadlineMs: number;
}

/** Defaults: a browser is one shared machine; a slow page must not starve the others. */
export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  maxRunning: 8,
  maxQueuedPerLane: 32,
  maxQueuedPerResource: 16,
  maxQueued: 256,
  queueDeadlineMs: 30_000,
};

/** Which queue bound a new work would break. */
export type FullQueue = "lane" | "resource" | "total";

interface Waiter {
  enqueuedAt: number;
  /** Its place in the order works were queued, across lanes. */
  serial: number;
  resource: Resource;
  /** Its resource's key for the per-resource bound. */
  key: string;
  admit: () => void;
  retire: (reason: "cancelled" | "queue_deadline") => void;
  refuse: (surface: string) => void;
  /**
   * Starts its queue deadline and its cancellation watch, unless it already left the queue: a
   * work admitted the moment it is queued (the common case) needs neither, and spares a timer
   * and a listener (issue 14).
   */
  watch: () => void;
}

interface Lane {
  /** When the lane was last given a slot (or created), in admissions: least recent goes first. */
  servedAt: number;
  running: boolean;
  waiting: Waiter[];
  /** Called once the work running now has released the lane. */
  afterRunning: (() => void)[];
}

/**
 * FIFO per lane, round-robin across lanes, bounded; a whole-browser work runs alone, a surface
 * runs one work at a time, and a quarantined surface takes none.
 */
export class Scheduler {
  readonly options: SchedulerOptions;
  /** Surfaces that take no new works until their cut-off commands are proven over. */
  readonly quarantine = new Quarantine();
  #lanes = new Map<string, Lane>();
  #running = 0;
  /** Admissions so far: the clock of round-robin. */
  #admissions = 0;
  #serial = 0;
  /** Works waiting, by resource key. */
  #waitingFor = new Map<string, number>();
  /** Surfaces a running work holds. */
  #busySurfaces = new Set<string>();
  /** True while a whole-browser work runs: nothing else may. */
  #browserRunning = false;

  constructor(options: SchedulerOptions = DEFAULT_SCHEDULER_OPTIONS) {
    this.options = options;
  }

  /**
   * Queues a work on `lane` that binds `resource` (by default its lane's topology). Returns null
   * when a queue bound would break (nothing was queued; {@linkcode full} says which); otherwise a
   * promise that settles when the work may run, has retired, or finds its surface quarantined (at
   * once when it already is). An abort of `signal` while waiting retires the work as cancelled.
   */
  enqueue(
    lane: string,
    signal: AbortSignal,
    resource: Resource = { kind: "topology" },
  ): Promise<Admission> | null {
    if (this.full(lane, resource) !== null) return null;
    if (signal.aborted) {
      return Promise.resolve({ kind: "retired", reason: "cancelled", waitedMs: 0 });
    }
    if (resource.kind === "surface" && this.quarantine.has(resource.id)) {
      return Promise.resolve({ kind: "quarantined", surface: resource.id, waitedMs: 0 });
    }
    return new Promise((resolve) => {
      const waiter = this.#waiter(lane, resource, signal, resolve);
      this.#lane(lane).waiting.push(waiter);
      this.#count(waiter.key, 1);
      this.#pump();
      waiter.watch();
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

  /** Whether a work of `lane` runs now (from its dispatch until it releases the lane). */
  isRunning(lane: string): boolean {
    return this.#lanes.get(lane)?.running ?? false;
  }

  /** Which queue bound a new work on `lane` binding `resource` would break, or none. */
  full(lane: string, resource: Resource = { kind: "topology" }): FullQueue | null {
    const waiting = this.#lanes.get(lane)?.waiting.length ?? 0;
    if (waiting >= this.options.maxQueuedPerLane) return "lane";
    const forResource = this.#waitingFor.get(resourceKey(lane, resource)) ?? 0;
    if (forResource >= this.options.maxQueuedPerResource) return "resource";
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

  /** A waiting work that settles `resolve` exactly once: admitted, retired or refused. */
  #waiter(
    lane: string,
    resource: Resource,
    signal: AbortSignal,
    resolve: (admission: Admission) => void,
  ): Waiter {
    const state = this.#lane(lane);
    const enqueuedAt = Date.now();
    let left = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const leave = () => {
      left = true;
      if (timer !== undefined) {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      }
      const index = state.waiting.indexOf(waiter);
      if (index >= 0) {
        state.waiting.splice(index, 1);
        this.#count(waiter.key, -1);
      }
      this.#forgetIfIdle(lane);
    };
    const waiter: Waiter = {
      enqueuedAt,
      serial: ++this.#serial,
      resource,
      key: resourceKey(lane, resource),
      admit: () => {
        leave();
        resolve({ kind: "admitted", release: this.#hold(lane, resource) });
      },
      retire: (reason) => {
        leave();
        resolve({ kind: "retired", reason, waitedMs: Date.now() - enqueuedAt });
        // A whole-browser work that leaves may have held back the works behind it.
        this.#pump();
      },
      refuse: (surface) => {
        leave();
        resolve({ kind: "quarantined", surface, waitedMs: Date.now() - enqueuedAt });
      },
      watch: () => {
        if (left) return;
        timer = setTimeout(() => waiter.retire("queue_deadline"), this.options.queueDeadlineMs);
        signal.addEventListener("abort", onAbort, { once: true });
      },
    };
    const onAbort = () => waiter.retire("cancelled");
    return waiter;
  }

  /** Takes `lane` and `resource` for an admitted work; returns its one release. */
  #hold(lane: string, resource: Resource): () => void {
    const state = this.#lane(lane);
    state.running = true;
    this.#running++;
    if (resource.kind === "surface") this.#busySurfaces.add(resource.id);
    if (resource.kind === "browser") this.#browserRunning = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.running = false;
      this.#running--;
      if (resource.kind === "surface") this.#busySurfaces.delete(resource.id);
      if (resource.kind === "browser") this.#browserRunning = false;
      for (const after of state.afterRunning.splice(0)) after();
      this.#forgetIfIdle(lane);
      this.#pump();
    };
  }

  #count(key: string, by: 1 | -1): void {
    const count = (this.#waitingFor.get(key) ?? 0) + by;
    if (count > 0) this.#waitingFor.set(key, count);
    else this.#waitingFor.delete(key);
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
   * next work was queued first. A head whose surface is quarantined is refused and the lane
   * looked at again; one whose surface another work holds waits while the next lane goes. A
   * whole-browser head at the front waits for every running work to end, and nothing starts
   * before it, so it is never starved.
   */
  #pump(): void {
    while (this.#running < this.options.maxRunning && !this.#browserRunning) {
      const next = this.#next();
      if (next === undefined) return;
      const head = next.waiting[0];
      const { resource } = head;
      if (resource.kind === "surface" && this.quarantine.has(resource.id)) {
        head.refuse(resource.id);
        continue;
      }
      if (resource.kind === "browser" && this.#running > 0) return;
      next.servedAt = ++this.#admissions;
      head.admit();
    }
  }

  /** The lane whose head goes next, in round-robin order, skipping heads on a busy surface. */
  #next(): Lane | undefined {
    let next: Lane | undefined;
    for (const lane of this.#lanes.values()) {
      if (lane.running || lane.waiting.length === 0) continue;
      const { resource } = lane.waiting[0];
      if (resource.kind === "surface" && this.#busySurfaces.has(resource.id)) continue;
      if (
        next === undefined || lane.servedAt < next.servedAt ||
        (lane.servedAt === next.servedAt && lane.waiting[0].serial < next.waiting[0].serial)
      ) next = lane;
    }
    return next;
  }
}

/** The key a resource is counted under: one tab, one lane's topology, the one browser. */
function resourceKey(lane: string, resource: Resource): string {
  if (resource.kind === "surface") return `surface:${resource.id}`;
  if (resource.kind === "browser") return "browser";
  return `topology:${lane}`;
}
