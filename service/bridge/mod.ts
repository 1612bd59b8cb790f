/**
 * One MCP connector's session on the bridge: catalog requests, workspaces, and works. A work is
 * known to the connector by its `start`'s sequence number (which it cancels and ends by) and to
 * the audit by its work id, which never leaves the service.
 * Everything a session shares with the others (workspaces and their holds, the scheduler, the
 * work ids) is built once by the daemon and handed in.
 *
 * @module
 */

export { PromptRelay } from "./prompt_relay.ts";
export { quarantinedTabs, quarantineEvents } from "./quarantine.ts";
export { releaseAfterRunning } from "./release.ts";
export { RemoteShores } from "./remote_shores.ts";
export { serveSession } from "./serve_session.ts";
export {
  type GovernanceDeps,
  type RemoteBinding,
  type SessionDeps,
  type SessionInfo,
  WorkIds,
} from "./session.ts";
export { MAX_ACTIVE_WORKS } from "./work.ts";
