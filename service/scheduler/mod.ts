/**
 * The service's work scheduler: lanes per workspace, fairness across them, bounded queues and a
 * queue deadline.
 *
 * @module
 */

export {
  type Admission,
  DEFAULT_SCHEDULER_OPTIONS,
  Scheduler,
  type SchedulerOptions,
} from "./scheduler.ts";
