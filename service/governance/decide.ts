/**
 * The policy decision: a pure function from the rules in force and the facts of one call (who,
 * on which host, needing which capabilities, under which per-call restrictions) to a verdict and
 * the rule behind it. Sacred sites first, whatever else; then the per-call restrictions, always
 * enforced; then each policy layer, where deny overrides allow, and a layer in observe mode
 * records what it would deny instead of denying it. Every layer must allow: a machine-wide layer
 * and a per-call restriction can only tighten. A layer may also ask the person (decision 0360):
 * deny wins over ask and ask over allow (within a layer, an allow more specific than its ask wins,
 * decision 0482), so a layer can turn another's allow into an ask, never an ask into an allow;
 * only the person's own yes for the call (`CallFacts.yes`) answers it.
 *
 * @module
 */

import { z } from "zod";
import { Capability } from "../catalog/mod.ts";
import {
  BROWSER_PAGES,
  hostMatches,
  hostOfName,
  HostPattern,
  type PageHost,
  sacredCovers,
} from "./hosts.ts";
import type { PolicyLayer } from "./policy_file.ts";

/**
 * A restriction one call (or one connector) asks for, on top of the policy: only these
 * capabilities, only these hosts. Checked when it arrives; an invalid one refuses the call.
 */
export const Restriction = z.object({
  /** Who asked, as a rule names it. */
  source: z.string().max(100),
  capabilities: z.array(Capability).max(4).optional(),
  hosts: z.array(HostPattern).max(64).optional(),
}).strict();
export type Restriction = z.infer<typeof Restriction>;

/** Everything that decides a call, apart from the call. */
export interface Rules {
  /** The policies in force, the machine-wide one (if any) first, the user's last. */
  layers: readonly PolicyLayer[];
  /** The built-in sacred sites. */
  builtInSacred: readonly string[];
}

/** What is known of one call when it is decided. */
export interface CallFacts {
  /** Who the connector acts for, fixed at its start (never the client's own name for itself). */
  principal: string;
  /** The host of the page the call touches, or null when it touches none. */
  host: PageHost;
  /** What the call's action needs, from the catalog. */
  capabilities: readonly Capability[];
  restrictions: readonly Restriction[];
  /**
   * The person's yes that covers `capability` on `host` for this call (an answer to a question,
   * once or for the site), as the rule words it, or null: what answers a layer's ask.
   */
  yes?: (host: string, capability: Capability) => string | null;
}

/**
 * `allowed`; `observed` (a layer in observe mode would have denied or asked it: recorded, let
 * through); `ask` (the person must say yes first); `denied`; `sacred` (a sacred site, refused
 * whatever the policy).
 */
export type Verdict = "allowed" | "observed" | "ask" | "denied" | "sacred";

/** A decision: the verdict, the capability it turned on (if any) and the rule, in words. */
export interface Decision {
  verdict: Verdict;
  capability: Capability | null;
  rule: string;
}

/** Decides one call. */
export function decide(rules: Rules, call: CallFacts): Decision {
  const first = call.capabilities[0] ?? null;
  if (call.host !== null) {
    const sacred = sacredRule(rules, call.host);
    if (sacred !== null) return { verdict: "sacred", capability: first, rule: sacred };
  }
  const restricted = restrictionDenial(call);
  if (restricted !== null) return restricted;
  if (call.host === null) {
    return { verdict: "allowed", capability: first, rule: "the call touches no site" };
  }
  if (first === null) {
    return { verdict: "allowed", capability: null, rule: "the call needs no capability" };
  }
  let observed: Decision | null = null;
  let asked: Decision | null = null;
  let allowedBy = "";
  for (const capability of call.capabilities) {
    for (const layer of rules.layers) {
      const said = layerSays(layer, call.principal, call.host, capability);
      if (said.says === "allow") {
        if (capability === first) allowedBy = said.rule;
        continue;
      }
      if (layer.mode === "observe") {
        observed ??= { verdict: "observed", capability, rule: `observe mode: ${said.rule}` };
        continue;
      }
      if (said.says === "deny") return { verdict: "denied", capability, rule: said.rule };
      const yes = call.yes?.(call.host, capability) ?? null;
      if (yes === null) asked ??= { verdict: "ask", capability, rule: said.rule };
      else if (capability === first) allowedBy = yes;
    }
  }
  return asked ?? observed ?? { verdict: "allowed", capability: first, rule: allowedBy };
}

/** The rule that makes a host sacred, or null when it is not. */
export function sacredRule(rules: Rules, host: string): string | null {
  if (BROWSER_PAGES.has(host)) {
    return `${host} pages are the browser's own (settings, extensions, Ghostlight's controls)`;
  }
  const source = sacredSource(rules, host);
  return source === null ? null : `${host} is a sacred site (${source})`;
}

/**
 * What makes a host sacred, in words that do not repeat the host (a frame's or a tab's host is
 * the page's choice, and is told only inside the fence): the list and the entry that cover it.
 * Null when it is not sacred.
 */
export function sacredSource(rules: Rules, host: string): string | null {
  if (BROWSER_PAGES.has(host)) {
    return "the browser's own pages: settings, extensions, Ghostlight's controls";
  }
  const builtIn = rules.builtInSacred.find((entry) => sacredCovers(entry, host));
  if (builtIn !== undefined) {
    return `the built-in list of banking and sign-in sites names ${builtIn}`;
  }
  for (const layer of rules.layers) {
    const entry = layer.sacred.find((candidate) => sacredCovers(candidate, host));
    if (entry !== undefined) return `"sacred" in ${layer.source} names ${entry}`;
  }
  return null;
}

/**
 * Whether a decision refuses what it decided (a policy denial or a sacred site), or needs the
 * person's yes it does not have (only the gate's decision stage can ask; anywhere else an
 * unanswered ask refuses).
 */
export function refuses(decision: Decision): boolean {
  return decision.verdict === "denied" || decision.verdict === "sacred" ||
    decision.verdict === "ask";
}

/** The first restriction the call breaks, as a denial. */
function restrictionDenial(call: CallFacts): Decision | null {
  for (const restriction of call.restrictions) {
    const allowed = restriction.capabilities;
    const missing = allowed &&
      call.capabilities.find((capability) => !allowed.includes(capability));
    if (missing) {
      return {
        verdict: "denied",
        capability: missing,
        rule: `${restriction.source} allows only ${listOr(allowed, "no capability")}`,
      };
    }
    const hosts = restriction.hosts;
    if (call.host !== null && hosts && !hosts.some((pattern) => hostMatches(pattern, call.host!))) {
      return {
        verdict: "denied",
        capability: call.capabilities[0] ?? null,
        rule: `${restriction.source} allows only ${listOr(hosts, "no host")}`,
      };
    }
  }
  return null;
}

/** A matching grant's ask or allow, with how specifically it names the principal and host. */
interface Matched {
  rank: { host: number; principal: number };
  rule: string;
}

/** How specifically a host pattern names a host: exactly, by a suffix, or `*`. */
function hostRank(pattern: string): number {
  return pattern === "*" ? 0 : pattern.startsWith("*.") ? 1 : 2;
}

/** Whether `a` is at least as specific as `b` in principal and host, and more in one of them. */
function moreSpecific(a: Matched["rank"], b: Matched["rank"]): boolean {
  return a.host >= b.host && a.principal >= b.principal &&
    (a.host > b.host || a.principal > b.principal);
}

/** Whether a grant is for `principal`. */
function grantCovers(grant: PolicyLayer["grants"][number], principal: string): boolean {
  return grant.principals.some((pattern) => pattern === "*" || pattern === principal);
}

/**
 * What one layer says of one capability for one principal on one host, with the rule: any
 * matching grant's deny; else its asks and allows, where an allow more specific than every
 * matching ask wins (decision 0482: at least as specific in principal and host, and more in one;
 * a tie or a crossing asks); else the layer's default.
 */
function layerSays(
  layer: PolicyLayer,
  principal: string,
  host: string,
  capability: Capability,
): { says: "allow" | "ask" | "deny"; rule: string } {
  const name = principal.toLowerCase();
  const allows: Matched[] = [];
  const asks: Matched[] = [];
  for (const [index, grant] of layer.grants.entries()) {
    if (!grantCovers(grant, name)) continue;
    const matched = grant.hosts
      .filter((pattern) => hostMatches(pattern, host))
      .sort((a, b) => hostRank(b) - hostRank(a))[0];
    if (matched === undefined) continue;
    const which = `grant ${index + 1} of ${layer.source} (${matched}`;
    if (grant.deny.includes(capability)) {
      return { says: "deny", rule: `${which}) denies ${capability}` };
    }
    const rank = { host: hostRank(matched), principal: grant.principals.includes(name) ? 1 : 0 };
    if (grant.ask.includes(capability)) {
      asks.push({ rank, rule: `${which}) asks the person before ${capability}` });
    }
    if (grant.allow.includes(capability)) {
      allows.push({ rank, rule: `${which}) allows ${capability}` });
    }
  }
  const narrower = allows.find((allow) => asks.every((ask) => moreSpecific(allow.rank, ask.rank)));
  if (asks.length > 0 && narrower === undefined) return { says: "ask", rule: asks[0].rule };
  if (narrower !== undefined) {
    return {
      says: "allow",
      rule: asks.length === 0 ? narrower.rule : `${narrower.rule}, more specific than its ask`,
    };
  }
  return {
    says: layer.default,
    rule: layer.grants.length === 0 && layer.default === "allow"
      ? layer.source
      : `"default": "${layer.default}" of ${layer.source}`,
  };
}

/**
 * Whether the layers refuse `capability` to `principal` on every host there is: a layer in
 * enforce mode whose grant for it denies it on `*`, or whose default is deny and no grant for it
 * allows it anywhere. Anything less certain counts as allowed somewhere (the gate still decides
 * each call), so a tool is never withheld that some call could use.
 */
export function deniedEverywhere(
  rules: Rules,
  principal: string,
  capability: Capability,
): boolean {
  return rules.layers.some((layer) => {
    if (layer.mode !== "enforce") return false;
    const grants = layer.grants.filter((grant) => grantCovers(grant, principal));
    if (grants.some((grant) => grant.hosts.includes("*") && grant.deny.includes(capability))) {
      return true;
    }
    return layer.default === "deny" &&
      !grants.some((grant) => grant.allow.includes(capability) || grant.ask.includes(capability));
  });
}

/** What the policy allows one principal on one host, capability by capability (for `explain`). */
export interface PolicyExplanation {
  principal: string;
  host: string;
  /** Set when the host is sacred: then nothing is allowed. */
  sacred: string | null;
  capabilities: Record<Capability, { verdict: Verdict; rule: string }>;
}

/**
 * Explains what the rules allow `principal` on `name`, for every capability, with the host
 * normalised exactly as enforcement sees a page there (case, trailing dot, IDN, IPv4-mapped
 * IPv6). Null when `name` is not a bare host.
 */
export function explainPolicy(
  rules: Rules,
  principal: string,
  name: string,
): PolicyExplanation | null {
  const host = hostOfName(name);
  if (host === null) return null;
  const capabilities = {} as PolicyExplanation["capabilities"];
  for (const capability of Capability.options) {
    const decision = decide(rules, {
      principal,
      host,
      capabilities: [capability],
      restrictions: [],
    });
    capabilities[capability] = { verdict: decision.verdict, rule: decision.rule };
  }
  return { principal, host, sacred: sacredRule(rules, host), capabilities };
}

function listOr(items: readonly string[], none: string): string {
  return items.length === 0 ? none : items.join(", ");
}
