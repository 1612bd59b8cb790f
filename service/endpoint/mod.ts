/**
 * The service's local endpoints: the owner-only folders, the Unix sockets bound under the
 * start-up lock, and the keys each role proves itself with. (Not Chrome's "native
 * host": that is the browser connector.)
 *
 * @module
 */

export { ensureOwnedDir } from "./owned_dir.ts";
export { auditSecret, controlKey, ensureKeys, type ServiceKeys } from "./keys.ts";
export {
  AlreadyRunning,
  bindSockets,
  describeInstance,
  type Listeners,
  socketAlive,
  SocketGuard,
  type SocketName,
} from "./sockets.ts";
