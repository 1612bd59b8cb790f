/**
 * Installing Ghostlight into a person's own browsers and MCP clients, removing it again, and
 * checking every hop: `ghostlight install`, `uninstall` and `doctor`.
 *
 * @module
 */

export { BrowserId, nativeHostManifest, type RegistryValue } from "./browsers.ts";
export { ClientId } from "./clients.ts";
export { doctor, DoctorReport, Finding } from "./doctor.ts";
export {
  EXTENSION_FILES,
  extensionIdFromKey,
  extensionSourceDir,
  readManifest,
} from "./extension.ts";
export type { Change } from "./file_changes.ts";
export { currentHost, type Host } from "./host.ts";
export {
  install,
  type InstallOptions,
  type InstallReport,
  type Outcome,
  type RegistryWriter,
  type Site,
} from "./install.ts";
export { installedPlan } from "./launchers.ts";
export { installLayout, type Layout } from "./layout.ts";
export { currentPayload, installedConfig, type Payload, sourceFiles } from "./payload.ts";
export { uninstall, type UninstallReport } from "./uninstall.ts";
export { regAddArgs, regDeleteArgs } from "./windows.ts";
