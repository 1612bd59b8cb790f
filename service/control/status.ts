/**
 * What the control API's `GET /status` returns: the service, its browsers and connectors, its
 * workspaces, the plans agents stated, and the person's side (policy, audit, pauses). One schema
 * for the route and its readers.
 *
 * @module
 */

import { z } from "zod";
import { PersonState } from "../../shared/person.ts";

/** What `GET /status` returns. */
export const Status = z.object({
  service: z.object({
    version: z.string(),
    instance: z.string().nullable(),
    pid: z.number(),
    startedAt: z.string(),
  }),
  browsers: z.array(z.object({
    slot: z.number(),
    extensionVersion: z.string(),
    userAgent: z.string(),
    launchToken: z.string().optional(),
    connectedAt: z.string(),
    /** The features its extension declared in its hello. */
    features: z.array(z.string()).optional(),
    /** What is wrong between this service and that extension, and the upgrade step. */
    mismatch: z.string().optional(),
  })),
  connectors: z.array(z.object({
    /** Who it acts for, fixed at its start: what the policy's grants name. */
    principal: z.string().optional(),
    /** What its client says it is (`clientInfo`): shown, never authority. Proven readers only. */
    client: z.string().optional(),
    /** Its client calls itself by another principal's name, in words. */
    mismatch: z.string().optional(),
    connectedAt: z.string(),
    activeWorks: z.number(),
  })),
  /**
   * Each running remote shore's tunnel, as the shore last said (decision 0460): `connected`, or
   * `degraded` with why. Proven readers only (it names remotes and hosts).
   */
  remotes: z.array(z.object({
    name: z.string(),
    host: z.string(),
    state: z.enum(["connected", "degraded"]),
    why: z.string().optional(),
    since: z.string(),
  })).optional(),
  workspaces: z.number(),
  /** Works across the service: dispatched and still running, and waiting in their lanes. */
  works: z.object({ running: z.number(), queued: z.number() }).optional(),
  /**
   * Tabs that take no new calls: a command on each was cut off with its outcome unknown, and its
   * end is not proven yet (`unproven` such commands) — decision 0161.
   */
  quarantined: z.array(z.object({ tabId: z.number(), since: z.string(), unproven: z.number() }))
    .optional(),
  /** The plans agents stated with update_plan, newest state per workspace. */
  plans: z.array(z.object({
    client: z.string(),
    domains: z.array(z.string()),
    approach: z.array(z.string()),
    at: z.string(),
  })).optional(),
  /** The person's side: pauses, stops, each workspace's state, the policy and the audit. */
  person: PersonState.optional(),
  /**
   * The service's sockets another process removed or replaced, newest last (at most 16): the
   * service bound each again (decision 0250).
   */
  replacedSockets: z.array(z.object({
    socket: z.enum(["bridge", "browser", "control"]),
    at: z.string(),
  })).max(16).optional(),
  /**
   * Set when the request carried no control proof: what was left out, and why (decision 0335).
   */
  withheld: z.string().optional(),
});
export type Status = z.infer<typeof Status>;

/** Why an unproven reader sees less, as the answer says it. */
export const WITHHELD_UNPROVEN = "who the agents are, their plans, and each workspace's sites " +
  "and policy are shown only to a request that carries the control proof (the person's " +
  "'ghostlight status')";

/**
 * What a request without the control proof is shown of `status` (decision 0335): that the
 * service runs, its browsers, how many connectors, calls and workspaces there are, and which
 * sockets were replaced; never a principal, a client's name, a plan, a host or the policy.
 */
export function unprovenStatus(status: Status): Status {
  return {
    service: status.service,
    browsers: status.browsers,
    connectors: status.connectors.map(({ connectedAt, activeWorks }) => ({
      connectedAt,
      activeWorks,
    })),
    workspaces: status.workspaces,
    ...(status.works ? { works: status.works } : {}),
    ...(status.quarantined ? { quarantined: status.quarantined } : {}),
    ...(status.replacedSockets ? { replacedSockets: status.replacedSockets } : {}),
    withheld: WITHHELD_UNPROVEN,
  };
}
