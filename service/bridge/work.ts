/**
 * A work's life in the service, in named steps: admitted (the tool exists, the connector has
 * room, the person's controls let it in, the workspace is admitted, the workspace's queue has
 * room), started, run through the call's stages once its lane is free (`call_stages.ts`: nothing
 * reaches the browser before the decision is recorded, and where its tab landed is checked
 * after) within the settlement window, and completed with exactly one outcome, which is recorded
 * too.
 *
 * @module
 */

import type { ConnectorMessage, Outcome } from "../../shared/bridge.ts";
import { log } from "../log/mod.ts";
import type { Barrier } from "../governance/mod.ts";
import type { Admission, FullQueue, Scheduler } from "../scheduler/mod.ts";
import type { ToolContext } from "../tools/mod.ts";
import { admitWorkspace } from "./admission.ts";
import { runCall, stepRunner } from "./call_stages.ts";
import { barredOutcome, InnerRefusals, type Located, policyView, recordOutcome } from "./gate.ts";
import { quarantinedOutcome, resourceOf } from "./quarantine.ts";
import type { CallRecord, GatedWork } from "./stages.ts";
import { type Refusal, type Session, type SessionDeps, STOPPED_BY_PERSON } from "./session.ts";

/** How many works one connector may have running at once. */
export const MAX_ACTIVE_WORKS = 16;
/**
 * How deep a call's arguments may nest. The deepest call the tools take (a script step's
 * arguments) is a handful of levels; a few thousand overflow the stack of every walk over them
 * (the audit's hashing, the script's references), so they are refused at the door.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * The argument under which `args` nests objects or arrays deeper than `max` levels, or null;
 * walks without recursing.
 */
export function tooDeep(args: Record<string, unknown>, max: number): string | null {
  const pending: [unknown, number, string][] = Object.entries(args).map((
    [name, value],
  ) => [value, 1, name]);
  while (pending.length > 0) {
    const [item, depth, name] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth >= max) return name;
    for (const inner of Object.values(item)) pending.push([inner, depth + 1, name]);
  }
  return null;
}

type StartMessage = Extract<ConnectorMessage, { type: "start" }>;

/**
 * A work past admission: its id, what it was asked, where it runs, and either its queue place or
 * the person's control that answers it at once.
 */
interface AdmittedWork extends GatedWork {
  /** Aborted when the connector cancels the work, or the person stops its agent. */
  readonly controller: AbortController;
  readonly next: { queued: Promise<Admission> } | { barrier: Barrier };
}

/** Starts the work a `start` asks for; it answers the connector itself and never throws. */
export function startWork(session: Session, message: StartMessage): void {
  runWork(session, message).catch((error) => log("error", `work failed: ${error.message}`));
}

async function runWork(session: Session, message: StartMessage): Promise<void> {
  const work = admitWork(session, message);
  if (work === null) return;
  track(session, work);
  const settled = await settle(session, work);
  const { outcome, release, happened } = settled;
  try {
    // What the work bound is held through its audit record (decision 0160). The record tells
    // what happened, which the caller's answer may not (a call cancelled after its effect).
    const { located } = settled;
    await recordOutcome(session, work, located, happened?.outcome ?? outcome, happened?.note);
    complete(session, work, outcome);
  } finally {
    release();
  }
}

/** A work's outcome, and the release of what it bound (a no-op when it bound nothing). */
interface Settled {
  /** What the caller is told. */
  outcome: Outcome;
  release: () => void;
  /**
   * What the browser reported, when the caller is told otherwise (it cancelled, or the person
   * stopped its agent, after the effect) or is gone, with that noted: the audit records what
   * happened.
   */
  happened?: { outcome: Outcome; note: string };
  /** Where the call's stages located it, once they had. */
  located?: Located;
}

/** How a started work ends: answered by the person's controls, retired in its queue, or run. */
async function settle(session: Session, work: AdmittedWork): Promise<Settled> {
  const unbound = (outcome: Outcome): Settled => ({ outcome, release: () => {} });
  if ("barrier" in work.next) return unbound(await barredOutcome(session, work, work.next.barrier));
  session.queued.add(work.message.seq);
  const admission = await work.next.queued.finally(() => session.queued.delete(work.message.seq));
  if (admission.kind === "retired") {
    return unbound(retiredOutcome(admission.reason, admission.waitedMs));
  }
  if (admission.kind === "quarantined") {
    return unbound(quarantinedOutcome(work.message.arguments.tabId));
  }
  if (work.workspace && session.deps.workspaces.get(work.workspace.id) !== work.workspace) {
    // Released while this call waited: what it did now would land in tabs nobody gives back.
    return { outcome: releasedOutcome(), release: admission.release };
  }
  return await dispatch(session, work, admission.release);
}

/**
 * The checks before a work starts, in order; the first that fails refuses the request and
 * nothing is queued. A work the person's controls stop (stopped, held, attention) is answered at
 * once, without waiting behind its workspace's other calls. A work that passes them all is queued
 * on its workspace's lane (or a lane of its own when it has no workspace).
 */
function admitWork(session: Session, message: StartMessage): AdmittedWork | null {
  const refuse = (refusal: Refusal) => {
    session.refuse(message.seq, refusal);
    return null;
  };
  const { catalog, scheduler, workIds } = session.deps;
  if (!catalog.row(message.tool)) {
    return refuse({
      kind: "unknown_tool",
      message: `There is no tool named ${JSON.stringify(message.tool)}.`,
      next_step: "List the tools again and use one of those names.",
    });
  }
  const deep = tooDeep(message.arguments, MAX_ARGUMENT_DEPTH);
  if (deep !== null) {
    return refuse({
      kind: "invalid_request",
      message: `"${deep}" nests deeper than ${MAX_ARGUMENT_DEPTH} levels; no tool takes that.`,
      next_step: "Fix the arguments and call again.",
    });
  }
  if (session.works.has(message.seq)) {
    // The seq is how the connector cancels the work and learns its end: it must name one work.
    return refuse({
      kind: "invalid_request",
      message: `A call started with seq ${message.seq} is still running.`,
      next_step: "Give each start a seq of its own.",
    });
  }
  if (session.works.size >= MAX_ACTIVE_WORKS) {
    return refuse({
      kind: "busy",
      message: `This client already has ${MAX_ACTIVE_WORKS} browser calls running.`,
      next_step: "Wait for one to finish, then try again.",
    });
  }
  const barrier = session.deps.governance.person.barrier(session.holder, message.workspace);
  if (barrier !== null) {
    const workspace = message.workspace === undefined
      ? undefined
      : session.deps.workspaces.get(message.workspace);
    const controller = new AbortController();
    const id = workIds.next();
    return { id, message, workspace, inner: new InnerRefusals(), controller, next: { barrier } };
  }
  const resource = resourceOf(catalog.traits(message.tool).binds, message.arguments);
  // Checked before the workspace is held or minted, so a busy refusal leaves nothing behind. A
  // lane of its own is a new lane: no lane is named "", so it stands for one.
  const queueCheck = (lane: string | undefined): Refusal | null => {
    const full = scheduler.full(lane ?? "", resource);
    if (full === null) return null;
    return {
      kind: "busy",
      message: fullQueueMessage(scheduler, full),
      next_step: "Wait for some to finish, then try again.",
    };
  };
  const admitted = admitWorkspace(session, message, queueCheck);
  if ("refusal" in admitted) return refuse(admitted.refusal);
  const id = workIds.next();
  const controller = new AbortController();
  const lane = admitted.workspace?.id ?? id;
  // Room was checked a moment ago, with nothing awaited since: this queues.
  const queued = scheduler.enqueue(lane, controller.signal, resource);
  if (queued === null) return refuse(queueCheck(lane)!);
  const { workspace } = admitted;
  return { id, message, workspace, inner: new InnerRefusals(), controller, next: { queued } };
}

/** Which queue is full, in the refusal's words. */
function fullQueueMessage(scheduler: Scheduler, full: FullQueue): string {
  const { options } = scheduler;
  if (full === "total") {
    return `The service already has ${options.maxQueued} browser calls waiting.`;
  }
  if (full === "lane") {
    return `This workspace already has ${options.maxQueuedPerLane} browser calls waiting.`;
  }
  return `${options.maxQueuedPerResource} browser calls already wait for this tab (or for this ` +
    "workspace's tabs as a whole, or for the whole browser).";
}

/**
 * Counts a queued work as running, cancellable by its `start`'s seq. The connector is not told
 * it started: it cancels and hears the end by that seq, so a call costs it no wake-up between its
 * start and its end (decision 0238).
 */
function track(session: Session, work: AdmittedWork): void {
  session.works.set(work.message.seq, work.controller);
  session.deps.activity.works++;
  session.info.activeWorks = session.works.size;
}

/** Stops counting a work and reports its one outcome. */
function complete(session: Session, work: AdmittedWork, outcome: Outcome): void {
  session.works.delete(work.message.seq);
  session.deps.activity.works--;
  session.info.activeWorks = session.works.size;
  session.send({ type: "completed", seq: work.message.seq, outcome });
}

/**
 * Runs a work whose lane is free, within the settlement window. The lane (`release`) stays held
 * until the handler really returns, even past that window, and its audit record is written: the
 * next call on this workspace must not interleave with a step still in the browser.
 */
async function dispatch(
  session: Session,
  work: AdmittedWork,
  release: () => void,
): Promise<Settled> {
  const { deps } = session;
  // A clearable timer rather than AbortSignal.timeout, so nothing outlives the work.
  const settling = new AbortController();
  const settlementTimer = setTimeout(() => settling.abort(), deps.settlementMs);
  const context: ToolContext = {
    workspace: work.workspace!,
    browsers: deps.browsers,
    workspaces: deps.workspaces,
    signal: AbortSignal.any([work.controller.signal, settling.signal]),
    callerGone: session.gone,
    recordings: deps.recordings,
    policy: policyView(session, work),
  };
  const first: CallRecord = { session, work, context, step: false };
  context.steps = stepRunner(first);
  // The furthest record reached, for the audit of a call that has not ended by the window.
  let reached = first;
  const handling = runCall(first, (record) => reached = record)
    .catch((error) => ({ outcome: faultOutcome(error), record: reached }));
  const ended = await Promise.race([
    handling,
    unsettled(settling.signal, deps.settlementMs).then((outcome) => ({ outcome, record: reached })),
  ]);
  clearTimeout(settlementTimer);
  const { outcome } = ended;
  const told = callerOutcome(deps, work, outcome);
  const note = told.kind !== outcome.kind
    ? stoppedNote(work)
    : session.gone.aborted
    ? goneNote(outcome)
    : null;
  return {
    outcome: told,
    // Held until the handler really returns as well, even past the settlement window.
    release: () => void handling.finally(release),
    located: ended.record.located,
    ...note === null ? {} : { happened: { outcome, note } },
  };
}

/**
 * The outcome of a run that threw where nothing should (a fault of the service's own): answered
 * as unknown, since it may have reached the page, rather than never, with the lane held for good.
 */
function faultOutcome(error: unknown): Outcome {
  const why = error instanceof Error ? error.message : String(error);
  log("error", `a call failed inside the service: ${why}`);
  return {
    kind: "outcome_unknown",
    message: `The call failed inside the Ghostlight service (${why}).`,
    next_step: "It may or may not have happened: inspect the page before retrying.",
  };
}

/**
 * What the caller is told of a dispatched work: cancelled when it cancelled while the work ran;
 * a context-creating tool's success names its workspace.
 */
function callerOutcome(deps: SessionDeps, work: AdmittedWork, outcome: Outcome): Outcome {
  if (work.controller.signal.reason === STOPPED_BY_PERSON) {
    return {
      kind: "denied",
      message: "The person stopped this agent while the call ran; its workspace was ended.",
      next_step: "Do not carry on in the browser; part of the call may have happened.",
    };
  }
  // A handler that stopped for the cancellation says best what it did (which steps ran).
  if (work.controller.signal.aborted && outcome.kind !== "cancelled") {
    return {
      kind: "cancelled",
      message: "The call was cancelled while it ran.",
      next_step: "Inspect the page before repeating it: part of it may have happened.",
    };
  }
  if (
    outcome.kind === "success" && deps.catalog.traits(work.message.tool).createsContext &&
    work.workspace
  ) {
    return { ...outcome, workspace: work.workspace.id };
  }
  return outcome;
}

/**
 * The audit's note on a call whose caller is told it was cancelled or stopped although the
 * browser reported how it ended: the cancellation came after the effect.
 */
function stoppedNote(work: AdmittedWork): string {
  return work.controller.signal.reason === STOPPED_BY_PERSON
    ? "the person stopped this agent while the call ran; the caller was told it was stopped"
    : "cancelled by the caller while it ran; the caller was told it was cancelled";
}

/**
 * The audit's note on a call whose caller went away while it ran: a single call ran to its end,
 * a multi-step one stopped after the step in progress (its message says which).
 */
function goneNote(outcome: Outcome): string {
  const note = "the caller went away while the call ran";
  return outcome.kind === "success" ? note : `${note}: ${outcome.message}`.slice(0, 1000);
}

/** What a work that never left its queue amounted to: nothing happened in the browser. */
function retiredOutcome(reason: "cancelled" | "queue_deadline", waitedMs: number): Outcome {
  if (reason === "cancelled") {
    return {
      kind: "cancelled",
      message: "The call was cancelled before it reached the browser; nothing was done.",
      next_step: "Call it again if it is still wanted.",
    };
  }
  return {
    kind: "not_dispatched",
    message: `The call waited ${Math.round(waitedMs / 100) / 10} s behind this workspace's ` +
      "other calls and was not started.",
    next_step: "Nothing was done in the browser; it is safe to retry.",
  };
}

/** What a work queued in a workspace that was released before its turn amounted to. */
function releasedOutcome(): Outcome {
  return {
    kind: "not_dispatched",
    message: "The workspace was released before this call's turn came; nothing was done.",
    next_step: "Call tabs_context_mcp to start a new workspace, then retry there.",
  };
}

/** Resolves when the settlement window closes on a work that has not ended. */
function unsettled(settlement: AbortSignal, settlementMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    settlement.addEventListener("abort", () =>
      resolve({
        kind: "outcome_unknown",
        message: `The call did not settle within ${settlementMs / 1000} s and was abandoned.`,
        next_step: "It may have partly happened: inspect the page before retrying.",
      }), { once: true });
  });
}
