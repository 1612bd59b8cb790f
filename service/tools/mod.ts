/**
 * The tools: one row per built tool (`registry.ts`) with its handler (`handlers/`), the plumbing
 * every call shares (`core/`), reading a page and its refs (`page/`), acting on it and the
 * receipt of what changed (`input/`), and the code that runs inside the page (`page_runtime/`).
 *
 * @module
 */

export type {
  Handler,
  PolicyView,
  Refusal,
  StepCheck,
  StepRunner,
  ToolContext,
} from "./core/context.ts";
export { failureOutcome, ToolError } from "./core/errors.ts";
export { fence, fenceStructured, isFenced, originOf, unfence } from "./core/safe_text.ts";
export { Recordings } from "./gif/recordings.ts";
export { releaseTabs } from "./core/release.ts";
export { HANDLERS, readOnly, type ToolDefinition, TOOLS } from "./registry.ts";
// For the governance check before dispatch: the tab a call names, and where navigate would go,
// resolved exactly as the handlers resolve them.
export { normalizeUrl } from "./core/url.ts";
export { ownedTab } from "./core/target.ts";
export { PAGE_ENABLE_COMMANDS } from "./page/frames.ts";
// For the person's question: the element a call aims at, as the read that gave its ref named it.
export { type ElementLabel, refLabel } from "./page/frames.ts";
