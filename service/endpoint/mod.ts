/**
 * The service's local endpoints: the owner-only folders, the Unix sockets bound under the
 * start-up lock, and the secret that proves the service to connectors. (Not Chrome's "native
 * host": that is the browser connector.)
 *
 * @module
 */

export { ensureOwnedDir } from "./owned_dir.ts";
export { ensureSecret } from "./secret.ts";
export {
  AlreadyRunning,
  bindSockets,
  describeInstance,
  type Listeners,
  socketAlive,
} from "./sockets.ts";
