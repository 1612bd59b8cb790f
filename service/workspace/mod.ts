/**
 * Workspaces: one agent's share of the browser. A workspace owns its tabs and its tab group;
 * its id is an opaque bearer capability, compared exactly and never logged. The registry knows
 * which workspaces exist; the holds know which connections keep each one alive.
 *
 * @module
 */

export {
  type AgentPlan,
  groupTitle,
  keepImage,
  type KeptImage,
  MAX_IMAGES,
  MAX_TABS_PER_WORKSPACE,
  MAX_WORKSPACES,
  type Workspace,
  WorkspaceLimit,
  WorkspaceRegistry,
} from "./workspace_registry.ts";
export {
  type Holder,
  MAX_WORKSPACES_PER_CONNECTION,
  WorkspaceHolds,
  type WorkspaceHoldsOptions,
} from "./workspace_holds.ts";
