import { assert, assertEquals } from "../../tests/support/assert.ts";
import { type Admission, Scheduler } from "./scheduler.ts";

const options = { maxRunning: 2, maxQueuedPerLane: 2, queueDeadlineMs: 200 };

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
