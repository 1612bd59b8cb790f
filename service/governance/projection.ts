/**
 * The catalog as one connector sees it (decision 0256): a tool whose every action needs a
 * capability its principal is refused on every host, or one its own restriction leaves out, is
 * not listed. The gate still decides each call; this only keeps an agent from being offered what
 * it can never use.
 *
 * @module
 */

import { actionsOf, type Capability } from "../catalog/mod.ts";
import { deniedEverywhere, type Rules } from "./decide.ts";

/**
 * The names of the tools among `tools` that `principal` under `restrictions` (the connector's
 * own, as it sent them: a capability they do not name is refused) can never call.
 */
export function withheldTools(
  rules: Rules,
  principal: string,
  restrictions: readonly { capabilities?: readonly string[] }[],
  tools: readonly string[],
): Set<string> {
  const refused = new Map<Capability, boolean>();
  const isRefused = (capability: Capability) => {
    let known = refused.get(capability);
    if (known === undefined) {
      known = deniedEverywhere(rules, principal, capability) ||
        restrictions.some((restriction) =>
          restriction.capabilities !== undefined &&
          !restriction.capabilities.includes(capability)
        );
      refused.set(capability, known);
    }
    return known;
  };
  const withheld = new Set<string>();
  for (const tool of tools) {
    const actions = actionsOf(tool);
    if (actions.length === 0) continue;
    if (actions.every(({ needs }) => needs.some(isRefused))) withheld.add(tool);
  }
  return withheld;
}
