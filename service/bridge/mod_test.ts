import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import { BoundedWriter, encodeFrame, FrameReader } from "../../shared/framing.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { BrowserHub } from "../browser/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import { MAX_ACTIVE_WORKS, serveSession, type SessionDeps } from "./mod.ts";
import { harnessDeps } from "../../tests/support/bridge_harness.ts";
import { pollUntil, WAIT_MS, within } from "../../tests/support/wait.ts";

/** One connector's session on a real bridge session, driven frame by frame. */
function connect(deps: SessionDeps) {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const toService = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const fromService = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new BoundedWriter(fromService.writable, { maxWaiting: 1024, maxBytes: 1 << 24 });
  const info = {
    principal: "unnamed",
    client: "test",
    clientName: "test",
    connectedAt: new Date(),
    activeWorks: 0,
  };
  const served = serveSession(new FrameReader(toService, BRIDGE_MAX_FRAME), writer, info, deps);
  const reader = new FrameReader(fromService.readable, BRIDGE_MAX_FRAME);
  let seq = 0;
  return {
    info,
    send: (message: Record<string, unknown>) =>
      feed.enqueue(encodeFrame(message, BRIDGE_MAX_FRAME)),
    start(workspace: string) {
      const message = {
        type: "start",
        seq: ++seq,
        tool: "get_page_text",
        // A tab of its own each, so only the workspace's bound applies, not one tab's.
        arguments: { tabId: seq },
        workspace,
        context: { client_name: "test", client_version: "1" },
      };
      feed.enqueue(encodeFrame(message, BRIDGE_MAX_FRAME));
    },
    next: async () => ServiceMessage.parse(await reader.next()),
    async end() {
      feed.close();
      await served;
    },
  };
}

Deno.test("a connector's running works and a workspace's queue are bounded: busy", async () => {
  const scheduler = new Scheduler({ ...DEFAULT_SCHEDULER_OPTIONS, queueDeadlineMs: 60_000 });
  const deps = await harnessDeps(new BrowserHub(), scheduler);
  const first = connect(deps);
  first.send({ type: "open_workspace", seq: 1000, label: "test" });
  const opened = await first.next();
  assert(opened.type === "workspace_opened", JSON.stringify(opened));
  const workspace = opened.workspace;
  // Another work holds the workspace's lane, so everything sent to it waits in its queue.
  const holder = await scheduler.enqueue(workspace, new AbortController().signal)!;
  assert(holder.kind === "admitted");

  for (let n = 0; n <= MAX_ACTIVE_WORKS; n++) first.start(workspace);
  // Admitted works say nothing until they end: the first answer is the refusal of the last.
  const tooMany = await first.next();
  assert(tooMany.type === "rejected" && tooMany.kind === "busy", JSON.stringify(tooMany));
  assertEquals(
    tooMany.message,
    `This client already has ${MAX_ACTIVE_WORKS} browser calls running.`,
  );
  assertEquals(first.info.activeWorks, MAX_ACTIVE_WORKS);

  // Two more connections naming the same workspace fill its queue (32) and then overflow it.
  const second = connect(deps);
  const third = connect(deps);
  const more = DEFAULT_SCHEDULER_OPTIONS.maxQueuedPerLane - MAX_ACTIVE_WORKS - 1;
  for (let n = 0; n < more; n++) second.start(workspace);
  await pollUntil(
    () => Promise.resolve(second.info.activeWorks),
    (n) => n === more,
    "the second's works queued",
  );
  third.start(workspace);
  await pollUntil(
    () => Promise.resolve(third.info.activeWorks),
    (n) => n === 1,
    "the third's work queued",
  );
  third.start(workspace);
  const full = await third.next();
  assert(full.type === "rejected" && full.kind === "busy", JSON.stringify(full));
  assertEquals(
    full.message,
    `This workspace already has ${DEFAULT_SCHEDULER_OPTIONS.maxQueuedPerLane} browser calls ` +
      "waiting.",
  );

  // Once the lane is free every queued work runs and completes (here without a browser).
  holder.release();
  for (let n = 0; n < MAX_ACTIVE_WORKS; n++) assertEquals((await first.next()).type, "completed");
  for (let n = 0; n < more; n++) assertEquals((await second.next()).type, "completed");
  assertEquals((await third.next()).type, "completed");
  assertEquals(deps.activity.works, 0);
  for (const session of [first, second, third]) await session.end();
  deps.holds.close();
});

Deno.test("a call refused as busy holds and mints no workspace", async () => {
  // Room for one waiting work in all: one queued call fills the whole service's queue.
  const scheduler = new Scheduler({ ...DEFAULT_SCHEDULER_OPTIONS, maxQueued: 1 });
  const deps = await harnessDeps(new BrowserHub(), scheduler);
  const owner = connect(deps);
  owner.send({ type: "open_workspace", seq: 1000, label: "owner" });
  const opened = await owner.next();
  assert(opened.type === "workspace_opened", JSON.stringify(opened));
  const workspace = opened.workspace;
  const running = await scheduler.enqueue(workspace, new AbortController().signal)!;
  assert(running.kind === "admitted");
  owner.start(workspace);
  await pollUntil(() => Promise.resolve(scheduler.queued), (n) => n === 1, "one call to wait");

  const other = connect(deps);
  // Naming a workspace it does not hold, while the queue is full.
  other.send({
    type: "start",
    seq: 1,
    tool: "get_page_text",
    arguments: { tabId: 7 },
    workspace,
    context: { client_name: "other", client_version: "1" },
  });
  const named = await other.next();
  assert(named.type === "rejected" && named.kind === "busy", JSON.stringify(named));
  assertEquals(deps.holds.holdersOf(workspace).length, 1, "only its owner holds it");
  // A context-creating call without a workspace, while the queue is full.
  other.send({
    type: "start",
    seq: 2,
    tool: "tabs_context_mcp",
    arguments: { createIfEmpty: true },
    context: { client_name: "other", client_version: "1" },
  });
  const minted = await other.next();
  assert(minted.type === "rejected" && minted.kind === "busy", JSON.stringify(minted));
  assertEquals(deps.workspaces.size, 1, "no workspace was minted for the refused call");

  running.release();
  assertEquals((await owner.next()).type, "completed");
  await other.end();
  await owner.end();
  deps.holds.close();
});

/** Session deps with all-open governance, and the folder of its files, for the tests below. */
async function governedDeps(): Promise<{ deps: SessionDeps; dir: string }> {
  const scheduler = new Scheduler({ ...DEFAULT_SCHEDULER_OPTIONS, queueDeadlineMs: 60_000 });
  const deps = await harnessDeps(new BrowserHub(), scheduler);
  return { deps, dir: deps.governance.dir };
}

Deno.test("a paused workspace's call is answered at once, even behind a busy lane, and audited", async () => {
  const { deps, dir } = await governedDeps();
  const agent = connect(deps);
  agent.send({ type: "open_workspace", seq: 1000, label: "test" });
  const opened = await agent.next();
  assert(opened.type === "workspace_opened");
  const busy = await deps.scheduler.enqueue(opened.workspace, new AbortController().signal)!;
  assert(busy.kind === "admitted");
  deps.governance.person.hold();
  agent.start(opened.workspace);
  const answered = await agent.next();
  assert(
    answered.type === "completed" && answered.outcome.kind === "held",
    JSON.stringify(answered),
  );
  busy.release();
  const records = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trimEnd().split("\n")
    .map((line) => JSON.parse(line));
  assertEquals(records.map((r) => [r.kind, r.result, r.tool]), [
    ["decision", "held", "get_page_text"],
    ["outcome", "held", "get_page_text"],
  ]);
  await agent.end();
  deps.holds.close();
});

Deno.test("a call whose decision cannot be audited is refused: no record, no call", async () => {
  const { deps, dir } = await governedDeps();
  await Deno.mkdir(`${dir}/audit.jsonl`);
  const agent = connect(deps);
  agent.send({
    type: "start",
    seq: 1,
    tool: "update_plan",
    arguments: { domains: [], approach: ["look"] },
    context: { client_name: "test", client_version: "1" },
  });
  const answered = await agent.next();
  assert(answered.type === "completed" && answered.outcome.kind === "denied");
  assert(
    answered.outcome.kind === "denied" &&
      answered.outcome.message.startsWith("Ghostlight refused this call because its audit"),
    answered.outcome.message,
  );
  assertEquals(deps.governance.audit.state().ok, false);
  await agent.end();
  deps.holds.close();
});

/**
 * A connection whose workspace's lane another work holds (`busy`), with two works of seq 1 and 2
 * waiting in it.
 */
async function twoQueuedWorks(deps: SessionDeps) {
  const agent = connect(deps);
  agent.send({ type: "open_workspace", seq: 1000, label: "test" });
  const opened = await agent.next();
  assert(opened.type === "workspace_opened");
  const busy = await deps.scheduler.enqueue(opened.workspace, new AbortController().signal)!;
  assert(busy.kind === "admitted");
  agent.start(opened.workspace);
  agent.start(opened.workspace);
  await pollUntil(
    () => Promise.resolve(deps.scheduler.queued),
    (n) => n === 2,
    "both works queued",
  );
  return { agent, workspace: opened.workspace, busy };
}

Deno.test("a connector that goes away retires its queued works before dispatch; audited", async () => {
  const { deps, dir } = await governedDeps();
  const { agent, busy } = await twoQueuedWorks(deps);
  await agent.end();
  assertEquals(deps.scheduler.queued, 0, "nothing of the gone connector waits in the lane");
  busy.release();
  assertEquals(deps.scheduler.running, 0, "and nothing of it runs once the lane is free");
  const outcomes = async () =>
    (await Deno.readTextFile(`${dir}/audit.jsonl`)).trimEnd().split("\n")
      .map((line) => JSON.parse(line)).filter((record) => record.kind === "outcome");
  const records = await pollUntil(outcomes, (found) => found.length === 2, "both outcomes");
  assertEquals(records.map((r) => r.result), [
    "cancelled",
    "cancelled",
  ]);
  deps.holds.close();
});

Deno.test("a work whose run throws is answered, and its workspace's lane is free again", async () => {
  const { deps } = await governedDeps();
  const agent = connect(deps);
  agent.send({ type: "open_workspace", seq: 1000, label: "test" });
  const opened = await agent.next();
  assert(opened.type === "workspace_opened");
  // Any fault inside the run (arguments nested thousands deep overflowed the audit's hashing):
  // the first call's check throws.
  const check = deps.catalog.argumentProblem.bind(deps.catalog);
  let faults = 1;
  deps.catalog.argumentProblem = (name, args) => {
    if (faults-- > 0) throw new RangeError("Maximum call stack size exceeded");
    return check(name, args);
  };
  const plan = (seq: number) =>
    agent.send({
      type: "start",
      seq,
      tool: "update_plan",
      arguments: { domains: [], approach: ["look"] },
      workspace: opened.workspace,
      context: { client_name: "test", client_version: "1" },
    });
  plan(1);
  const faulted = await within(agent.next(), WAIT_MS, "the faulted call's answer");
  assert(
    faulted.type === "completed" && faulted.outcome.kind === "outcome_unknown",
    JSON.stringify(faulted),
  );
  plan(2);
  const next = await within(agent.next(), WAIT_MS, "the next call's answer");
  assert(next.type === "completed" && next.outcome.kind === "success", JSON.stringify(next));
  await agent.end();
  deps.holds.close();
});

Deno.test("a work is cancelled by its start's seq, and a seq names one running work", async () => {
  const { deps } = await governedDeps();
  const { agent, workspace, busy } = await twoQueuedWorks(deps);
  agent.send({
    type: "start",
    seq: 2,
    tool: "update_plan",
    arguments: { domains: [], approach: ["look"] },
    workspace,
    context: { client_name: "test", client_version: "1" },
  });
  const twice = await agent.next();
  assert(
    twice.type === "rejected" && twice.seq === 2 && twice.kind === "invalid_request",
    JSON.stringify(twice),
  );
  agent.send({ type: "cancel", seq: 2 });
  const cancelled = await agent.next();
  assert(
    cancelled.type === "completed" && cancelled.seq === 2 &&
      cancelled.outcome.kind === "cancelled",
    JSON.stringify(cancelled),
  );
  assertEquals(deps.scheduler.queued, 1, "the other work still waits");
  busy.release();
  const other = await agent.next();
  assert(other.type === "completed" && other.seq === 1, JSON.stringify(other));
  await agent.end();
  deps.holds.close();
});
