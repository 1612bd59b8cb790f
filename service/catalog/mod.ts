/**
 * The one tool catalog: the contract's rows joined with our descriptions and with the handlers
 * that exist, and what each call needs.
 *
 * @module
 */

export { actionsOf, capabilitiesFor } from "./capability.ts";
export { Catalog, type CatalogTool, type ToolTraits } from "./catalog.ts";
export { Capability, CONTRACT, type ContractRow } from "./contract.ts";
