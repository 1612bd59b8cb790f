/**
 * The person's requests from the popup and the keyboard shortcuts, carried to the service over
 * the native port and answered from there. Mechanism only: the extension neither keeps nor
 * decides any state; when the service is not reachable it says so.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import type { FromExtension, PersonReply } from "../../shared/browser_protocol.ts";
import type { PanelRequest } from "../../shared/panel.ts";
import type { PersonRequest } from "../../shared/person.ts";

/** How long a request waits for the service's answer. */
const ANSWER_TIMEOUT_MS = 10_000;

/** What the popup is told: the service's answer, unchecked here (the popup checks it). */
export type Answer = Record<string, unknown>;

const waiting = new Map<number, (answer: Answer) => void>();
let nextId = 1;

/**
 * Asks the service; `send` posts to the native port and says whether the service link is up.
 * Resolves with the service's answer, or with a refusal saying why there is none.
 */
export function askService(
  request: PersonRequest | PanelRequest,
  send: (message: FromExtension) => boolean,
): Promise<Answer> {
  const id = nextId++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve({ ok: false, message: "The Ghostlight service did not answer in time." });
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    if (!send({ type: "person", id, request })) {
      waiting.delete(id);
      clearTimeout(timer);
      resolve({ ok: false, message: "Not connected to the Ghostlight service." });
    }
  });
}

/** Hands the service's reply to whoever asked. */
export function settle(reply: PersonReply): void {
  const resolve = waiting.get(reply.id);
  waiting.delete(reply.id);
  resolve?.(reply.answer);
}

/** Every pending request ends: the service went away. */
export function abandonAll(): void {
  for (const [id, resolve] of waiting) {
    waiting.delete(id);
    resolve({ ok: false, message: "The connection to the Ghostlight service was lost." });
  }
}

/** The keyboard shortcuts of the manifest, each one request. */
export const SHORTCUTS: Record<string, PersonRequest> = {
  "pause-all": { op: "hold" },
  "take-over": { op: "take_over" },
  "stop-all": { op: "stop" },
};
