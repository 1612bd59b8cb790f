/**
 * The person's questions in a `2026-07-28` client (decision 0430). That revision has no
 * server-to-client requests: a `tools/call` whose call opens a question is answered at once
 * with `input_required`, the form embedded, and the call runs on in the service, parked here
 * under an unguessable `requestState`. The client shows the form and calls again with the answer
 * and the same `requestState`; that retry carries the answer to the service and waits for the
 * call's end (or its next question). A question answered elsewhere first cannot be taken back
 * from the client: its late answer is dropped, and the retry gets the call's end.
 *
 * @module
 */

import { type CallQuestions, formParams, type OpenQuestion } from "./elicitation.ts";
import type { CallEnd } from "./service_link.ts";

/** Most calls one connection keeps parked at once; past it, a question is not put. */
export const MAX_PARKED = 16;

/** How long a parked call's end is kept for a retry after the call ended. */
export const KEEP_ENDED_MS = 30_000;

/** A call whose request was answered `input_required`, waiting for the client's retry. */
export interface Parked {
  /** The tool, for a retry that names another. */
  tool: string;
  /** The call's end, as its first request would have had it. */
  ended: Promise<CallEnd | null>;
  /** The call's questions as the service opens and closes them. */
  questions: CallQuestions;
  /** The question put in the result: the retry answers this one. */
  asked: OpenQuestion;
}

/** The key the form is embedded under, and the answer read back from. */
export function inputKey(question: number): string {
  return `question-${question}`;
}

/** The parked calls of one connection, by `requestState`. */
export class Parking {
  #parked = new Map<string, Parked & { timer?: ReturnType<typeof setTimeout> }>();
  #report: (message: string) => void;
  #keepMs: number;

  /** `report` says when an ended call's end is dropped, `keepMs` after its end. */
  constructor(report: (message: string) => void, keepMs = KEEP_ENDED_MS) {
    this.#report = report;
    this.#keepMs = keepMs;
  }

  /**
   * Parks a call under a fresh `requestState` and returns the `input_required` result that puts
   * its question to the client, or null when {@linkcode MAX_PARKED} are parked already. The
   * call's end is kept for a retry (by default {@linkcode KEEP_ENDED_MS}), then dropped.
   */
  park(parked: Parked): Record<string, unknown> | null {
    if (this.#parked.size >= MAX_PARKED) return null;
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    const state = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    const entry: Parked & { timer?: ReturnType<typeof setTimeout> } = { ...parked };
    this.#parked.set(state, entry);
    parked.ended.then(() => {
      if (this.#parked.get(state) !== entry) return;
      entry.timer = setTimeout(() => {
        if (this.#parked.get(state) !== entry) return;
        this.#parked.delete(state);
        this.#report(
          `the end of a ${parked.tool} call that asked the person (question ` +
            `${parked.asked.question}) was dropped: the client did not call again within ` +
            `${this.#keepMs / 1000} s of its end`,
        );
      }, this.#keepMs);
      Deno.unrefTimer(entry.timer);
    });
    parked.questions.put(parked.asked.question);
    return {
      resultType: "input_required",
      inputRequests: {
        [inputKey(parked.asked.question)]: {
          method: "elicitation/create",
          params: formParams(parked.asked.message),
        },
      },
      requestState: state,
    };
  }

  /** Takes the call parked under `state` (once: a state is never honoured twice). */
  take(state: string): Parked | undefined {
    const entry = this.#parked.get(state);
    if (!entry) return undefined;
    this.#parked.delete(state);
    clearTimeout(entry.timer);
    return entry;
  }
}
