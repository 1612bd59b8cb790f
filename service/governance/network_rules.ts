/**
 * The policy in the set form the browser's request filter needs: for one agent and the
 * capabilities of what it does, which hosts are refused (sacred, or denied by the policy), as a
 * bounded list of host rules the extension installs on the agent's tabs (decision 0275). A
 * request from such a tab to a refused host is stopped before it leaves the browser.
 *
 * The policy's answer for a host depends only on which of the named domains (every domain a
 * grant, a restriction or a sacred list names) the host equals or lies under, so the host space
 * splits into few regions: each named domain itself, the rest of its subdomains, and everything
 * else. Each region is decided once, on a host that stands for it, by {@linkcode decide} itself;
 * a region that decides as its enclosing one needs no rule. The most specific region's rule must
 * win, so deeper domains get higher priorities.
 *
 * @module
 */

import { type NetworkRule } from "../../shared/browser_protocol.ts";
import { type CallFacts, decide, type Rules } from "./decide.ts";

/** A rule set that cannot be made within the browser's bounds: the call is refused. */
export class TooManyNetworkRules extends Error {}

/**
 * The host rules that refuse, for `call`'s principal, capabilities and restrictions, every host the
 * policy refuses. A request matching no rule is let through; the most specific matching rule
 * (the highest priority) decides.
 */
export function compileNetworkRules(
  rules: Rules,
  call: Omit<CallFacts, "host">,
  max: number,
): NetworkRule[] {
  const named = namedDomains(rules, call);
  // Each named domain may need two rules, and deciding each costs a pass over the policy: a
  // policy naming far more domains than the bound is refused before that work.
  if (named.size > 2 * max) throw tooMany(max);
  const refused = (host: string) => {
    const verdict = decide(rules, { ...call, host }).verdict;
    return verdict === "denied" || verdict === "sacred";
  };
  const compiled: NetworkRule[] = [];
  const everywhere = refused(probe(named, ""));
  if (everywhere) compiled.push({ priority: 1, action: "block", host: null, subdomains: true });
  // Shallower domains first, so a domain's enclosing region is decided before it.
  const ordered = [...named].sort((a, b) => labels(a) - labels(b) || a.localeCompare(b));
  const under = new Map<string, boolean>();
  for (const domain of ordered) {
    const enclosing = enclosingDomain(named, domain);
    const outer = enclosing === null ? everywhere : under.get(enclosing)!;
    const rest = refused(probe(named, domain));
    under.set(domain, rest);
    const depth = 2 * labels(domain);
    if (rest !== outer) {
      compiled.push({
        priority: depth,
        action: rest ? "block" : "allow",
        host: domain,
        subdomains: true,
      });
    }
    const itself = refused(domain);
    if (itself !== rest) {
      compiled.push({
        priority: depth + 1,
        action: itself ? "block" : "allow",
        host: domain,
        subdomains: false,
      });
    }
    if (compiled.length > max) throw tooMany(max);
  }
  // The policy decides an IPv4-mapped IPv6 address as the IPv4 address it reaches, but the
  // browser writes it in IPv6 form (`[::ffff:7f00:2]`), which no rule for `127.0.0.2` matches: a
  // named IPv4 address decided otherwise than everything else gets its twin in that form.
  for (const domain of ordered) {
    const mapped = mappedForm(domain);
    if (mapped === null) continue;
    const itself = refused(domain);
    if (itself === everywhere) continue;
    compiled.push({
      priority: 2 * labels(domain) + 1,
      action: itself ? "block" : "allow",
      host: mapped,
      subdomains: false,
    });
    if (compiled.length > max) throw tooMany(max);
  }
  return compiled;
}

/** An IPv4 address's IPv4-mapped IPv6 form as a URL's host shows it, or null for a name. */
function mappedForm(domain: string): string | null {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(domain)) return null;
  return new URL(`http://[::ffff:${domain}]/`).hostname;
}

function tooMany(max: number): TooManyNetworkRules {
  return new TooManyNetworkRules(
    `the policy names too many hosts for the browser to enforce on requests (more than ${max} ` +
      "rules)",
  );
}

/** Every domain the rules name for this call: grants, restrictions and sacred lists. */
function namedDomains(rules: Rules, call: Omit<CallFacts, "host">): Set<string> {
  const patterns = [
    ...rules.builtInSacred,
    ...rules.layers.flatMap((layer) => [
      ...layer.sacred,
      ...layer.grants.flatMap((grant) => grant.hosts),
    ]),
    ...call.restrictions.flatMap((restriction) => restriction.hosts ?? []),
  ];
  const named = new Set<string>();
  for (const pattern of patterns) {
    if (pattern === "*") continue;
    named.add(pattern.startsWith("*.") ? pattern.slice(2) : pattern);
  }
  return named;
}

/** The nearest named domain that `domain` lies under, or null. */
function enclosingDomain(named: Set<string>, domain: string): string | null {
  for (let dot = domain.indexOf("."); dot !== -1; dot = domain.indexOf(".", dot + 1)) {
    const suffix = domain.slice(dot + 1);
    if (named.has(suffix)) return suffix;
  }
  return null;
}

/**
 * A host that stands for the region under `domain` and under no deeper named domain (for "" a
 * one-label host under none): a label no named domain uses there.
 */
function probe(named: Set<string>, domain: string): string {
  for (let n = 0;; n++) {
    const label = `ghostlight-probe-${n}`;
    const host = domain === "" ? label : `${label}.${domain}`;
    if (!named.has(host)) return host;
  }
}

function labels(domain: string): number {
  return domain.split(".").length;
}
