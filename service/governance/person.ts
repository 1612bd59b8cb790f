/**
 * The person's controls over the agents: hold (pause), resume, take over (hold and bring the
 * agent's tab to the front), stop (end its workspaces, hand its tabs back, answer it "stopped"
 * until it reconnects), and the attention circuit, which holds a workspace after a run of denials
 * until the person chooses. One object per service, built by the daemon; the bridge asks it
 * before every call, the CLI and the popup drive it.
 *
 * @module
 */

import type { PersonWorkspace, WorkspaceState } from "../../shared/person.ts";
import type { Holder, Workspace, WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";

/** How many stopped workspace ids are remembered, to answer a late call on one clearly. */
const STOPPED_REMEMBERED = 256;

/** What stops a call before any policy is consulted, and the words for it. */
export interface Barrier {
  /** As the audit records it. */
  kind: "held" | "attention" | "stopped";
  rule: string;
}

/** What the person controls do to the browser: shown on the tab group, a tab brought forward. */
export interface PersonEffects {
  /** Shows a workspace's state on its tab group (its title and colour). */
  show(workspace: Workspace, state: "running" | "held" | "attention" | "asking"): void;
  /** Brings the tab `tabId` of the workspace (or any of its tabs) to the front. */
  focus(workspace: Workspace, tabId: number | undefined): Promise<boolean>;
}

/** What the controls need. */
export interface PersonOptions {
  workspaces: WorkspaceRegistry;
  holds: WorkspaceHolds;
  /** Denials in a row that open a workspace's attention circuit. */
  attentionAfter: number;
  effects: PersonEffects;
}

/** A call as the person sees it. */
interface CallNote {
  tool: string;
  action: string | null;
  host: string | null;
  at: string;
}

/** What the controls know of one workspace. */
interface Mark {
  held: boolean;
  attention: boolean;
  denials: number;
  lastTab?: number;
  current: CallNote | null;
  last: (CallNote & { result: string }) | null;
}

/** The person's controls of one service. */
export class PersonControls {
  readonly #options: PersonOptions;
  #paused = false;
  readonly #marks = new Map<string, Mark>();
  /** Live connections, each with the way to stop its running calls. */
  readonly #connections = new Map<Holder, () => void>();
  readonly #stoppedConnections = new Set<Holder>();
  readonly #stoppedWorkspaces = new Set<string>();

  constructor(options: PersonOptions) {
    this.#options = options;
  }

  /** Denials in a row that open a workspace's attention circuit. */
  get attentionAfter(): number {
    return this.#options.attentionAfter;
  }

  /** Notes a live connection and how to abort its running calls (when the person stops it). */
  connected(holder: Holder, abortCalls: () => void): void {
    this.#connections.set(holder, abortCalls);
  }

  /** Forgets a connection that ended; a stopped agent that reconnects starts afresh. */
  disconnected(holder: Holder): void {
    this.#connections.delete(holder);
    this.#stoppedConnections.delete(holder);
  }

  /**
   * What stops a call from `holder` in the workspace `workspaceId` (none for a call without
   * one) before anything else: the person stopped it, paused it, or the attention circuit holds
   * it. Null when nothing does.
   */
  barrier(holder: Holder, workspaceId: string | undefined): Barrier | null {
    if (
      this.#stoppedConnections.has(holder) ||
      (workspaceId !== undefined && this.#stoppedWorkspaces.has(workspaceId))
    ) {
      return { kind: "stopped", rule: "the person stopped this agent" };
    }
    const mark = workspaceId === undefined ? undefined : this.#marks.get(workspaceId);
    if (mark?.attention) {
      return {
        kind: "attention",
        rule: `the attention circuit opened after ${this.attentionAfter} denials in a row`,
      };
    }
    if (this.#paused) return { kind: "held", rule: "the person paused every agent" };
    if (mark?.held) return { kind: "held", rule: "the person paused this agent" };
    return null;
  }

  /** Notes a call that is about to run in `workspace`, on `tabId` when it names one. */
  began(workspace: Workspace, call: Omit<CallNote, "at">, tabId: number | undefined): void {
    const mark = this.#mark(workspace.id);
    mark.current = { ...call, at: new Date().toISOString() };
    if (tabId !== undefined) mark.lastTab = tabId;
  }

  /** Notes how a call in `workspace` ended. */
  ended(workspace: Workspace, call: Omit<CallNote, "at">, result: string): void {
    const mark = this.#mark(workspace.id);
    mark.current = null;
    mark.last = { ...call, at: new Date().toISOString(), result };
  }

  /**
   * Counts a policy denial in `workspace`; true when it opens the attention circuit, which
   * then holds the workspace until the person resumes it.
   */
  denied(workspace: Workspace): boolean {
    const mark = this.#mark(workspace.id);
    mark.denials++;
    if (mark.attention || mark.denials < this.attentionAfter) return false;
    mark.attention = true;
    this.#options.effects.show(workspace, "attention");
    return true;
  }

  /** An allowed call ends a run of denials. */
  allowed(workspace: Workspace): void {
    const mark = this.#marks.get(workspace.id);
    if (mark) mark.denials = 0;
  }

  /** Pauses one workspace, or every agent (new ones too) when none is named. */
  hold(number?: number): string {
    if (number === undefined) {
      this.#paused = true;
      for (const workspace of this.#options.workspaces.list()) {
        this.#options.effects.show(workspace, "held");
      }
      return "Every agent is paused; their calls are answered 'paused' until you resume.";
    }
    const workspace = this.#workspace(number);
    this.#mark(workspace.id).held = true;
    this.#options.effects.show(workspace, "held");
    return `Workspace ${number} (${workspace.principal}) is paused.`;
  }

  /** Resumes one workspace (and closes its attention circuit), or everything. */
  resume(number?: number): string {
    const targets = number === undefined
      ? this.#options.workspaces.list()
      : [this.#workspace(number)];
    if (number === undefined) this.#paused = false;
    for (const workspace of targets) {
      const mark = this.#mark(workspace.id);
      Object.assign(mark, { held: false, attention: false, denials: 0 });
      if (!this.#paused) this.#options.effects.show(workspace, "running");
    }
    return number === undefined
      ? "Every agent may carry on."
      : `Workspace ${number} (${targets[0].principal}) may carry on${
        this.#paused ? ", once you resume everything (every agent is paused)" : ""
      }.`;
  }

  /** Holds one workspace (or all) and brings its tab to the front so the person can act. */
  async takeOver(number?: number): Promise<string> {
    const workspace = number === undefined ? this.#mostRecent() : this.#workspace(number);
    const said = this.hold(number);
    if (!workspace) return said;
    const focused = await this.#options.effects.focus(
      workspace,
      this.#marks.get(workspace.id)?.lastTab,
    );
    return `${said} ${
      focused ? "Its tab is in front: it is yours." : "It has no open tab to bring forward."
    }`;
  }

  /**
   * Stops the agent of one workspace (every connection holding it), or every agent: their
   * running calls are aborted, their workspaces released (the pages stay open, the user's
   * again), and their later calls are answered "stopped" until they reconnect.
   */
  stop(number?: number): string {
    const { holds, workspaces } = this.#options;
    const targets = number === undefined ? workspaces.list() : [this.#workspace(number)];
    const agents = number === undefined
      ? [...this.#connections.keys()]
      : holds.holdersOf(targets[0].id);
    for (const holder of agents) {
      this.#stoppedConnections.add(holder);
      this.#connections.get(holder)?.();
      for (const id of holds.heldBy(holder)) this.#release(id);
    }
    for (const workspace of targets) {
      if (workspaces.get(workspace.id)) this.#release(workspace.id);
    }
    return number === undefined
      ? `Stopped ${agents.length} agent(s); their tabs are yours again.`
      : `Stopped the agent of workspace ${number}; its tabs are yours again.`;
  }

  /** Each workspace as the person sees it, oldest first. */
  workspaces(): PersonWorkspace[] {
    const live = this.#options.workspaces.list();
    for (const id of this.#marks.keys()) {
      if (!live.some((workspace) => workspace.id === id)) this.#marks.delete(id);
    }
    return live.map((workspace) => {
      const mark = this.#marks.get(workspace.id);
      return {
        number: workspace.number,
        principal: workspace.principal,
        client: workspace.label,
        color: workspace.color,
        state: this.#stateOf(mark),
        tabs: workspace.tabs.size,
        denials: mark?.denials ?? 0,
        plan: workspace.plan ?? null,
        current: mark?.current ?? null,
        last: mark?.last ?? null,
      };
    });
  }

  /**
   * Shows on the workspace's tab group that it asks the person (decision 0360), or, when its
   * question is closed, the state it is in again.
   */
  showAsking(workspace: Workspace, asking: boolean): void {
    const mark = this.#marks.get(workspace.id);
    const state = asking
      ? "asking"
      : mark?.attention
      ? "attention"
      : this.#paused || mark?.held
      ? "held"
      : "running";
    this.#options.effects.show(workspace, state);
  }

  /** Whether every agent is paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /** How many stopped agents have not reconnected yet. */
  get stoppedAgents(): number {
    return this.#stoppedConnections.size;
  }

  #stateOf(mark: Mark | undefined): WorkspaceState {
    if (mark?.attention) return "attention";
    if (this.#paused || mark?.held) return "held";
    return mark?.current ? "running" : "idle";
  }

  #release(id: string): void {
    this.#stoppedWorkspaces.add(id);
    for (const old of this.#stoppedWorkspaces) {
      if (this.#stoppedWorkspaces.size <= STOPPED_REMEMBERED) break;
      this.#stoppedWorkspaces.delete(old);
    }
    this.#marks.delete(id);
    this.#options.holds.drop(id);
  }

  #mark(id: string): Mark {
    let mark = this.#marks.get(id);
    if (!mark) {
      mark = { held: false, attention: false, denials: 0, current: null, last: null };
      this.#marks.set(id, mark);
    }
    return mark;
  }

  #workspace(number: number): Workspace {
    const workspace = this.#options.workspaces.byNumber(number);
    if (!workspace) throw new NoSuchWorkspace(number);
    return workspace;
  }

  /** The workspace whose call began or ended last. */
  #mostRecent(): Workspace | undefined {
    let best: { workspace: Workspace; at: string } | undefined;
    for (const workspace of this.#options.workspaces.list()) {
      const mark = this.#marks.get(workspace.id);
      const at = mark?.current?.at ?? mark?.last?.at ?? "";
      if (!best || at > best.at) best = { workspace, at };
    }
    return best?.workspace;
  }
}

/** The person named a workspace that does not exist (any more). */
export class NoSuchWorkspace extends Error {
  constructor(readonly number: number) {
    super(
      `there is no workspace ${number}; 'ghostlight status' lists the workspaces and their numbers`,
    );
  }
}
