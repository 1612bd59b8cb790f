/**
 * The person's prompts on the remote shore (issue 31, decision 0470). The shore is the agent
 * host's ACP client; the person's side panel is the only source of its prompts. A `prompt` from
 * the service becomes `session/prompt` with the person's words in the shore's one session; Stop
 * becomes `session/cancel`. What the turn shows is relayed back to the service, bounded: the
 * agent's streamed text (`agent_message_chunk`, split into pieces of at most
 * {@linkcode CHUNK_MAX_CHARS}), and each tool call the shore served the agent meanwhile, with how
 * it ended in Ghostlight's own words (never the agent's `tool_call` claims). At most
 * {@linkcode TURN_MAX_UPDATES} updates per turn; the rest are counted and said as skipped.
 *
 * @module
 */

import {
  type ClientContext,
  methods,
  type SessionNotification,
} from "@agentclientprotocol/sdk/unstable";
import { CHUNK_MAX_CHARS, TURN_MAX_UPDATES, type TurnUpdate } from "../shared/panel.ts";
import type { PromptMessage, ServiceLink } from "./service_link.ts";

/** What the shore's prompts need of its link to the service. */
export type PromptLink = Pick<ServiceLink, "takePrompts" | "promptUpdate">;

/**
 * The agent host as the person's prompts reach it, whichever binding carries them: ACP
 * `session/prompt` (resolving with the turn's stop reason) and `session/cancel`.
 */
export interface PromptPeer {
  prompt(sessionId: string, text: string): Promise<{ stopReason: string }>;
  cancel(sessionId: string): Promise<void>;
}

/** The SDK's agent handle (the `acp` binding) as a {@linkcode PromptPeer}. */
export function acpPeer(agent: ClientContext): PromptPeer {
  return {
    prompt: (sessionId, text) =>
      agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      }),
    cancel: (sessionId) => agent.notify(methods.agent.session.cancel, { sessionId }),
  };
}

/** The turn running now. */
interface Turn {
  turn: number;
  relayed: number;
  skipped: number;
}

/** A tool call the shore is serving during a turn, to say how it ended. */
export interface SeenCall {
  turn: number;
  call: number;
  tool: string;
  action: string | null;
}

/** The first line of a text, at most `max` characters. */
function firstLine(text: string, max: number): string {
  const line = text.split("\n", 1)[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The shore's side of the person's prompts, for its one ACP session. */
export class ShorePrompts {
  #link: PromptLink;
  #agent: PromptPeer | null = null;
  #sessionId: string | null = null;
  #turn: Turn | null = null;
  #calls = 0;
  #onCancel: (() => void) | null = null;

  constructor(link: PromptLink) {
    this.#link = link;
  }

  /** The session is open: the shore takes the person's prompts from now on. */
  start(agent: PromptPeer, sessionId: string): void {
    this.#agent = agent;
    this.#sessionId = sessionId;
    this.#link.takePrompts((message) => this.#take(message));
  }

  /** Told when the person's Stop cancels the turn: ACP wants its open asks answered cancelled. */
  onCancel(listener: () => void): void {
    this.#onCancel = listener;
  }

  /** A `session/update` from the agent host: the text of its reply is relayed. */
  update(notification: SessionNotification): void {
    const update = notification.update;
    if (notification.sessionId !== this.#sessionId) return;
    if (update.sessionUpdate !== "agent_message_chunk" || update.content.type !== "text") return;
    const text = update.content.text;
    for (let at = 0; at < text.length; at += CHUNK_MAX_CHARS) {
      this.#relay({ kind: "text", text: text.slice(at, at + CHUNK_MAX_CHARS) });
    }
  }

  /** A tool call the shore begins to serve; null when no turn of the person's runs. */
  callStarted(method: string, params: Record<string, unknown> | undefined): SeenCall | null {
    const turn = this.#turn;
    if (turn === null || method !== "tools/call") return null;
    const args = params?.arguments as Record<string, unknown> | undefined;
    const seen: SeenCall = {
      turn: turn.turn,
      call: ++this.#calls,
      tool: String(params?.name ?? "?").slice(0, 64),
      action: typeof args?.action === "string" ? args.action.slice(0, 64) : null,
    };
    this.#relay({ kind: "tool", ...this.#callOf(seen), status: "running", outcome: null });
    return seen;
  }

  /** How a call ended: its MCP result (or the error the shore answered it with). */
  callEnded(seen: SeenCall | null, answer: { result?: unknown; error?: { message: string } }) {
    if (seen === null || this.#turn?.turn !== seen.turn) return;
    const result = answer.result as
      | { isError?: boolean; content?: { type: string; text?: string }[] }
      | undefined;
    const failed = answer.error !== undefined || result?.isError === true;
    const text = answer.error?.message ??
      result?.content?.find((block) => block.type === "text")?.text ?? "";
    this.#relay({
      kind: "tool",
      ...this.#callOf(seen),
      status: failed ? "failed" : "done",
      outcome: text ? firstLine(text, 300) : null,
    });
  }

  #callOf(seen: SeenCall): Pick<Extract<TurnUpdate, { kind: "tool" }>, "call" | "tool" | "action"> {
    return { call: seen.call, tool: seen.tool, action: seen.action };
  }

  #take(message: PromptMessage): void {
    const agent = this.#agent;
    const sessionId = this.#sessionId;
    if (agent === null || sessionId === null) return;
    if (message.type === "prompt_stop") {
      if (this.#turn?.turn === message.turn) {
        agent.cancel(sessionId).catch(() => {});
        this.#onCancel?.();
      }
      return;
    }
    if (this.#turn !== null) {
      // The service runs one turn at a time; a second one is answered as refused, never queued.
      const refused: TurnUpdate = {
        kind: "end",
        reason: "refused",
        message: "the agent is still working on the previous request",
      };
      this.#link.promptUpdate({ turn: message.turn, update: refused });
      return;
    }
    const turn: Turn = { turn: message.turn, relayed: 0, skipped: 0 };
    this.#turn = turn;
    agent.prompt(sessionId, message.text).then(
      (response) => this.#end(turn, { kind: "end", reason: response.stopReason, message: null }),
      (error) =>
        this.#end(turn, {
          kind: "end",
          reason: "error",
          message: firstLine(`the agent host answered: ${(error as Error).message}`, 300),
        }),
    );
  }

  #end(turn: Turn, end: TurnUpdate): void {
    if (turn.skipped > 0) {
      this.#link.promptUpdate({
        turn: turn.turn,
        update: { kind: "skipped", count: turn.skipped },
      });
    }
    this.#link.promptUpdate({ turn: turn.turn, update: end });
    if (this.#turn === turn) this.#turn = null;
  }

  /** Relays one update of the running turn, within the turn's bound. */
  #relay(update: TurnUpdate): void {
    const turn = this.#turn;
    if (turn === null) return;
    if (turn.relayed >= TURN_MAX_UPDATES) {
      turn.skipped++;
      return;
    }
    turn.relayed++;
    this.#link.promptUpdate({ turn: turn.turn, update });
  }
}
