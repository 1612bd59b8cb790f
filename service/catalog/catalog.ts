/**
 * The one tool catalog: the contract's rows joined with our descriptions and with the handlers
 * that exist. Only tools with a handler are advertised, in contract order.
 *
 * @module
 */

import type { ToolDescriptor } from "../../shared/bridge.ts";
import { ownEntry } from "../../shared/own.ts";
import { capabilitiesFor } from "./capability.ts";
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

  /** The capabilities a call needs: {@linkcode capabilitiesFor}, the one lookup. */
  capabilities(name: string, args: Record<string, unknown>): Capability[] {
    return capabilitiesFor(name, args);
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
    const example = (typeof args.action === "string" && text.actionExamples &&
      ownEntry(text.actionExamples, args.action)) || text.example;
    return `Invalid arguments for ${name}: ${problem}. A correct call looks like: ` +
      JSON.stringify(example);
  }
}
