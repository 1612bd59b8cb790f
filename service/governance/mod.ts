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
  deniedEverywhere,
  explainPolicy,
  type PolicyExplanation,
  refuses,
  Restriction,
  type Rules,
  sacredRule,
  sacredSource,
  type Verdict,
} from "./decide.ts";
export { describePolicy } from "./describe.ts";
export { hostOfName, hostOfUrl, type PageHost } from "./hosts.ts";
export { compileNetworkRules, TooManyNetworkRules } from "./network_rules.ts";
export { ALL_OPEN, type PolicyLayer, readPolicyText } from "./policy_file.ts";
export {
  MACHINE_POLICY_FILE,
  MAX_POLICY_BYTES,
  NotSaved,
  type PolicyFileState,
  PolicyStore,
  readPolicySource,
} from "./policy_store.ts";
export { withheldTools } from "./projection.ts";
export { claimMismatch, nameAsPrincipal } from "./principals.ts";
export { BUILT_IN_SACRED } from "./sacred.ts";
export { DEFAULT_TEMPLATE, TEMPLATES } from "./templates.ts";
export {
  type Barrier,
  NoSuchWorkspace,
  PersonControls,
  type PersonEffects,
  type PersonOptions,
} from "./person.ts";
