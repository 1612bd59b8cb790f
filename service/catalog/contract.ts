/**
 * The tool contract: names, input schemas, annotations and the capability each action needs,
 * in advertised order, kept as the team's JSON (`contract.json`) and checked with zod when the
 * service loads. The rows marked `trained` keep their schemas exactly; a golden test compares
 * what clients are shown with the spec. Descriptions live in `descriptions.ts`.
 *
 * @module
 */

import { z } from "zod";
import rows from "./contract.json" with { type: "json" };

/** What an action may do: observe, act, put data in, or run code. */
export const Capability = z.enum(["read", "action", "write", "execute"]);
export type Capability = z.infer<typeof Capability>;

/** One row of the contract. */
export const ContractRow = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/),
  trained: z.boolean(),
  inputSchema: z.object({ type: z.literal("object") }).passthrough(),
  annotations: z.object({
    title: z.string(),
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  }).strict(),
  capability: z.record(z.string(), z.array(Capability)),
}).strict();
export type ContractRow = z.infer<typeof ContractRow>;

// Checked, but the rows themselves are served: parsing would rebuild objects in the schema's
// key order, and key order is part of what the trained tools must keep.
z.array(ContractRow).parse(rows);

/** All 25 tools in the order they are advertised. */
export const CONTRACT: readonly ContractRow[] = rows as unknown as ContractRow[];
