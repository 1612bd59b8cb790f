/**
 * The service's log: one line per event on stderr and in the instance's rotated log file.
 *
 * @module
 */

export { configureLog, log, logSafe, MAX_LOG_MESSAGE } from "./log.ts";
export { type LogEvent, loggedEvents } from "./events.ts";
