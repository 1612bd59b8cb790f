/**
 * The control API: a few routes on the owner-only control socket, served by Hono: the status
 * (`ghostlight status`, `browser launch`) and the person's controls (`hold`, `resume`, `stop`,
 * `take-over`).
 *
 * @module
 */

export { controlApp, type ControlSources } from "./app.ts";
export { askPerson, fetchProbe, fetchStatus, requestControl } from "./client.ts";
export { median, Probe } from "./probe.ts";
export { ControlProofs, MAX_REMEMBERED_PROOFS, PROOF_WINDOW_MS } from "./proof.ts";
export {
  CONTROL_READ_MS,
  MAX_CONTROL_BODY,
  MAX_CONTROL_CONNECTIONS,
  MAX_CONTROL_HEAD,
  serveControl,
} from "./serve_control.ts";
export { Status } from "./status.ts";
