/**
 * `explain`: the live directory of what this service offers: every tool action with the
 * capability it needs (the contract's `capability` column), and what the current policy allows.
 * No policy exists yet, so everything is allowed; the answer says so, and that a policy added
 * later may deny some.
 *
 * @module
 */

import { actionsOf, type Capability, CONTRACT } from "../../catalog/mod.ts";
import { type StatelessHandler, success } from "../core/context.ts";

/** What a capability lets an action do, for the reader of the directory. */
const MEANING: Record<Capability, string> = {
  read: "observe the page",
  action: "click, type, navigate",
  write: "put data into the page",
  execute: "run page JavaScript",
};

/** One tool's line: its actions grouped by what they need. */
function line(name: string): { text: string; actions: Record<string, Capability[]> } {
  const actions = actionsOf(name);
  const groups = new Map<string, string[]>();
  for (const { action, needs } of actions) {
    const key = needs.length === 0 ? "nothing" : needs.join("+");
    groups.set(key, [...groups.get(key) ?? [], action]);
  }
  const parts = [...groups].map(([needs, names]) =>
    names.length === 1 && names[0] === "*" ? needs : `${names.join(", ")}: ${needs}`
  );
  return {
    text: `${name} — ${parts.join("; ")}`,
    actions: Object.fromEntries(actions.map(({ action, needs }) => [action, needs])),
  };
}

/** `explain` over the tools this service has built, in the contract's (advertised) order. */
export function explainTools(tools: () => readonly string[]): StatelessHandler {
  return () => {
    const built = new Set(tools());
    const names = CONTRACT.map((row) => row.name).filter((name) => built.has(name));
    const lines = names.map(line);
    const legend = (Object.entries(MEANING) as [Capability, string][])
      .map(([capability, meaning]) => `${capability} = ${meaning}`).join("; ");
    return Promise.resolve(success(
      "Policy: none is set, so every action below is allowed for this client on every host. " +
        "A policy added later may deny some; a denied call says which rule denied it.\n" +
        `Capabilities: ${legend}.\n` +
        lines.map((tool) => tool.text).join("\n"),
      {
        policy: null,
        allowed: "all",
        tools: names.map((name, index) => ({ name, actions: lines[index].actions })),
      },
    ));
  };
}
