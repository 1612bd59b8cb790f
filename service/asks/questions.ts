/**
 * The questions a policy's `ask` puts to the person (decision 0360), one service-wide broker:
 * a call that needs the person's yes opens a question and waits, bounded, for the answer; while
 * it is open, the other calls of the same workspace wait behind it (one question per workspace
 * at a time); "on this site for this agent" is remembered for the workspace's life (or until
 * revoked); hold and stop answer every open question with no. Only the person's surfaces answer:
 * the CLI over the proven control socket, the popup through the extension's own pages, and the
 * client's elicitation form where it has one. Nothing here touches a page or the audit: the
 * bridge asks, waits and records.
 *
 * @module
 */

import type {
  AgentPermission,
  PersonGrant,
  PersonQuestion,
  QuestionAnswer,
} from "../../shared/person.ts";
import type { Capability } from "../catalog/mod.ts";
import type { Workspace } from "../workspace/mod.ts";

/** Most calls of one workspace that may wait behind its open question; more are refused. */
export const MAX_WAITING = 16;

/** Most yeses remembered for one workspace; a newer one makes the oldest forgotten. */
export const MAX_REMEMBERED = 64;

/** What a call asks. */
export interface Asking {
  workspace: Workspace;
  principal: string;
  client: string;
  capability: Capability;
  host: string;
  /** What the call would do, in words: its tool and action, never an argument's value. */
  call: string;
  /** The element it aims at, as a read named it (page text), when its ref was read by name. */
  target?: PersonQuestion["target"];
  /**
   * Where else the question is put while it is open (the asking agent's client, by
   * elicitation): told when it opens and when it closes, however it closes.
   */
  reach?: { opened(view: PersonQuestion): void; closed(): void };
}

/**
 * A remote agent host's own permission request, put to the person by its shore (decision 0530):
 * no workspace, no capability of Ghostlight's; one such question per remote at a time.
 */
export interface AgentAsking {
  /** The remote's principal, `remote:NAME`, as the service bound it. */
  principal: string;
  /** What the agent host calls itself: a claim, shown as a detail. */
  client: string;
  /** The agent host's host and port, from the person's remotes file. */
  host: string;
  /** The agent's own words. */
  agent: AgentPermission;
}

/** How a question ended for the call that asked it. */
export type Reply =
  /** The person said yes: this call only (`once`), or on the site for the agent. */
  | { kind: "yes"; once: boolean; number: number; by: string }
  /** The person said no (an answer, or hold or stop while it was open). */
  | { kind: "no"; number: number; by: string }
  /** Nobody answered within the bound. */
  | { kind: "unanswered"; number: number | null; ms: number }
  /** The call itself ended first (cancelled, stopped, its connector gone). */
  | { kind: "withdrawn"; number: number | null }
  /** Too many calls of the workspace wait already. */
  | { kind: "busy" };

/** A yes remembered for one site for one agent. */
export interface Remembered {
  number: number;
  /** The question it answered. */
  question: number;
  /** The agent it was given to: another principal in the same workspace is asked again. */
  principal: string;
  capability: Capability;
  host: string;
  by: string;
  at: string;
}

/** One open question and how it is settled. */
interface Open {
  view: PersonQuestion;
  /** The call's asking; null for an agent host's own request. */
  asking: Asking | null;
  settle: (reply: Reply) => void;
  closed: Promise<void>;
}

/**
 * Someone who wants to hear when the open questions change (the popup's badge, a client), or a
 * remembered yes is forgotten (the audit).
 */
export type QuestionListener = (event: {
  /** The asking call's workspace; null for an agent host's own request. */
  workspace: Workspace | null;
  opened?: PersonQuestion;
  closed?: { number: number; reply: Reply };
  /** A remembered yes forgotten: revoked by the person, or gone with its workspace. */
  forgot?: { grant: Remembered; why: string };
}) => void;

/** The person answered a question that is not open (any more). */
export class NoSuchQuestion extends Error {
  constructor(readonly number: number) {
    super(
      `there is no open question ${number}; 'ghostlight asks' lists the questions waiting ` +
        "for you (it may have been answered elsewhere, or timed out)",
    );
  }
}

/** The questions of one service. */
export class Questions {
  readonly #timeoutMs: number;
  /** How long the popup shows a question unmoved before its answers take a click (0560). */
  readonly settleMs: number | undefined;
  readonly #live: (workspaceId: string) => boolean;
  readonly #open = new Map<string, Open>();
  readonly #waiting = new Map<string, number>();
  readonly #remembered = new Map<string, { workspace: Workspace; grants: Remembered[] }>();
  readonly #listeners = new Set<QuestionListener>();
  /**
   * Each call's one deadline for all its waits, by the call's signal: a call may ask once per
   * host and capability it needs, and all its asks together wait no longer than the bound.
   */
  readonly #deadlines = new WeakMap<AbortSignal, number>();
  #lastQuestion = 0;
  #lastGrant = 0;

  /**
   * `timeoutMs` bounds each call's wait in all (behind another question and for each of its own,
   * from its first); `live` says
   * whether a workspace still exists (a yes is forgotten with its workspace). `settleMs` is only
   * carried to the popup, which guards its answers with it.
   */
  constructor(
    options: { timeoutMs: number; settleMs?: number; live: (workspaceId: string) => boolean },
  ) {
    this.#timeoutMs = options.timeoutMs;
    this.settleMs = options.settleMs;
    this.#live = options.live;
  }

  /** How long a call waits for the person at most. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Calls `listener` when a question opens or closes; returns how to stop. */
  onChange(listener: QuestionListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * The remembered yes for `capability` on `host` given to `principal` in the workspace, or null:
   * a workspace's id is all another connection needs to work in it, so the yes is the agent's.
   */
  remembered(
    workspaceId: string,
    principal: string,
    host: string,
    capability: Capability,
  ): Remembered | null {
    const entry = this.#rememberedOf(workspaceId);
    return entry?.grants.find((grant) =>
      grant.principal === principal && grant.host === host && grant.capability === capability
    ) ?? null;
  }

  /** Whether a question of the workspace is open. */
  isOpen(workspaceId: string): boolean {
    return this.#open.has(workspaceId);
  }

  /**
   * Waits, within the bound, until the workspace has no open question: true when it has none,
   * false when the bound or `signal` ended the wait first or too many wait already.
   */
  async clear(workspaceId: string, signal: AbortSignal): Promise<boolean> {
    const deadline = this.#deadlineOf(signal);
    while (this.#open.has(workspaceId)) {
      const waited = await this.#behind(workspaceId, deadline, signal);
      if (waited !== "closed") return false;
    }
    return true;
  }

  /**
   * Asks the person, after any question the workspace has open (a yes it brings that covers
   * this call answers it too); resolves with the reply, never later than the bound.
   */
  async ask(asking: Asking, signal: AbortSignal): Promise<Reply> {
    const id = asking.workspace.id;
    const deadline = this.#deadlineOf(signal);
    while (this.#open.has(id)) {
      const waited = await this.#behind(id, deadline, signal);
      if (waited === "busy") return { kind: "busy" };
      if (waited === "timeout") return { kind: "unanswered", number: null, ms: this.#timeoutMs };
      if (waited === "aborted") return { kind: "withdrawn", number: null };
      const yes = this.remembered(id, asking.principal, asking.host, asking.capability);
      if (yes) return { kind: "yes", once: false, number: yes.question, by: yes.by };
    }
    if (signal.aborted) return { kind: "withdrawn", number: null };
    return await this.#openQuestion(id, this.#callView(asking, deadline), asking, signal);
  }

  /**
   * Asks the person about a remote agent host's own request (decision 0530), after any question
   * of that remote's agent host still open (bounded as a call's wait is); never remembered, so
   * a yes is always this once. Resolves never later than the bound.
   */
  async askAgent(asking: AgentAsking, signal: AbortSignal): Promise<Reply> {
    const key = `agent ${asking.principal}`;
    const deadline = this.#deadlineOf(signal);
    while (this.#open.has(key)) {
      const waited = await this.#behind(key, deadline, signal);
      if (waited === "busy") return { kind: "busy" };
      if (waited === "timeout") return { kind: "unanswered", number: null, ms: this.#timeoutMs };
      if (waited === "aborted") return { kind: "withdrawn", number: null };
    }
    if (signal.aborted) return { kind: "withdrawn", number: null };
    const view: Omit<PersonQuestion, "number"> = {
      workspace: null,
      principal: asking.principal.slice(0, 64),
      client: asking.client.slice(0, 200),
      capability: "agent",
      host: asking.host.slice(0, 300),
      call: "a step of the agent host's own, outside your browser",
      target: null,
      agent: asking.agent,
      asked: new Date().toISOString(),
      expires: new Date(deadline).toISOString(),
    };
    return await this.#openQuestion(key, view, null, signal);
  }

  /**
   * The person's answer to question `number`, from `by` (the CLI, the popup, the client);
   * what was done, in words. Throws {@linkcode NoSuchQuestion} when it is not open.
   */
  answer(number: number, answer: QuestionAnswer, by: string): string {
    const open = [...this.#open.values()].find((entry) => entry.view.number === number);
    if (!open) throw new NoSuchQuestion(number);
    const { view } = open;
    if (view.agent !== null && answer !== "deny" && (answer === "site" || !view.agent.canAllow)) {
      throw new NotThisAnswer(
        number,
        view.agent.canAllow
          ? "an agent host's own request is allowed once or denied, never for a site"
          : "the agent host offered no way to allow it once; it can only be denied",
      );
    }
    if (view.agent !== null) {
      open.settle(
        answer === "deny" ? { kind: "no", number, by } : { kind: "yes", once: true, number, by },
      );
      return `Question ${number} ${answer === "deny" ? "denied" : "allowed once"}: ` +
        `${view.principal}'s agent host is told so.`;
    }
    const asking = open.asking!;
    if (answer === "deny") {
      open.settle({ kind: "no", number, by });
      return `Question ${number} denied: ${view.principal} may not ${view.capability} on ` +
        `${view.host} for that call.`;
    }
    if (answer === "site") this.#remember(asking, number, by);
    open.settle({ kind: "yes", once: answer === "once", number, by });
    return answer === "once"
      ? `Question ${number} allowed once: that call of ${view.principal} goes ahead; the next ` +
        "one asks again."
      : `Question ${number} allowed on ${view.host} for ${view.principal} (${view.capability}) ` +
        "until its workspace ends ('ghostlight asks --granted' lists it, --revoke forgets it).";
  }

  /** Answers every open question (of workspace number `number`, or all) with no, by `by`. */
  denyOpen(number: number | undefined, by: string): number {
    let count = 0;
    for (const open of [...this.#open.values()]) {
      // An agent host's own request belongs to no workspace: only a hold of every agent ends it.
      if (number !== undefined && open.asking?.workspace.number !== number) continue;
      open.settle({ kind: "no", number: open.view.number, by });
      count++;
    }
    return count;
  }

  /** Forgets remembered yes `number`, revoked from `by`; what was done, in words. */
  revoke(number: number, by: string): string {
    for (const entry of this.#remembered.values()) {
      const index = entry.grants.findIndex((grant) => grant.number === number);
      if (index < 0) continue;
      const [grant] = entry.grants.splice(index, 1);
      this.#tell({ workspace: entry.workspace, forgot: { grant, why: `revoked from ${by}` } });
      return `Forgot yes ${number}: ${entry.workspace.principal} is asked again before ` +
        `${grant.capability} on ${grant.host}.`;
    }
    throw new NoSuchGrant(number);
  }

  /** The open questions, oldest first. */
  questions(): PersonQuestion[] {
    return [...this.#open.values()].map((open) => open.view).sort((a, b) => a.number - b.number);
  }

  /** The remembered yeses of live workspaces, oldest first. */
  granted(): PersonGrant[] {
    const all: PersonGrant[] = [];
    for (const id of [...this.#remembered.keys()]) {
      const entry = this.#rememberedOf(id);
      if (!entry) continue;
      for (const grant of entry.grants) {
        all.push({
          number: grant.number,
          workspace: entry.workspace.number,
          principal: grant.principal,
          capability: grant.capability,
          host: grant.host,
          by: grant.by,
          at: grant.at,
        });
      }
    }
    return all.sort((a, b) => a.number - b.number);
  }

  /** The deadline of the call whose signal this is: set by its first wait, kept for the rest. */
  #deadlineOf(signal: AbortSignal): number {
    const known = this.#deadlines.get(signal);
    if (known !== undefined) return known;
    const deadline = Date.now() + this.#timeoutMs;
    this.#deadlines.set(signal, deadline);
    return deadline;
  }

  /** A call's question as the person sees it, but its number. */
  #callView(asking: Asking, deadline: number): Omit<PersonQuestion, "number"> {
    return {
      workspace: asking.workspace.number,
      principal: asking.principal.slice(0, 64),
      client: asking.client.slice(0, 200),
      capability: asking.capability,
      host: asking.host.slice(0, 300),
      call: asking.call.slice(0, 300),
      target: asking.target
        ? { role: asking.target.role.slice(0, 40), name: asking.target.name.slice(0, 200) }
        : null,
      agent: null,
      asked: new Date().toISOString(),
      expires: new Date(deadline).toISOString(),
    };
  }

  /**
   * Opens the question under `id` (a workspace's, or an agent host's) and waits for its reply
   * until its `expires`.
   */
  #openQuestion(
    id: string,
    shown: Omit<PersonQuestion, "number">,
    asking: Asking | null,
    signal: AbortSignal,
  ): Promise<Reply> {
    const number = ++this.#lastQuestion;
    const view: PersonQuestion = { number, ...shown };
    const deadline = Date.parse(view.expires);
    const workspace = asking?.workspace ?? null;
    let close!: () => void;
    const closed = new Promise<void>((resolve) => close = resolve);
    return new Promise<Reply>((resolve) => {
      const settle = (reply: Reply) => {
        if (this.#open.get(id)?.view.number !== number) return;
        this.#open.delete(id);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(reply);
        close();
        asking?.reach?.closed();
        this.#tell({ workspace, closed: { number, reply } });
      };
      const onAbort = () => settle({ kind: "withdrawn", number });
      const timer = setTimeout(
        () => settle({ kind: "unanswered", number, ms: this.#timeoutMs }),
        Math.max(0, deadline - Date.now()),
      );
      signal.addEventListener("abort", onAbort, { once: true });
      this.#open.set(id, { view, asking, settle, closed });
      asking?.reach?.opened(view);
      this.#tell({ workspace, opened: view });
    });
  }

  /** Waits behind the workspace's open question: until it closes, the deadline, or `signal`. */
  async #behind(
    id: string,
    deadline: number,
    signal: AbortSignal,
  ): Promise<"closed" | "timeout" | "aborted" | "busy"> {
    const open = this.#open.get(id);
    if (!open) return "closed";
    const waiting = this.#waiting.get(id) ?? 0;
    if (waiting >= MAX_WAITING) return "busy";
    this.#waiting.set(id, waiting + 1);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        open.closed.then(() => "closed" as const),
        new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()));
        }),
        new Promise<"aborted">((resolve) => {
          onAbort = () => resolve("aborted");
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
      const left = (this.#waiting.get(id) ?? 1) - 1;
      if (left > 0) this.#waiting.set(id, left);
      else this.#waiting.delete(id);
    }
  }

  /** Remembers a yes for the asking agent's workspace, on the site, for the capability. */
  #remember(asking: Asking, question: number, by: string): void {
    const id = asking.workspace.id;
    // Ended workspaces' yeses go first, so the map holds live workspaces only.
    for (const key of [...this.#remembered.keys()]) this.#rememberedOf(key);
    const entry = this.#rememberedOf(id) ?? { workspace: asking.workspace, grants: [] };
    this.#remembered.set(id, entry);
    if (this.remembered(id, asking.principal, asking.host, asking.capability)) return;
    entry.grants.push({
      number: ++this.#lastGrant,
      question,
      principal: asking.principal,
      capability: asking.capability,
      host: asking.host,
      by,
      at: new Date().toISOString(),
    });
    if (entry.grants.length > MAX_REMEMBERED) entry.grants.shift();
  }

  /** Forgets the yeses of a workspace that ended (the daemon calls it as the workspace goes). */
  ended(workspaceId: string): void {
    const entry = this.#remembered.get(workspaceId);
    if (!entry) return;
    this.#remembered.delete(workspaceId);
    for (const grant of entry.grants) {
      this.#tell({ workspace: entry.workspace, forgot: { grant, why: "its workspace ended" } });
    }
  }

  /** A workspace's remembered yeses, or null; those of an ended workspace are forgotten here. */
  #rememberedOf(id: string): { workspace: Workspace; grants: Remembered[] } | null {
    const entry = this.#remembered.get(id);
    if (!entry) return null;
    if (this.#live(id)) return entry;
    this.ended(id);
    return null;
  }

  #tell(event: Parameters<QuestionListener>[0]): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's fault is its own: the question stands.
      }
    }
  }
}

/** The person revoked a remembered yes that does not exist (any more). */
export class NoSuchGrant extends Error {
  constructor(readonly number: number) {
    super(
      `there is no remembered yes ${number}; 'ghostlight asks --granted' lists them (it goes ` +
        "with its agent's workspace)",
    );
  }
}

/** The person gave an answer the question does not take (an agent host's own request). */
export class NotThisAnswer extends Error {
  constructor(readonly number: number, why: string) {
    super(`question ${number} was not answered: ${why}`);
  }
}
