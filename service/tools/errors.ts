/**
 * Errors as values for tool handlers: a semantic kind, a message for the model and a next step.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import { BrowserError } from "../browser/mod.ts";

/** Non-success outcome kinds a handler can end with. */
export type FailureKind = Exclude<Outcome["kind"], "success">;

/** A handler's failure, carried to the caller as an outcome. */
export class ToolError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly nextStep: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Turns anything a handler threw into an outcome; nothing escapes as a bare error. */
export function failureOutcome(error: unknown): Outcome {
  if (error instanceof ToolError) {
    return { kind: error.kind, message: error.message, next_step: error.nextStep };
  }
  if (error instanceof BrowserError) {
    if (error.mayHaveHappened) {
      return {
        kind: "outcome_unknown",
        message: `The browser did not confirm the result: ${error.message}.`,
        next_step: "It may still have happened: inspect the page before retrying.",
      };
    }
    if (error.kind === "dialog_open") {
      return {
        kind: "tool_failure",
        message: `${error.message}.`,
        next_step: 'Answer it first: computer key "Return" accepts it, key "Escape" dismisses ' +
          "it, type answers a prompt; or navigate with force: true to leave the page.",
      };
    }
    if (error.kind === "no_such_tab") {
      return {
        kind: "tool_failure",
        message: "That tab no longer exists.",
        next_step: "Call tabs_context_mcp to see your current tabs.",
      };
    }
    return {
      kind: "tool_failure",
      message: `The browser could not do it: ${error.message}`,
      next_step: "Check the arguments against the page's current state and try again.",
    };
  }
  return {
    kind: "tool_failure",
    message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
    next_step: "Try again; if it keeps failing, run 'ghostlight doctor'.",
  };
}
