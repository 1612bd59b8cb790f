/**
 * The in-process MCP connector the remote shore carries requests into (decision 0400): one
 * JSON-RPC line in for each inner request, its answer out by id, through the very `serve` the
 * stdio connector runs. Both wire bindings use it; only the carrier differs.
 *
 * @module
 */

import type { InstancePaths } from "../shared/instance.ts";
import { type ProgressToken, progressTokenOf } from "./calls.ts";
import { serve } from "./main.ts";
import { META } from "./mcp_2026_07_28.ts";
import { ShorePrompts } from "./remote_prompts.ts";
import type { ServiceLink } from "./service_link.ts";
import type { ConnectorSettings } from "./settings.ts";

/** An answer line from the in-process MCP connector, by the id the shore gave its request. */
export type Answer = {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** A notification the connector sent its client (progress, list changes). */
export type InnerNotification = { method: string; params?: Record<string, unknown> };

/** Who the inner connector serves and how it ends. */
export interface InnerOptions {
  /** The remote's name: the service binds `remote:NAME` from its own file. */
  name: string;
  serviceEntry?: string | null;
  /** Ends the connector. */
  stop: AbortSignal;
  /** Told of each notification the connector sends; none drops them. */
  onNotification?: (notification: InnerNotification) => Promise<void>;
}

/** The code a request ended by its cancellation is answered with (nobody reads it). */
export const CANCELLED = -32800;

/**
 * One in-process MCP connection. Requests are bounded by the binding that carries them (the
 * SDK's active-request bound, or the `openab` binding's own); a cancelled request is told to
 * stop and answered at once with {@linkcode CANCELLED}, whatever the connector says later.
 */
export class InnerConnector {
  #input: ReadableStreamDefaultController<Uint8Array> | null = null;
  #pending = new Map<number, (answer: Answer) => void>();
  /** Who hears the notifications scoped to an open request (a listen stream's list changes). */
  #scoped = new Map<number, (notification: InnerNotification) => Promise<void>>();
  /** Which open scoped request each progress token belongs to (its caller's `_meta`). */
  #progress = new Map<ProgressToken, number>();
  #next = 0;
  #buffer = "";
  readonly served: Promise<void>;
  /** The person's prompts from the side panel (decision 0470). */
  readonly prompts: ShorePrompts;
  readonly #encoder = new TextEncoder();
  readonly #onNotification: InnerOptions["onNotification"];

  constructor(paths: InstancePaths, settings: ConnectorSettings, options: InnerOptions) {
    this.#onNotification = options.onNotification;
    const input = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#input = controller;
      },
    });
    const decoder = new TextDecoder();
    const output = new WritableStream<Uint8Array>({
      // Awaited, so a slow carrier holds the connector back (its own bounds then apply).
      write: (chunk) => this.#lines(decoder.decode(chunk, { stream: true })),
    });
    let link: ServiceLink | null = null;
    this.served = serve(paths, settings, {
      input,
      output,
      stop: options.stop,
      serviceEntry: options.serviceEntry,
      remote: options.name,
      onLink: (made) => link = made,
    });
    this.prompts = new ShorePrompts(link!);
  }

  /**
   * Sends one inner request and waits for its answer; a cancelled one is told to stop. While it
   * is open, `onNotification` hears the notifications the connector scopes to it: by its
   * subscription id (a `subscriptions/listen` stream's `notifications/tools/list_changed`), or by
   * the progress token in its `_meta` (a long call's `notifications/progress`).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    onNotification?: (notification: InnerNotification) => Promise<void>,
  ): Promise<Answer> {
    const id = ++this.#next;
    const answered = new Promise<Answer>((resolve) => this.#pending.set(id, resolve));
    const token = progressTokenOf(params);
    if (onNotification !== undefined) {
      this.#scoped.set(id, onNotification);
      if (token !== undefined) this.#progress.set(token, id);
    }
    this.#send({ jsonrpc: "2.0", id, method, params });
    const cancel = () => {
      const resolve = this.#pending.get(id);
      if (resolve === undefined) return;
      this.#pending.delete(id);
      this.#send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: String(signal.reason ?? "the agent host cancelled") },
      });
      resolve({ error: { code: CANCELLED, message: "the request was cancelled" } });
    };
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
    return answered.finally(() => {
      signal.removeEventListener("abort", cancel);
      this.#scoped.delete(id);
      if (token !== undefined && this.#progress.get(token) === id) this.#progress.delete(token);
    });
  }

  /** Passes one notification from the agent host (`notifications/initialized`) to the connector. */
  notify(method: string, params: Record<string, unknown> | undefined): void {
    this.#send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Ends the input: the connector finishes what it has and ends. Each open request is answered
   * with an error saying `why`.
   */
  end(why = "the remote shore is ending"): void {
    try {
      this.#input?.close();
    } catch {
      // Already closed.
    }
    for (const resolve of this.#pending.values()) {
      resolve({ error: { code: -32603, message: why } });
    }
    this.#pending.clear();
  }

  #send(message: unknown): void {
    try {
      this.#input?.enqueue(this.#encoder.encode(`${JSON.stringify(message)}\n`));
    } catch {
      // Ended: the request's answer comes from end().
    }
  }

  /**
   * The shore's id of the request a notification belongs to: a listen stream's by the
   * subscription id the connector gives it, a call's progress by the token its caller chose.
   */
  #scopeOf({ method, params }: InnerNotification): number | undefined {
    if (method === "notifications/progress") {
      const token = params?.progressToken;
      return typeof token === "string" || typeof token === "number"
        ? this.#progress.get(token)
        : undefined;
    }
    const meta = params?._meta as Record<string, unknown> | undefined;
    return meta?.[META.subscriptionId] as number | undefined;
  }

  async #lines(text: string): Promise<void> {
    this.#buffer += text;
    let newline: number;
    while ((newline = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      let message: {
        id?: unknown;
        method?: unknown;
        params?: Record<string, unknown>;
        result?: unknown;
        error?: Answer["error"];
      };
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof message.method === "string") {
        if (message.id === undefined) {
          const notification = { method: message.method, params: message.params };
          const scoped = this.#scoped.get(this.#scopeOf(notification) as number);
          await (scoped ?? this.#onNotification)?.(notification);
        } else {
          // A request of the server's own (an elicitation): no binding carries one back yet.
          this.#send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32601, message: "the remote shore carries no server request" },
          });
        }
        continue;
      }
      if (typeof message.id !== "number") continue;
      const resolve = this.#pending.get(message.id);
      if (resolve === undefined) continue;
      this.#pending.delete(message.id);
      resolve("error" in message ? { error: message.error } : { result: message.result });
    }
  }
}

/**
 * When the service ends the shore (`halt`, decision 0520), before `ended` (the tunnel's own end):
 * each open inner request is answered with an error saying why, those answers are written, then
 * the tunnel closes with the same words (code 1000: a deliberate end, not a fault). Resolves with
 * why, or null when the tunnel ended first. Both bindings end this way.
 */
export async function answerThenClose(
  halt: AbortSignal,
  ended: Promise<unknown>,
  tunnel: { close(why: string): void },
  inners: () => Iterable<Pick<InnerConnector, "end">>,
  answering: () => Iterable<Promise<unknown>>,
): Promise<string | null> {
  const listening = new AbortController();
  const halted = await Promise.race([
    new Promise<boolean>((resolve) => {
      if (halt.aborted) resolve(true);
      halt.addEventListener("abort", () => resolve(true), { signal: listening.signal });
    }),
    ended.then(() => false, () => false),
  ]).finally(() => listening.abort());
  if (!halted) return null;
  const why = String(halt.reason);
  for (const inner of inners()) inner.end(`Ghostlight: ${why}.`);
  await Promise.allSettled([...answering()]);
  // An SDK writes each answer on its own queue once its handler settled: one turn of the event
  // loop runs those writes before the close is sent after them.
  await new Promise((resolve) => setTimeout(resolve, 0));
  tunnel.close(why);
  return why;
}
