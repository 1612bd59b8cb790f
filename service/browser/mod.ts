/**
 * Browser routing: the browsers attached through browser connectors (`BrowserHub`), each a link
 * that carries commands to its extension and results back (`BrowserLink`), its tabs' state, and
 * byte payloads sent as verified chunks.
 *
 * @module
 */

export {
  type BrowserEvents,
  BrowserHub,
  MAX_KNOWN_BROWSERS,
  type PersonHandler,
} from "./browser_hub.ts";
export {
  BrowserLink,
  type CommandReports,
  decomposeTabId,
  DEFAULT_OPERATION_TIMEOUT_MS,
  type ExecutorCommand,
  type TabChange,
} from "./browser_link.ts";
export { BrowserError, type BrowserErrorKind, dialogOpenError } from "./errors.ts";
export { sendTransfers, withTransfers } from "./transfer.ts";
export {
  type ConsoleEntry,
  type MainDocument,
  type NetworkEntry,
  type OpenDialog,
  type Press,
  type TabEvent,
  TabState,
} from "./tab_state.ts";
