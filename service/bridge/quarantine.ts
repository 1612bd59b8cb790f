/**
 * Quarantined tabs, from the browser's reports to the scheduler (decision 0161): a command on a
 * tab cut off with its outcome unknown quarantines that tab; its executor's proof that the
 * command ended (its late answer, or its terminal acknowledgement from the same executor
 * generation), the tab closing, or a new executor generation clears it. Never time.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import type { BrowserEvents } from "../browser/mod.ts";
import { log } from "../log/mod.ts";
import type { Resource, Scheduler } from "../scheduler/mod.ts";
import type { CallRecord, Verdict } from "./stages.ts";

/** The scheduler's surface for a model-facing tab id. */
export function tabSurface(tabId: number): string {
  return `tab:${tabId}`;
}

/**
 * What a call binds, from its tool's trait and its arguments: a surface call names its tab by
 * `tabId`; one without a tab holds its workspace's topology.
 */
export function resourceOf(
  binds: "surface" | "topology" | "browser",
  args: Record<string, unknown>,
): Resource {
  if (binds === "browser") return { kind: "browser" };
  if (binds === "surface" && typeof args.tabId === "number") {
    return { kind: "surface", id: tabSurface(args.tabId) };
  }
  return { kind: "topology" };
}

/** The browser's reports that enter and clear quarantines in `scheduler`. */
export function quarantineEvents(scheduler: Scheduler): BrowserEvents {
  const { quarantine } = scheduler;
  const cleared = (surfaces: string[], why: string) => {
    for (const surface of surfaces) log("info", `${surface} left quarantine: ${why}`);
  };
  return {
    commandUnknown: (link, native, command) => {
      const surface = tabSurface(link.compose(native));
      quarantine.enter(surface, command);
      if (quarantine.has(surface)) {
        log("info", `${surface} quarantined: command ${command.command}`);
      }
    },
    commandEnded: (command) => cleared(quarantine.commandEnded(command), "its command ended"),
    executorEnded: (executor) => cleared(quarantine.executorEnded(executor), "executor restarted"),
    tabRemoved: (link, native) => {
      const surface = tabSurface(link.compose(native));
      if (quarantine.surfaceGone(surface)) cleared([surface], "the tab closed");
    },
  };
}

/** The tabs quarantined now, for status. */
export function quarantinedTabs(
  scheduler: Scheduler,
): { tabId: number; since: string; unproven: number }[] {
  return scheduler.quarantine.list().map((entry) => ({
    tabId: Number(entry.surface.slice("tab:".length)),
    since: entry.since.toISOString(),
    unproven: entry.unproven,
  }));
}

/** What a call on a quarantined tab is told: nothing was sent, why, and what ends it. */
export function quarantinedOutcome(tabId: unknown): Outcome {
  return {
    kind: "not_dispatched",
    message: `Tab ${tabId} is quarantined: an earlier command on it was cut off with its outcome ` +
      "unknown, and the browser has not yet confirmed that command ended. Nothing was sent to " +
      "the tab.",
    next_step: "Work in another tab meanwhile. The quarantine ends when the browser confirms " +
      "that command ended, when the tab is closed (tab_control close), or when the browser " +
      "restarts; waiting alone does not end it. 'ghostlight status' lists quarantined tabs.",
  };
}

/**
 * The `quarantine` stage: a call on a quarantined tab is refused, nothing sent. A call was
 * already held back by its queue (the scheduler takes no work for such a tab); this stage is
 * what holds a step of a multi-step call back the same way, by what the step binds.
 */
export function refuseQuarantined(record: CallRecord): Verdict {
  const { session, work: { message: { tool, arguments: args } } } = record;
  const resource = resourceOf(session.deps.catalog.traits(tool).binds, args);
  if (resource.kind !== "surface" || !session.deps.scheduler.quarantine.has(resource.id)) {
    return { record };
  }
  return { outcome: quarantinedOutcome(args.tabId) };
}
