/**
 * The service's relay between the person's side panel and the remote shores (decision 0470).
 * A shore bound to remote NAME says it takes prompts; the panel's request for NAME goes to that
 * shore's connection as a `prompt`, Stop as a `prompt_stop`, and what the shore relays of the
 * turn is kept here, numbered, for the panel to fetch. One turn at a time per remote. The relay
 * keeps at most {@linkcode KEPT_UPDATES} updates and {@linkcode KEPT_CHARS} characters per
 * remote, dropping the oldest (and counting them); nothing is written to disk.
 *
 * @module
 */

import type { ServiceMessage } from "../../shared/bridge.ts";
import {
  KEPT_CHARS,
  KEPT_UPDATES,
  PANEL_PAGE,
  type PanelAnswer,
  type PanelRemote,
  PanelRequest,
  type TurnUpdate,
} from "../../shared/panel.ts";
import { log } from "../log/mod.ts";

/** A shore's connection, as the relay sends to it. */
export interface PromptShore {
  /** The remote its connection was bound to by the service. */
  readonly remote: string;
  /** The agent host's host and port, from the service's remotes file. */
  readonly host: string;
  send(message: ServiceMessage): void;
}

/** What the relay keeps of one remote's conversation. */
interface Conversation {
  turn: number;
  working: boolean;
  /** Kept updates, oldest first, numbered from 1 per remote. */
  updates: { n: number; update: TurnUpdate; chars: number }[];
  last: number;
  chars: number;
}

/** The configured remotes, by name with their host, for the panel's list. */
export type ConfiguredRemotes = () => Promise<{ name: string; host: string }[]>;

/** The relay: one per service. */
export class PromptRelay {
  #shores = new Map<string, PromptShore>();
  #conversations = new Map<string, Conversation>();
  #configured: ConfiguredRemotes;

  constructor(configured: ConfiguredRemotes = () => Promise.resolve([])) {
    this.#configured = configured;
  }

  /** A shore takes prompts for its remote; a later one for the same remote replaces it. */
  ready(shore: PromptShore): void {
    const before = this.#shores.get(shore.remote);
    this.#shores.set(shore.remote, shore);
    if (before !== undefined && before !== shore) {
      this.#ended(shore.remote, "the remote shore connected again; the turn it ran is over");
    }
    log("info", `remote ${shore.remote}'s shore takes the person's prompts`);
  }

  /** A shore's connection ended: its running turn ends with it. */
  gone(shore: PromptShore): void {
    if (this.#shores.get(shore.remote) !== shore) return;
    this.#shores.delete(shore.remote);
    this.#ended(shore.remote, "the remote shore's connection to the service ended");
  }

  /** An update from `shore` for its remote's turn `turn`; anything else is dropped. */
  update(shore: PromptShore, turn: number, update: TurnUpdate): void {
    if (this.#shores.get(shore.remote) !== shore) return;
    const conversation = this.#conversations.get(shore.remote);
    if (conversation === undefined || conversation.turn !== turn || !conversation.working) return;
    this.#keep(conversation, update);
    if (update.kind === "end") conversation.working = false;
  }

  /** The remotes whose shores are connected now, for the popup's remote mark. */
  connected(): PanelRemote[] {
    return [...this.#shores.values()].map((shore) => ({
      name: shore.remote,
      host: shore.host,
      connected: true,
      working: this.#conversations.get(shore.remote)?.working ?? false,
    }));
  }

  /** The remotes as the panel lists them (the configured ones, connected or not). */
  async remotes(): Promise<PanelRemote[]> {
    let configured: { name: string; host: string }[];
    try {
      configured = await this.#configured();
    } catch (error) {
      log("warn", `the remotes file could not be read for the panel: ${(error as Error).message}`);
      configured = [];
    }
    const listed = new Map(configured.map((remote) => [remote.name, remote.host]));
    // A connected shore is listed even when the file changed since it connected.
    for (const shore of this.#shores.values()) listed.set(shore.remote, shore.host);
    return [...listed].slice(0, 32).map(([name, host]) => ({
      name,
      host,
      connected: this.#shores.has(name),
      working: this.#conversations.get(name)?.working ?? false,
    }));
  }

  /** Answers one panel request; never throws. */
  async answer(raw: unknown): Promise<PanelAnswer> {
    const parsed = PanelRequest.safeParse(raw);
    if (!parsed.success) {
      return {
        ok: false,
        message: `not a panel request Ghostlight knows: ${parsed.error.issues[0].message}`,
      };
    }
    const request = parsed.data;
    let said = "";
    if (request.op === "panel_prompt") {
      const refused = this.#prompt(request.remote, request.text);
      if (refused !== null) return { ok: false, message: refused };
      said = `Sent to ${request.remote}.`;
    } else if (request.op === "panel_stop") {
      const refused = this.#stop(request.remote);
      if (refused !== null) return { ok: false, message: refused };
      said = `Asked ${request.remote} to stop.`;
    }
    const remote = request.remote ?? null;
    const conversation = remote === null ? undefined : this.#conversations.get(remote);
    const last = conversation?.last ?? 0;
    // A prompt or a stop answers with no updates (the panel's next fetch has them); an `after`
    // past the last update is a panel that outlived a service: it starts again from the first.
    let after = request.op === "panel" ? request.after ?? 0 : last;
    if (after > last) after = 0;
    const kept = conversation?.updates ?? [];
    const first = kept[0]?.n ?? last + 1;
    const updates = kept.filter((kept) => kept.n > after).slice(0, PANEL_PAGE)
      .map(({ n, update }) => ({ n, update }));
    return {
      ok: true,
      remotes: await this.remotes(),
      remote,
      updates,
      next: updates.at(-1)?.n ?? after,
      dropped: after + 1 < first ? first - after - 1 : 0,
      said,
    };
  }

  #prompt(remote: string, text: string): string | null {
    const shore = this.#shores.get(remote);
    if (shore === undefined) {
      return `Remote ${remote} is not connected: start it with 'ghostlight remote start ${remote}'.`;
    }
    const conversation = this.#conversation(remote);
    if (conversation.working) {
      return `${remote} is still working on your last request: wait for it, or press Stop.`;
    }
    conversation.turn++;
    conversation.working = true;
    this.#keep(conversation, { kind: "you", text });
    shore.send({ type: "prompt", turn: conversation.turn, text });
    log("info", `the person sent remote ${remote} a request from the side panel`);
    return null;
  }

  #stop(remote: string): string | null {
    const conversation = this.#conversations.get(remote);
    const shore = this.#shores.get(remote);
    if (conversation === undefined || !conversation.working || shore === undefined) {
      return `${remote} is not working on a request.`;
    }
    this.#keep(conversation, { kind: "stopping" });
    shore.send({ type: "prompt_stop", turn: conversation.turn });
    log("info", `the person stopped remote ${remote}'s turn from the side panel`);
    return null;
  }

  /** A running turn of `remote` ends without the shore's word. */
  #ended(remote: string, why: string): void {
    const conversation = this.#conversations.get(remote);
    if (conversation === undefined || !conversation.working) return;
    this.#keep(conversation, { kind: "end", reason: "disconnected", message: why });
    conversation.working = false;
  }

  #conversation(remote: string): Conversation {
    let conversation = this.#conversations.get(remote);
    if (conversation === undefined) {
      conversation = { turn: 0, working: false, updates: [], last: 0, chars: 0 };
      this.#conversations.set(remote, conversation);
    }
    return conversation;
  }

  /** Keeps an update, dropping the oldest past the bounds. */
  #keep(conversation: Conversation, update: TurnUpdate): void {
    const chars = JSON.stringify(update).length;
    conversation.updates.push({ n: ++conversation.last, update, chars });
    conversation.chars += chars;
    while (
      conversation.updates.length > KEPT_UPDATES ||
      (conversation.chars > KEPT_CHARS && conversation.updates.length > 1)
    ) {
      conversation.chars -= conversation.updates.shift()!.chars;
    }
  }
}
