/**
 * The running service: binds the instance's sockets, admits connectors after the proof, serves
 * the control API, and (when demand-started) exits after a quiet period.
 *
 * @module
 */

export { type Daemon, type DaemonOptions, startDaemon } from "./start_daemon.ts";
