import { assert, assertEquals } from "../../tests/support/assert.ts";
import { type Admission, type Resource, Scheduler } from "./scheduler.ts";

const options = {
  maxRunning: 2,
  maxQueuedPerLane: 2,
  maxQueuedPerResource: 100,
  maxQueued: 100,
  queueDeadlineMs: 200,
};

const never = () => new AbortController().signal;

/** Queues a work on `lane` and notes its lane in `admitted` when its turn comes. */
function queue(
  scheduler: Scheduler,
  lane: string,
  admitted: string[],
  signal = never(),
  resource?: Resource,
) {
  const queued = scheduler.enqueue(lane, signal, resource);
  assert(queued !== null, `${lane} was queued`);
  return queued.then((admission) => {
    if (admission.kind === "admitted") admitted.push(lane);
    return admission;
  });
}

/** The admission, which must be one. */
function admitted(admission: Admission): Extract<Admission, { kind: "admitted" }> {
  assert(admission.kind === "admitted", JSON.stringify(admission));
  return admission;
}

Deno.test("one work at a time per lane, first in first out", async () => {
  const scheduler = new Scheduler(options);
  const order: string[] = [];
  const a = await scheduler.enqueue("w1", new AbortController().signal)!;
  const b = scheduler.enqueue("w1", new AbortController().signal)!.then((admission) => {
    order.push("b");
    return admission;
  });
  const c = scheduler.enqueue("w1", new AbortController().signal)!.then((admission) => {
    order.push("c");
    return admission;
  });
  assertEquals(scheduler.running, 1);
  assertEquals(scheduler.queued, 2);
  assert(a.kind === "admitted");
  a.release();
  const second = await b;
  assert(second.kind === "admitted");
  assertEquals(scheduler.running, 1);
  second.release();
  const third = await c;
  assert(third.kind === "admitted");
  third.release();
  assertEquals(order, ["b", "c"]);
  assertEquals(scheduler.running, 0);
});

Deno.test("lanes run side by side up to the global bound, round-robin", async () => {
  const scheduler = new Scheduler(options);
  const first = await scheduler.enqueue("w1", new AbortController().signal)!;
  const second = await scheduler.enqueue("w2", new AbortController().signal)!;
  assertEquals(scheduler.running, 2);
  const admitted: string[] = [];
  const wait = (lane: string) =>
    scheduler.enqueue(lane, new AbortController().signal)!.then((admission) => {
      admitted.push(lane);
      return admission;
    });
  const third = wait("w3");
  const again = wait("w1");
  assert(first.kind === "admitted" && second.kind === "admitted");
  second.release();
  const next = await third;
  assertEquals(admitted, ["w3"]);
  first.release();
  const last = await again;
  assertEquals(admitted, ["w3", "w1"]);
  for (const admission of [next, last]) if (admission.kind === "admitted") admission.release();
});

Deno.test("a full lane refuses, a cancelled or late work retires before it runs", async () => {
  const scheduler = new Scheduler(options);
  const running = await scheduler.enqueue("w1", new AbortController().signal)!;
  const cancel = new AbortController();
  const cancelled = scheduler.enqueue("w1", cancel.signal)!;
  const late = scheduler.enqueue("w1", new AbortController().signal)!;
  assertEquals(scheduler.enqueue("w1", new AbortController().signal), null);
  cancel.abort();
  const gone: Admission = await cancelled;
  assertEquals(gone.kind === "retired" && gone.reason, "cancelled");
  const expired = await late;
  assertEquals(expired.kind === "retired" && expired.reason, "queue_deadline");
  assertEquals(scheduler.queued, 0);
  assert(running.kind === "admitted");
  running.release();
  assertEquals(scheduler.running, 0);
});

Deno.test("afterRunning waits for the running work only, queues nothing", async () => {
  const scheduler = new Scheduler(options);
  let idle = false;
  await scheduler.afterRunning("w1");
  const running = await scheduler.enqueue("w1", new AbortController().signal)!;
  assert(running.kind === "admitted");
  const next = scheduler.enqueue("w1", new AbortController().signal)!;
  const after = scheduler.afterRunning("w1").then(() => idle = true);
  assertEquals(scheduler.queued, 1, "nothing more was queued");
  await Promise.resolve();
  assertEquals(idle, false, "not while the work runs");
  running.release();
  await after;
  const second = await next;
  assert(second.kind === "admitted");
  second.release();
});

/** Releases each work as it is admitted, one slot at a time; the indices of `works` in order. */
async function drain(works: Promise<Admission>[]): Promise<number[]> {
  const done: number[] = [];
  const forever = new Promise<never>(() => {});
  while (done.length < works.length) {
    const { admission, index } = await Promise.race(
      works.map((work, index) =>
        done.includes(index) ? forever : work.then((admission) => ({ admission, index }))
      ),
    );
    done.push(index);
    if (admission.kind === "admitted") admission.release();
  }
  return done;
}

Deno.test("three workspaces share one running slot in turn, each in its own order", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 1, maxQueuedPerLane: 8 });
  const blocker = admitted(await scheduler.enqueue("w0", never())!);
  const order: string[] = [];
  // w1 queues all its works first, then w2, then w3: a FIFO across lanes would run w1's three.
  const lanes = ["w1", "w1", "w1", "w2", "w2", "w2", "w3", "w3", "w3"];
  const works = lanes.map((lane) => queue(scheduler, lane, order));
  blocker.release();
  const done = await drain(works);
  assertEquals(order, ["w1", "w2", "w3", "w1", "w2", "w3", "w1", "w2", "w3"]);
  assertEquals(done, [0, 3, 6, 1, 4, 7, 2, 5, 8], "first in first out inside each lane");
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});

Deno.test("a lane that queues again while it runs goes behind the lanes that waited", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 1, maxQueuedPerLane: 8 });
  const order: string[] = [];
  const first = admitted(await scheduler.enqueue("busy", never())!);
  const works = [queue(scheduler, "w2", order), queue(scheduler, "w3", order)];
  works.push(queue(scheduler, "busy", order));
  first.release();
  await drain(works);
  assertEquals(order, ["w2", "w3", "busy"]);
  // And a lane that emptied and comes back queues behind the ones still waiting.
  const blocker = admitted(await scheduler.enqueue("w0", never())!);
  const again = [queue(scheduler, "w1", order), queue(scheduler, "w2", order)];
  blocker.release();
  const back = queue(scheduler, "w0", order);
  await drain([...again, back]);
  assertEquals(order.slice(3), ["w1", "w2", "w0"]);
});

Deno.test("every bound: running in total, queued per lane and queued in total", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 2, maxQueuedPerLane: 2, maxQueued: 3 });
  const order: string[] = [];
  const works = [queue(scheduler, "w1", order), queue(scheduler, "w2", order)];
  works.push(queue(scheduler, "w3", order));
  assertEquals(scheduler.running, 2, "never more than maxRunning");
  assertEquals(scheduler.queued, 1);
  works.push(queue(scheduler, "w1", order));
  assertEquals(scheduler.full("w1"), null);
  works.push(queue(scheduler, "w1", order));
  assertEquals(scheduler.full("w1"), "lane");
  assertEquals(scheduler.enqueue("w1", never()), null, "the lane's queue is full");
  assertEquals(scheduler.queued, 3);
  assertEquals(scheduler.full("w4"), "total");
  assertEquals(scheduler.enqueue("w4", never()), null, "the service's queue is full");
  assertEquals(scheduler.queued, 3, "a refused work is not queued");
  // A freed place takes a work again.
  admitted(await works[0]).release();
  assertEquals([scheduler.running, scheduler.queued], [2, 2]);
  assertEquals(scheduler.full("w4"), null);
  works.push(queue(scheduler, "w4", order));
  let peak = 0;
  const watched = works.map((work) =>
    work.then((admission) => {
      peak = Math.max(peak, scheduler.running);
      return admission;
    })
  );
  await drain(watched);
  assert(peak <= 2, `at most 2 ran at once, saw ${peak}`);
  assertEquals(order.length, 6);
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});

Deno.test("the queue deadline retires a waiting work, never a running one", async () => {
  const scheduler = new Scheduler({ ...options, queueDeadlineMs: 50 });
  const running = admitted(await scheduler.enqueue("w1", never())!);
  const started = Date.now();
  const late = await scheduler.enqueue("w1", never())!;
  assert(late.kind === "retired" && late.reason === "queue_deadline", JSON.stringify(late));
  assert(late.waitedMs >= 50 && Date.now() - started >= 50, `waited ${late.waitedMs} ms`);
  assertEquals(scheduler.queued, 0, "it left its lane");
  // The running work outlived the deadline and still holds its lane.
  assertEquals(scheduler.running, 1);
  const after = scheduler.enqueue("w1", never())!;
  running.release();
  admitted(await after).release();
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});

Deno.test("cancellation in each state: before queuing, queued, running, released", async () => {
  const scheduler = new Scheduler(options);
  // Before queuing: retired at once, nothing queued.
  const early = new AbortController();
  early.abort();
  const none = await scheduler.enqueue("w1", early.signal)!;
  assertEquals(none, { kind: "retired", reason: "cancelled", waitedMs: 0 });
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);

  // Running: an abort does not take the slot back; the work drains and releases it.
  const runningAbort = new AbortController();
  const running = admitted(await scheduler.enqueue("w1", runningAbort.signal)!);
  // Queued: retired, and the work behind it moves up.
  const queuedAbort = new AbortController();
  const order: string[] = [];
  const cancelled = queue(scheduler, "w1", order, queuedAbort.signal);
  const behind = queue(scheduler, "w1", order);
  runningAbort.abort();
  assertEquals(scheduler.running, 1, "the running work keeps its slot");
  queuedAbort.abort();
  const gone = await cancelled;
  assert(gone.kind === "retired" && gone.reason === "cancelled", JSON.stringify(gone));
  assertEquals(scheduler.queued, 1);
  running.release();
  const next = admitted(await behind);
  assertEquals(order, ["w1"], "only the work behind the cancelled one ran");
  // Released: a second release (or an abort after it) changes nothing.
  next.release();
  next.release();
  running.release();
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
  admitted(await scheduler.enqueue("w1", never())!).release();
});

const tab = (id: string): Resource => ({ kind: "surface", id });
const browser: Resource = { kind: "browser" };

Deno.test("FIFO in a workspace holds across its tabs: one work of a workspace at a time", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 4, maxQueuedPerLane: 8 });
  const order: string[] = [];
  const first = admitted(await scheduler.enqueue("w1", never(), tab("a"))!);
  // A work on another tab of the same workspace does not overtake or run beside it.
  const works = [
    queue(scheduler, "w1", order, never(), tab("b")),
    queue(scheduler, "w1", order, never(), tab("a")),
  ];
  assertEquals([scheduler.running, scheduler.queued], [1, 2]);
  first.release();
  const done = await drain(works);
  assertEquals(done, [0, 1]);
});

Deno.test("three workspaces on their own tabs take turns, each in its own order", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 1, maxQueuedPerLane: 8 });
  const blocker = admitted(await scheduler.enqueue("w0", never(), browser)!);
  const order: string[] = [];
  const lanes = ["w1", "w1", "w1", "w2", "w2", "w2", "w3", "w3", "w3"];
  const works = lanes.map((lane, n) => queue(scheduler, lane, order, never(), tab(`${lane}-${n}`)));
  blocker.release();
  const done = await drain(works);
  assertEquals(order, ["w1", "w2", "w3", "w1", "w2", "w3", "w1", "w2", "w3"]);
  assertEquals(done, [0, 3, 6, 1, 4, 7, 2, 5, 8]);
});

Deno.test("a surface held by a running work waits while other lanes go", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 4 });
  const order: string[] = [];
  const holder = admitted(await scheduler.enqueue("w1", never(), tab("shared"))!);
  const blocked = queue(scheduler, "w2", order, never(), tab("shared"));
  const other = queue(scheduler, "w3", order, never(), tab("own"));
  admitted(await other).release();
  assertEquals(order, ["w3"], "the other lane went first");
  assertEquals(scheduler.queued, 1);
  holder.release();
  admitted(await blocked).release();
  assertEquals(order, ["w3", "w2"]);
});

Deno.test("a whole-browser work runs alone and nothing overtakes it once it is next", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 4 });
  const order: string[] = [];
  const running = admitted(await scheduler.enqueue("w1", never(), tab("a"))!);
  const resize = queue(scheduler, "w2", order, never(), browser);
  const behind = queue(scheduler, "w3", order, never(), tab("c"));
  assertEquals([scheduler.running, scheduler.queued], [1, 2], "free slots wait for the resize");
  running.release();
  const alone = admitted(await resize);
  assertEquals([scheduler.running, scheduler.queued], [1, 1], "the resize runs alone");
  const later = queue(scheduler, "w4", order, never(), { kind: "topology" });
  assertEquals(scheduler.running, 1, "nothing starts beside it");
  alone.release();
  await drain([behind, later]);
  assertEquals(order, ["w2", "w3", "w4"]);
});

Deno.test("each resource's queue is bounded: a tab, a topology, the browser", () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 1, maxQueuedPerResource: 2 });
  scheduler.enqueue("w0", never(), browser);
  for (const lane of ["w1", "w2"]) scheduler.enqueue(lane, never(), tab("a"));
  assertEquals(scheduler.full("w3", tab("a")), "resource");
  assertEquals(scheduler.enqueue("w3", never(), tab("a")), null, "the tab's queue is full");
  assertEquals(scheduler.full("w3", tab("b")), null, "another tab still has room");
  for (let n = 0; n < 2; n++) scheduler.enqueue("w4", never(), { kind: "topology" });
  assertEquals(scheduler.full("w4", { kind: "topology" }), "lane");
  scheduler.enqueue("w5", never(), { kind: "topology" });
  scheduler.enqueue("w6", never(), browser);
  scheduler.enqueue("w7", never(), browser);
  assertEquals(scheduler.full("w8", browser), "resource", "two resizes wait already");
  assertEquals(scheduler.enqueue("w8", never(), browser), null);
});

const command = (executor: string, id: string) => ({ executor, command: id });

Deno.test("a quarantined tab refuses new works at once, and its waiting ones at their turn", async () => {
  const scheduler = new Scheduler({ ...options, maxQueuedPerLane: 8 });
  const order: string[] = [];
  const running = admitted(await scheduler.enqueue("w1", never(), tab("a"))!);
  const waitingOnA = queue(scheduler, "w1", order, never(), tab("a"));
  const waitingOnB = queue(scheduler, "w1", order, never(), tab("b"));
  // The running work's command is cut off: its tab is quarantined before it releases.
  scheduler.quarantine.enter("a", command("browser/gen-1", "1:7"));
  const refused = await scheduler.enqueue("w2", never(), tab("a"))!;
  assertEquals(refused, { kind: "quarantined", surface: "a", waitedMs: 0 });
  running.release();
  const atTurn = await waitingOnA;
  assertEquals(atTurn.kind, "quarantined", "refused at its turn, nothing dispatched");
  admitted(await waitingOnB).release();
  assertEquals(order, ["w1"], "only the work on the other tab ran");
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});

Deno.test("quarantine exits: the same executor's ack, the tab gone, the executor ended", () => {
  const scheduler = new Scheduler(options);
  const { quarantine } = scheduler;
  quarantine.enter("a", command("browser/gen-1", "1:7"));
  quarantine.enter("a", command("browser/gen-1", "1:8"));
  // Another generation's ack for the same id proves nothing; one of two commands is not enough.
  assertEquals(quarantine.commandEnded(command("browser/gen-2", "1:7")), []);
  assertEquals(quarantine.commandEnded(command("browser/gen-1", "1:7")), []);
  assert(quarantine.has("a"));
  assertEquals(quarantine.list().map((entry) => [entry.surface, entry.unproven]), [["a", 1]]);
  assertEquals(quarantine.commandEnded(command("browser/gen-1", "1:8")), ["a"]);
  assert(!quarantine.has("a"), "cleared by the terminal acknowledgements");

  quarantine.enter("b", command("browser/gen-1", "2:1"));
  assert(quarantine.surfaceGone("b"), "cleared when the tab is gone");
  assert(!quarantine.has("b"));

  quarantine.enter("c", command("browser/gen-1", "2:2"));
  quarantine.enter("d", command("other/gen-9", "1:1"));
  assertEquals(quarantine.executorEnded("browser/gen-1"), ["c"], "a new generation ends the old");
  assertEquals(quarantine.list().map((entry) => entry.surface), ["d"]);
  // A cut-off reported after its proof (the ack overtook it) quarantines nothing.
  quarantine.enter("e", command("browser/gen-1", "3:3"));
  quarantine.enter("f", command("other/gen-9", "1:2"));
  quarantine.commandEnded(command("other/gen-9", "1:3"));
  quarantine.enter("g", command("other/gen-9", "1:3"));
  assertEquals(quarantine.list().map((entry) => entry.surface), ["d", "f"]);
});

Deno.test("time alone never clears a quarantine", async () => {
  const scheduler = new Scheduler({ ...options, queueDeadlineMs: 20 });
  scheduler.quarantine.enter("a", command("browser/gen-1", "1:1"));
  const blocker = admitted(await scheduler.enqueue("w1", never(), tab("b"))!);
  // A work that waits out the queue deadline (well past the quarantine's start) ...
  const late = await scheduler.enqueue("w1", never(), tab("b"))!;
  assertEquals(late.kind === "retired" && late.reason, "queue_deadline");
  blocker.release();
  // ... leaves the quarantine as it was.
  assert(scheduler.quarantine.has("a"));
  assertEquals((await scheduler.enqueue("w1", never(), tab("a"))!).kind, "quarantined");
});

Deno.test("cancellation and the deadline reach a work waiting behind a whole-browser work", async () => {
  const scheduler = new Scheduler({ ...options, maxRunning: 4, queueDeadlineMs: 50 });
  const running = admitted(await scheduler.enqueue("w1", never(), tab("a"))!);
  const cancel = new AbortController();
  const resize = scheduler.enqueue("w2", cancel.signal, browser)!;
  const behind = scheduler.enqueue("w3", never(), tab("c"))!;
  cancel.abort();
  const gone = await resize;
  assertEquals(gone.kind === "retired" && gone.reason, "cancelled");
  // With the resize gone, the work behind it runs beside the running one.
  admitted(await behind).release();
  const late = await scheduler.enqueue("w2", never(), browser)!;
  assertEquals(late.kind === "retired" && late.reason, "queue_deadline");
  running.release();
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});

Deno.test("sixteen workspaces with one call each in flight share eight slots: the longest waiting goes next", async () => {
  // The many-agents bench's shape (issue 32): each workspace calls again once its call ends, and
  // the calls end in an order of their own. Every freed slot must go to the work that has waited
  // longest, so no work waits for more calls to end than there are works ahead of it (at most 7,
  // with 16 workspaces and 8 slots: it is admitted by the 8th end at the latest).
  // No deadline within the test's reach: on a loaded machine the test must not retire anything.
  const scheduler = new Scheduler({
    ...options,
    maxRunning: 8,
    maxQueuedPerLane: 1,
    queueDeadlineMs: 60_000,
  });
  const lanes = Array.from({ length: 16 }, (_, i) => `w${i}`);
  const waiting: string[] = [];
  const running: { lane: string; release: () => void }[] = [];
  const overtaken: string[] = [];
  let ends = 0;
  let longestWait = 0;
  const call = (lane: string) => {
    waiting.push(lane);
    const queuedAt = ends;
    scheduler.enqueue(lane, never())!.then((admission) => {
      const longest = waiting.shift();
      if (lane !== longest) overtaken.push(`${lane} went before ${longest}`);
      longestWait = Math.max(longestWait, ends - queuedAt);
      running.push({ lane, release: admitted(admission).release });
    });
  };
  lanes.forEach(call);
  let seed = 7;
  for (let ended = 0; ended < 400; ended++) {
    await Promise.resolve();
    assertEquals(running.length, 8);
    // One of the running calls ends (a fixed pseudo-random pick), then its lane calls again.
    seed = (seed * 48_271) % 2_147_483_647;
    const [done] = running.splice(seed % running.length, 1);
    ends++;
    done.release();
    call(done.lane);
  }
  assertEquals(overtaken.length, 0, `the longest waiting goes first: ${overtaken.slice(0, 4)}`);
  assert(longestWait <= 8, `a work waited for ${longestWait} calls to end`);
  // Every work ends; nothing is left waiting, running or holding a deadline's timer.
  while (running.length > 0) {
    for (const work of running.splice(0)) work.release();
    await Promise.resolve();
  }
  assertEquals([scheduler.running, scheduler.queued], [0, 0]);
});
