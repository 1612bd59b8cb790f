/**
 * Which connections keep each workspace alive. Every live connection that opens, mints or names
 * a workspace holds it. A workspace released explicitly goes at once; one whose last holder was
 * lost without releasing it waits out a grace period, so a reconnecting connector can take it
 * back by naming it, and is released when that period ends, or once the call running in it has
 * settled, whichever is later: active work pins its workspace.
 *
 * @module
 */

import { log } from "../log/mod.ts";
import { type Workspace, type WorkspaceRegistry } from "./workspace_registry.ts";

/**
 * How many workspaces one connection may hold (opened, minted or named), so one client cannot
 * take all of the service's workspaces from everyone else.
 */
export const MAX_WORKSPACES_PER_CONNECTION = 8;

/** One live connection's place among the holders; made by {@linkcode WorkspaceHolds.connect}. */
export interface Holder {
  /** Which connection of this service it is, counted from 1. */
  readonly connection: number;
  /** The principal its connector proved: the workspaces it opens are labelled by it. */
  readonly principal: string;
}

/** What the holds need beyond the registry. */
export interface WorkspaceHoldsOptions {
  /** How long a workspace whose last holder was lost waits to be taken back. */
  graceMs: number;
  /** Gives a released workspace's tabs back to the user, undebugged. */
  releaseTabs: (workspace: Workspace) => void;
  /**
   * Resolves once no call runs in the workspace `id` (its audit record written); null when none
   * runs now. A grace release waits for it.
   */
  untilSettled?: (id: string) => Promise<void> | null;
}

/** The service's workspace holds: who holds what, and the grace timers of the orphaned. */
export class WorkspaceHolds {
  readonly #workspaces: WorkspaceRegistry;
  readonly #options: WorkspaceHoldsOptions;
  /** Per live connection, the workspaces it opened, minted or named and has not released. */
  readonly #held = new Map<Holder, Set<string>>();
  /**
   * Workspaces no live connection holds, each with the timer that will release it (still there,
   * fired, while the release waits for the call running in the workspace).
   */
  readonly #orphaned = new Map<string, ReturnType<typeof setTimeout>>();
  #connections = 0;
  #closed = false;

  /** Holds for the workspaces of `workspaces`. */
  constructor(workspaces: WorkspaceRegistry, options: WorkspaceHoldsOptions) {
    this.#workspaces = workspaces;
    this.#options = options;
  }

  /** A new connection of `principal`, holding nothing yet. */
  connect(principal = "unnamed"): Holder {
    const holder = { connection: ++this.#connections, principal };
    this.#held.set(holder, new Set());
    return holder;
  }

  /** Whether `holder` holds the workspace `id`. */
  holds(holder: Holder, id: string): boolean {
    return this.#idsOf(holder).has(id);
  }

  /** The live connections that hold the workspace `id`. */
  holdersOf(id: string): Holder[] {
    return [...this.#held].filter(([, ids]) => ids.has(id)).map(([holder]) => holder);
  }

  /** The workspaces `holder` holds. */
  heldBy(holder: Holder): string[] {
    return [...this.#idsOf(holder)];
  }

  /** Whether `holder` already holds {@linkcode MAX_WORKSPACES_PER_CONNECTION} workspaces. */
  isFull(holder: Holder): boolean {
    return this.#idsOf(holder).size >= MAX_WORKSPACES_PER_CONNECTION;
  }

  /**
   * Makes `holder` a holder of the existing workspace `id`; a pending grace release of it stops.
   * The caller checks {@linkcode isFull} first: the cap's refusal is its to word.
   */
  hold(holder: Holder, id: string): void {
    const ids = this.#idsOf(holder);
    if (ids.has(id)) return;
    ids.add(id);
    this.#stopGrace(id);
  }

  /**
   * Mints a workspace labelled for the user and makes `holder` hold it. Throws
   * `WorkspaceLimit` when the service holds all the workspaces it may.
   */
  open(holder: Holder, label: string): Workspace {
    const workspace = this.#workspaces.open(label, holder.principal);
    this.hold(holder, workspace.id);
    return workspace;
  }

  /**
   * Releases the workspace `id` at once, whoever else holds it: its tabs go back to the user.
   * The id is a bearer capability, so `holder` need not hold it.
   */
  release(holder: Holder, id: string): void {
    this.#idsOf(holder).delete(id);
    this.#stopGrace(id);
    this.#release(id);
  }

  /**
   * Releases the workspace `id` at once and takes it from every holder (the person stopped its
   * agent): its tabs go back to the user.
   */
  drop(id: string): void {
    for (const ids of this.#held.values()) ids.delete(id);
    this.#stopGrace(id);
    this.#release(id);
  }

  /**
   * Ends `holder`'s connection, lost without releasing what it holds: each workspace it was the
   * last to hold starts its grace period (one timer per workspace).
   */
  disconnect(holder: Holder): void {
    const ids = this.#idsOf(holder);
    this.#held.delete(holder);
    for (const id of ids) {
      if (this.#heldByAnyone(id)) continue;
      this.#stopGrace(id);
      if (this.#closed) continue;
      const timer = setTimeout(() => this.#graceOver(id, timer), this.#options.graceMs);
      this.#orphaned.set(id, timer);
    }
  }

  /**
   * Releases the orphaned workspace `id` whose grace period (`timer`) is over, once no call runs
   * in it; unless a connection took it back, or the service closed, meanwhile.
   */
  #graceOver(id: string, timer: ReturnType<typeof setTimeout>): void {
    if (this.#orphaned.get(id) !== timer) return;
    const running = this.#options.untilSettled?.(id) ?? null;
    if (running === null) {
      this.#orphaned.delete(id);
      this.#release(id);
      return;
    }
    log(
      "info",
      "a workspace's grace period ended while a call runs in it; released once it settles",
    );
    running.then(() => this.#graceOver(id, timer));
  }

  /** Stops every pending grace release and starts no more: the service is stopping. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#orphaned.values()) clearTimeout(timer);
    this.#orphaned.clear();
  }

  #idsOf(holder: Holder): Set<string> {
    const ids = this.#held.get(holder);
    if (!ids) throw new Error(`connection ${holder.connection} is not connected to these holds`);
    return ids;
  }

  #heldByAnyone(id: string): boolean {
    for (const ids of this.#held.values()) if (ids.has(id)) return true;
    return false;
  }

  #stopGrace(id: string): void {
    clearTimeout(this.#orphaned.get(id));
    this.#orphaned.delete(id);
  }

  #release(id: string): void {
    const workspace = this.#workspaces.get(id);
    if (workspace) this.#options.releaseTabs(workspace);
    this.#workspaces.release(id);
  }
}
