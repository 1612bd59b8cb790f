/**
 * What a call needs: the capabilities of the contract's `capability` column for the action it
 * asks for. `explain` lists them and `script`'s dry run reports them; a policy checks them.
 *
 * @module
 */

import { ownEntry } from "../../shared/own.ts";
import { type Capability, CONTRACT, type ContractRow } from "./contract.ts";

/** The contract row of a tool, if it has one. */
function rowOf(name: string): ContractRow | undefined {
  return CONTRACT.find((row) => row.name === name);
}

/**
 * The capabilities a call of `name` with `args` needs, for the gate, `explain` and `script`'s dry
 * run alike: its action's row (`*` for a tool with one form), plus the row of every flag argument
 * it sets (`form_fill`'s `submit: true`), and `read` added to `act_on` when it finds its target
 * by query or name or waits for an `expect` (the contract's README). An action the contract does
 * not know (arguments are checked before a call runs; a dry run or a note may meet one) needs
 * everything any of the tool's actions does: never less than it might. Unknown tools need
 * nothing here: they never run.
 */
export function capabilitiesFor(name: string, args: Record<string, unknown>): Capability[] {
  const row = rowOf(name);
  if (!row) return [];
  const capability = row.capability;
  const asked = typeof args.action === "string" ? ownEntry(capability, args.action) : undefined;
  const needed = new Set(
    asked ?? ownEntry(capability, "*") ?? Object.values(capability).flat(),
  );
  const properties = (row.inputSchema.properties ?? {}) as Record<string, unknown>;
  for (const [key, flagged] of Object.entries(capability)) {
    if (key !== "action" && Object.hasOwn(properties, key) && args[key] === true) {
      for (const each of flagged) needed.add(each);
    }
  }
  if (name === "act_on") {
    const target = (args.target ?? {}) as Record<string, unknown>;
    const searches = target.query !== undefined || target.name !== undefined ||
      (target.role !== undefined && target.ref === undefined);
    if (searches || args.expect !== undefined) needed.add("read");
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
