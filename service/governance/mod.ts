/**
 * Governance: the policy (JSONC files by layer, hot reloaded), the sacred sites, and the one
 * decision function every call goes through. The person's own controls (hold, stop, the
 * attention circuit) are `person.ts`'s. The extension holds no policy; everything here runs in
 * the service.
 *
 * @module
 */

export {
  type CallFacts,
  decide,
  type Decision,
  explainPolicy,
  type PolicyExplanation,
  Restriction,
  type Rules,
  sacredRule,
  type Verdict,
} from "./decide.ts";
export { describePolicy } from "./describe.ts";
export { hostOfUrl, type PageHost } from "./hosts.ts";
export { compileNetworkRules, TooManyNetworkRules } from "./network_rules.ts";
export { ALL_OPEN, type PolicyLayer, readPolicyText } from "./policy_file.ts";
export { MACHINE_POLICY_FILE, type PolicyFileState, PolicyStore } from "./policy_store.ts";
export { BUILT_IN_SACRED } from "./sacred.ts";
export { DEFAULT_TEMPLATE, TEMPLATES } from "./templates.ts";
export {
  type Barrier,
  NoSuchWorkspace,
  PersonControls,
  type PersonEffects,
  type PersonOptions,
} from "./person.ts";
