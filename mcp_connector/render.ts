/**
 * Turns the service's semantic outcomes into MCP tool results. Both revisions share the shape
 * of a tool result; the revision modules add what is their own.
 *
 * @module
 */

import type { Outcome } from "../shared/bridge.ts";
import type { CallEnd } from "./service_link.ts";

/** An MCP `tools/call` result. */
export interface ToolResult {
  content: Outcome extends infer O ? O extends { content: infer C } ? C : never : never;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Renders the end of a call. Rejections other than an unknown tool are tool errors too. */
export function renderCallEnd(end: CallEnd): ToolResult {
  if ("rejected" in end) {
    return {
      content: [{ type: "text", text: `${end.rejected.message}\n${end.rejected.next_step}` }],
      isError: true,
    };
  }
  const outcome = end.outcome;
  if (outcome.kind === "success") {
    return {
      content: outcome.content,
      ...(outcome.structured ? { structuredContent: outcome.structured } : {}),
    };
  }
  const label = OUTCOME_LABELS[outcome.kind];
  return {
    content: [{ type: "text", text: `${label}${outcome.message}\n${outcome.next_step}` }],
    isError: true,
  };
}

const OUTCOME_LABELS: Record<Exclude<Outcome["kind"], "success">, string> = {
  tool_failure: "",
  not_dispatched: "Not done: ",
  outcome_unknown: "Outcome unknown: ",
  denied: "Denied: ",
  held: "Paused by the person: ",
  attention_required: "Waiting for the person: ",
  cancelled: "Cancelled: ",
};
