/**
 * Workspaces: one agent's share of the browser. A workspace owns its tabs and its tab group;
 * its id is an opaque bearer capability, compared exactly and never logged.
 *
 * @module
 */

export {
  type AgentPlan,
  keepImage,
  type KeptImage,
  MAX_IMAGES,
  MAX_TABS_PER_WORKSPACE,
  MAX_WORKSPACES,
  type Workspace,
  WorkspaceLimit,
  WorkspaceRegistry,
} from "./workspace_registry.ts";
