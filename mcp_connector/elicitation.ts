/**
 * The person's questions as a client's form (decisions 0361, 0430), shared by both revisions:
 * the form, whether a client declared it, and what its answer says. `2025-11-25` sends the form
 * as an `elicitation/create` request; `2026-07-28` embeds it in an `input_required` result and
 * reads the answer from the retried call ({@linkcode CallQuestions} follows one call's questions
 * for that).
 *
 * @module
 */

import type { AskHandler } from "./service_link.ts";

/** What the person may answer: the service's answers. */
export type Choice = "once" | "site" | "deny";

/**
 * The form a question is put in: one choice, titled in the person's words. The values are the
 * service's answers.
 */
export const ANSWER_SCHEMA = {
  type: "object",
  properties: {
    answer: {
      type: "string",
      title: "Your answer",
      oneOf: [
        { const: "once", title: "Allow once" },
        { const: "site", title: "Allow on this site for this agent" },
        { const: "deny", title: "Deny" },
      ],
    },
  },
  required: ["answer"],
} as const;

/** The params of the `elicitation/create` that puts `message` to the person. */
export function formParams(message: string): Record<string, unknown> {
  return { mode: "form", message, requestedSchema: ANSWER_SCHEMA };
}

/**
 * Whether a client's capabilities declare form elicitation: `elicitation: {}` (form, as both
 * revisions read an empty object) or `elicitation.form`.
 */
export function declaresForm(capabilities: unknown): boolean {
  if (typeof capabilities !== "object" || capabilities === null) return false;
  const elicitation = (capabilities as Record<string, unknown>).elicitation;
  if (typeof elicitation !== "object" || elicitation === null || Array.isArray(elicitation)) {
    return false;
  }
  const modes = elicitation as Record<string, unknown>;
  return Object.keys(modes).length === 0 || (typeof modes.form === "object" && modes.form !== null);
}

/**
 * The person's choice in a form's result: "accept" with a choice is it; "decline" is a no;
 * "cancel", an error or anything else is none (the question is left to the other surfaces).
 */
export function choiceOf(result: unknown): Choice | undefined {
  const { action, content } = (typeof result === "object" && result !== null ? result : {}) as {
    action?: unknown;
    content?: { answer?: unknown };
  };
  const choice = action === "decline"
    ? "deny"
    : action === "accept" && typeof content === "object" && content !== null
    ? content.answer
    : undefined;
  return choice === "once" || choice === "site" || choice === "deny" ? choice : undefined;
}

/** A question the service opened for a call. */
export interface OpenQuestion {
  seq: number;
  question: number;
  message: string;
}

/**
 * One call's questions as the service opens and closes them (`ask`, `withdraw`), for a revision
 * that puts each to the client once: which is open, and whether it was put to the client yet.
 */
export class CallQuestions {
  #open: OpenQuestion | null = null;
  #put: number | null = null;
  #wake: (() => void) | null = null;

  /** What the service link calls with the call's `ask` and `withdraw`. */
  readonly handler: AskHandler = (message) => {
    if (message.type === "ask") {
      this.#open = { seq: message.seq, question: message.question, message: message.message };
    } else if (this.#open?.question === message.question) {
      this.#open = null;
    }
    this.#wake?.();
  };

  /** Whether question `question` is still open (not answered elsewhere, not ended). */
  isOpen(question: number): boolean {
    return this.#open?.question === question;
  }

  /** Resolves with the next open question not yet put to the client; `put` marks it so. */
  async next(): Promise<OpenQuestion> {
    while (this.#open === null || this.#open.question === this.#put) {
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    return this.#open;
  }

  /** Notes that `question` was put to the client: it is not put again. */
  put(question: number): void {
    this.#put = question;
  }
}
