/**
 * What a call needs: the capabilities of the contract's `capability` column for the action it
 * asks for. `explain` lists them and `script`'s dry run reports them; a policy checks them.
 *
 * @module
 */

import { type Capability, CONTRACT, type ContractRow } from "./contract.ts";

/** The contract row of a tool, if it has one. */
function rowOf(name: string): ContractRow | undefined {
  return CONTRACT.find((row) => row.name === name);
}

/**
 * The capabilities a call of `name` with `args` needs: its action's row (`*` for a tool with
 * one form), `form_fill`'s `submit` row when it submits, and `read` added to `act_on` when it
 * finds its target by query or name or waits for an `expect` (the contract's README).
 */
export function capabilitiesFor(name: string, args: Record<string, unknown>): Capability[] {
  const capability = rowOf(name)?.capability ?? {};
  const action = typeof args.action === "string" ? args.action : undefined;
  // Own names only: an action called "constructor" is in every object.
  const own = (key: string) => Object.hasOwn(capability, key) ? capability[key] : undefined;
  let needed = (action !== undefined && own(action)) || own("*") || [];
  if (name === "form_fill" && args.submit === true) needed = capability.submit ?? needed;
  if (name === "act_on") {
    const target = (args.target ?? {}) as Record<string, unknown>;
    const searches = target.query !== undefined || target.name !== undefined ||
      (target.role !== undefined && target.ref === undefined);
    if (searches || args.expect !== undefined) needed = [...new Set([...needed, "read" as const])];
  }
  return [...needed];
}

/** Every action of a tool with what it needs, in the contract's order (`*`: its one form). */
export function actionsOf(name: string): { action: string; needs: Capability[] }[] {
  return Object.entries(rowOf(name)?.capability ?? {}).map(([action, needs]) => ({
    action,
    needs: [...needs],
  }));
}
