/**
 * `explain`: the live directory of what this service offers: every tool action with the
 * capability it needs (the contract's `capability` column), and what the current policy allows:
 * the person's policy in words, or that none is set and everything is allowed.
 *
 * @module
 */

import { actionsOf, type Capability, CONTRACT } from "../../catalog/mod.ts";
import { type StatelessHandler, success } from "../core/context.ts";

/** What a capability lets an action do, for the reader of the directory. */
const MEANING: Record<Capability, string> = {
  read: "observe the page",
  action: "click, type, press keys (navigate itself needs only read of the page it opens)",
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
  return (_args, context) => {
    const built = new Set(tools());
    const names = CONTRACT.map((row) => row.name).filter((name) => built.has(name));
    const lines = names.map(line);
    const legend = (Object.entries(MEANING) as [Capability, string][])
      .map(([capability, meaning]) => `${capability} = ${meaning}`).join("; ");
    const policy = context.policy?.words() ?? null;
    const said = policy === null
      ? "Policy: none is set, so every action below is allowed for this client on every host " +
        "(sacred sites excepted). A policy added later may deny some; a denied call says which " +
        "rule denied it.\n"
      : `Policy in force (a denied call says which rule denied it):\n${policy.join("\n")}\n`;
    return Promise.resolve(success(
      said + `Capabilities: ${legend}.\n` + lines.map((tool) => tool.text).join("\n"),
      {
        policy,
        allowed: policy === null ? "all" : "by policy",
        tools: names.map((name, index) => ({ name, actions: lines[index].actions })),
      },
    ));
  };
}
