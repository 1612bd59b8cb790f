/**
 * A policy in words, for `ghostlight policy explain`: what it does by default, what each grant
 * opens or closes for whom and where, and which sites are never touched.
 *
 * @module
 */

import type { Capability } from "../catalog/mod.ts";
import type { Grant, PolicyLayer } from "./policy_file.ts";

const VERBS: Record<Capability, string> = {
  read: "read pages",
  action: "act (click, type, press keys)",
  write: "put data in (fill forms, upload)",
  execute: "run page JavaScript",
};

const DEFAULTS: Record<PolicyLayer["default"], string> = {
  deny: "  By default every capability is refused; only the grants below open anything.",
  ask: "  By default the person is asked before every capability, and may allow it once or on " +
    "the site for that agent; the grants below say otherwise.",
  allow: "  By default every capability is allowed; the grants below can only close some.",
};

/** Describes the policy layers in force (machine-wide first), one sentence a line. */
export function describePolicy(
  layers: readonly PolicyLayer[],
  builtInSacred: readonly string[],
): string[] {
  const lines: string[] = [];
  for (const layer of layers) {
    lines.push(`${layer.source}:`);
    lines.push(
      layer.mode === "observe"
        ? "  Observe mode: nothing is refused or asked; what it would refuse or ask is recorded " +
          "in the audit."
        : "  Enforced: what it refuses is refused.",
    );
    lines.push(DEFAULTS[layer.default]);
    for (const [index, grant] of layer.grants.entries()) {
      lines.push(`  ${index + 1}. ${describeGrant(grant)}`);
    }
    if (layer.sacred.length > 0) {
      lines.push(
        `  Never touched, on top of the built-in list (each with its subdomains): ` +
          `${layer.sacred.join(", ")}.`,
      );
    }
  }
  if (layers.length > 1) {
    lines.push("Every layer must allow a call: the machine-wide one can only tighten yours.");
  }
  lines.push(
    `Sacred sites, never touched whatever the policy says (each with its subdomains): ` +
      `${builtInSacred.join(", ")}.`,
  );
  lines.push(
    "A principal is who a connector was started for (its client entry's --principal, as " +
      "install writes it; unnamed when none), never the name its client gives itself.",
  );
  lines.push(
    "A deny wins over an ask, and an ask over an allow, in every layer.",
  );
  lines.push(
    "A call can only be restricted further, per call (MCP request metadata) or per connector " +
      "(its environment).",
  );
  return lines;
}

function describeGrant(grant: Grant): string {
  const who = grant.principals.includes("*")
    ? "Every principal"
    : `The principal${grant.principals.length > 1 ? "s" : ""} ${grant.principals.join(", ")}`;
  const where = grant.hosts.includes("*") ? "on every site" : `on ${coverage(grant.hosts)}`;
  const parts: string[] = [];
  if (grant.allow.length > 0) parts.push(`may ${grant.allow.map((c) => VERBS[c]).join(", ")}`);
  if (grant.ask.length > 0) {
    parts.push(
      `must ask the person before they ${
        grant.ask.map((c) => VERBS[c]).join(", ")
      } (ask wins over any allow)`,
    );
  }
  if (grant.deny.length > 0) {
    parts.push(
      `may never ${grant.deny.map((c) => VERBS[c]).join(", ")} (deny wins over any allow)`,
    );
  }
  return `${who} ${where}: ${parts.join("; ")}.`;
}

/** Host patterns in words. */
function coverage(hosts: readonly string[]): string {
  return hosts.map((host) => host.startsWith("*.") ? `every subdomain of ${host.slice(2)}` : host)
    .join(", ");
}
