/**
 * The one tool catalog: the contract's rows joined with our descriptions and with the handlers
 * that exist. Only tools with a handler are advertised, in contract order.
 *
 * @module
 */

import type { ToolDescriptor } from "../../shared/bridge.ts";
import { type Capability, CONTRACT, type ContractRow } from "./contract.ts";
import { TOOL_TEXT } from "./descriptions.ts";
import { firstArgumentProblem } from "./validate.ts";

/**
 * How the service treats a tool's calls: whether a call mints a workspace when it names none,
 * whether it needs one, and whether it uses one it is given.
 */
export interface ToolTraits {
  createsContext: boolean;
  needsWorkspace: boolean;
  acceptsWorkspace: boolean;
  /**
   * What a call holds while it runs (decision 0160): its tab (`surface`, named by its `tabId`
   * argument; a call without one holds the topology), its workspace's tabs and group as a whole
   * (`topology`), or the whole browser (`browser`).
   */
  binds: "surface" | "topology" | "browser";
}

/** A built tool as the catalog sees it: its name and the traits it declares. */
export interface CatalogTool extends Partial<ToolTraits> {
  name: string;
}

const DEFAULT_TRAITS: ToolTraits = {
  createsContext: false,
  needsWorkspace: true,
  acceptsWorkspace: true,
  binds: "surface",
};

/** The catalog over the built tools. */
export class Catalog {
  readonly generation = 1;
  #rows: ContractRow[];
  #traits = new Map<string, ToolTraits>();

  /**
   * Builds the catalog of `tools`, in contract order. A tool without a contract row or a
   * description is a build mistake, refused here rather than advertised half.
   */
  constructor(tools: readonly CatalogTool[]) {
    for (const tool of tools) {
      if (!CONTRACT.some((row) => row.name === tool.name) || !TOOL_TEXT[tool.name]) {
        throw new Error(`the tool ${tool.name} has no contract row or no description`);
      }
      const { name: _, ...declared } = tool;
      this.#traits.set(tool.name, { ...DEFAULT_TRAITS, ...declared });
    }
    this.#rows = CONTRACT.filter((row) => this.#traits.has(row.name));
  }

  /** The advertised tools. */
  descriptors(): ToolDescriptor[] {
    return this.#rows.map((row) => ({
      name: row.name,
      title: row.annotations.title,
      description: TOOL_TEXT[row.name].description,
      inputSchema: row.inputSchema,
      annotations: row.annotations,
      ...this.#bridgeTraits(row.name),
    }));
  }

  /** The traits the connector is told of; what a call binds stays in the service. */
  #bridgeTraits(name: string): Omit<ToolTraits, "binds"> {
    const { binds: _, ...traits } = this.traits(name);
    return traits;
  }

  /** The row for an advertised tool. */
  row(name: string): ContractRow | undefined {
    return this.#rows.find((row) => row.name === name);
  }

  /** Whether a tool creates context, needs a workspace, or uses one when given. */
  traits(name: string): ToolTraits {
    return this.#traits.get(name) ?? DEFAULT_TRAITS;
  }

  /**
   * The action a call asks for (its `action` argument), as the contract's capability column
   * keys it; null for a tool whose capability does not depend on one.
   */
  action(name: string, args: Record<string, unknown>): string | null {
    const row = CONTRACT.find((candidate) => candidate.name === name);
    return row && typeof args.action === "string" && Object.hasOwn(row.capability, args.action)
      ? args.action
      : null;
  }

  /**
   * The capabilities a call needs, from the contract's capability column: its action's row (or
   * `*`), plus the row of every flag argument it sets (`form_fill`'s `submit: true`). Unknown
   * tools need nothing here: they never run.
   */
  capabilities(name: string, args: Record<string, unknown>): Capability[] {
    const row = CONTRACT.find((candidate) => candidate.name === name);
    if (!row) return [];
    const action = this.action(name, args);
    // An action the contract does not know (arguments are checked before this matters) needs
    // everything any of the tool's actions does: never less than it might.
    const own = (key: string) =>
      Object.hasOwn(row.capability, key) ? row.capability[key] : undefined;
    const needed = new Set(own(action ?? "*") ?? own("*") ?? Object.values(row.capability).flat());
    const properties = (row.inputSchema.properties ?? {}) as Record<string, unknown>;
    for (const [key, capabilities] of Object.entries(row.capability)) {
      if (key !== "action" && Object.hasOwn(properties, key) && args[key] === true) {
        for (const capability of capabilities) needed.add(capability);
      }
    }
    return [...needed];
  }

  /**
   * Checks arguments against the tool's schema. Returns a message that names the field and shows
   * a correct call, or null when they are valid.
   */
  argumentProblem(name: string, args: Record<string, unknown>): string | null {
    const row = this.row(name);
    if (!row) return `unknown tool ${name}`;
    const problem = firstArgumentProblem(row.inputSchema, args);
    if (problem === null) return null;
    const text = TOOL_TEXT[name];
    const examples = text.actionExamples;
    const action = typeof args.action === "string" ? args.action : undefined;
    // Own names only: an action called "constructor" is in every object.
    const example = (examples && action && Object.hasOwn(examples, action) && examples[action]) ||
      text.example;
    return `Invalid arguments for ${name}: ${problem}. A correct call looks like: ` +
      JSON.stringify(example);
  }
}
