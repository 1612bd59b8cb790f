/**
 * A connector's principal against what its client says it is. The principal is fixed at the
 * connector's start and is what grants name; `clientInfo` is the client's own word, shown to the
 * person and audited but never authority (decision 0255). When a client calls itself by another
 * principal's name, `status` says so: that client is not what it claims, or it was configured
 * with the wrong principal.
 *
 * @module
 */

import type { Rules } from "./decide.ts";

/** A client's self-reported name in the form of a principal: `Claude Desktop` → `claude-desktop`. */
export function nameAsPrincipal(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
}

/**
 * Why a connector's client name and its principal disagree, or null: the client's name is,
 * written as a principal, another principal the policy's grants name or another connected
 * connector has.
 */
export function claimMismatch(
  rules: Rules,
  connector: { principal: string; clientName: string },
  connected: readonly string[],
): string | null {
  const claimed = nameAsPrincipal(connector.clientName);
  if (claimed === "" || claimed === connector.principal) return null;
  const granted = rules.layers.some((layer) =>
    layer.grants.some((grant) => grant.principals.includes(claimed))
  );
  if (!granted && !connected.includes(claimed)) return null;
  return `its client calls itself ${JSON.stringify(connector.clientName.slice(0, 100))}, ` +
    `another principal's name (${claimed}${granted ? ", which the policy's grants name" : ""}), ` +
    `but it was started as ${connector.principal}: only ${connector.principal}'s grants apply ` +
    `to it. If it is ${claimed}, give its client entry --principal ${claimed} ` +
    `('ghostlight install' writes it)`;
}
