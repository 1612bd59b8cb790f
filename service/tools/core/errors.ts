/**
 * Errors as values for tool handlers: a semantic kind, a message for the model and a next step.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { BrowserError } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { howToAnswer } from "./dialog_help.ts";
import { fence, originOf, redactSecrets } from "./safe_text.ts";

/** Non-success outcome kinds a handler can end with. */
export type FailureKind = Exclude<Outcome["kind"], "success">;

/** A handler's failure, carried to the caller as an outcome. */
export class ToolError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly nextStep: string) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * A CDP failure as the extension words it (`Method: {"code":-32000,"message":"..."}`) in plain
 * words: the message alone, without the protocol's JSON.
 */
export function plainCdpError(message: string): string {
  const match = /^([A-Z][A-Za-z]+\.[a-zA-Z]+): (\{[\s\S]*\})$/.exec(message);
  if (!match) return message;
  try {
    const said = (JSON.parse(match[2]) as { message?: unknown }).message;
    return typeof said === "string" ? `${said} (${match[1]})` : message;
  } catch {
    return message;
  }
}

/** The most of a dialog's message an outcome quotes. */
const DIALOG_QUOTE_CHARS = 100;

/**
 * Turns anything a handler threw into an outcome; nothing escapes as a bare error. Text the page
 * chose (a dialog's message) goes out fenced in the workspace's nonce, or not at all without one.
 */
export function failureOutcome(error: unknown, workspace?: Workspace): Outcome {
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
      const type = error.dialog?.type ?? "";
      const said = error.dialog?.message.slice(0, DIALOG_QUOTE_CHARS) ?? "";
      const says = said && workspace
        ? ` It says:\n${fence(workspace, originOf(error.dialog?.url ?? ""), redactSecrets(said))}`
        : "";
      return {
        kind: "tool_failure",
        message: `A JavaScript${
          type ? ` ${type}` : ""
        } dialog is open and freezes the page.${says}`,
        next_step: `${howToAnswer(type)} Or navigate with force: true to leave the page.`,
      };
    }
    if (error.kind === "detached") {
      return {
        kind: "tool_failure",
        message: `${error.message[0].toUpperCase()}${error.message.slice(1)}: the call is ` +
          "over, and what it did before then may have taken effect.",
        next_step: "Call tabs_context_mcp to see your tabs, and check the page before repeating " +
          "anything.",
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
      message: `The browser could not do it: ${redactSecrets(plainCdpError(error.message))}`,
      next_step: "Check the arguments against the page's current state and try again.",
    };
  }
  return {
    kind: "tool_failure",
    message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
    next_step: "Try again; if it keeps failing, run 'ghostlight doctor'.",
  };
}
