/**
 * Ghostlight's version: what every executable reports (`ghostlight version`, the service's
 * hello and status, the MCP `serverInfo`, `ghostlight-browser-connector --version`). The
 * extension's manifest declares the same version; `version_test.ts` keeps the two equal.
 *
 * @module
 */

/** The version of this Ghostlight, the same for all three executables and the extension. */
export const VERSION = "0.1.0";
