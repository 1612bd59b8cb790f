/**
 * The service's work scheduler: lanes per workspace, fairness across them, resources below the
 * workspace (a tab, the workspace's topology, the whole browser), bounded queues, a queue
 * deadline, and the quarantine of a tab whose command's outcome is unknown.
 *
 * @module
 */

export { type CommandRef, Quarantine, type QuarantinedSurface } from "./quarantine.ts";
export {
  type Admission,
  DEFAULT_SCHEDULER_OPTIONS,
  type FullQueue,
  type Resource,
  Scheduler,
  type SchedulerOptions,
} from "./scheduler.ts";
