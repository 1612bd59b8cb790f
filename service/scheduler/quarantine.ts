/**
 * Quarantined surfaces: a tab whose command was cut off with its outcome unknown takes no new
 * works until its executor proves that command ended (its terminal acknowledgement from the same
 * executor generation), the tab is gone, or the executor itself ended (a service worker or
 * browser restart). Time alone never clears a surface. Pure bookkeeping: the scheduler consults
 * it, the browser's reports feed it.
 *
 * @module
 */

/** A command whose outcome is unknown: the executor that ran it and its id there. */
export interface CommandRef {
  /** One executor generation of one browser; a new generation means the old one ended. */
  executor: string;
  /** The command's id within that executor (unique across its links). */
  command: string;
}

/** A quarantined surface, as status shows it. */
export interface QuarantinedSurface {
  surface: string;
  since: Date;
  /** Commands on it whose end is not proven yet. */
  unproven: number;
}

interface Entry {
  since: Date;
  /** By `executor` and `command` together. */
  commands: Map<string, CommandRef>;
}

/** Proofs remembered for a cut-off reported after them (an acknowledgement can overtake it). */
const PROOFS_KEPT = 4096;

/** Surfaces that take no new works, each until every command that quarantined it is proven over. */
export class Quarantine {
  #surfaces = new Map<string, Entry>();
  /** Commands and executors proven over lately, oldest first. */
  #proven = new Set<string>();

  /**
   * Quarantines `surface` until `command` is proven over (or the surface or its executor ends).
   * A command already proven over quarantines nothing: its end overtook the report of its cut-off.
   */
  enter(surface: string, command: CommandRef): void {
    if (this.#proven.has(keyOf(command)) || this.#proven.has(executorOf(command.executor))) return;
    let entry = this.#surfaces.get(surface);
    if (!entry) {
      entry = { since: new Date(), commands: new Map() };
      this.#surfaces.set(surface, entry);
    }
    entry.commands.set(keyOf(command), command);
  }

  /** True while `surface` takes no new works. */
  has(surface: string): boolean {
    return this.#surfaces.has(surface);
  }

  /** The executor acknowledged that `command` ended; returns the surfaces that cleared. */
  commandEnded(command: CommandRef): string[] {
    this.#remember(keyOf(command));
    return this.#forget((ref) => keyOf(ref) === keyOf(command));
  }

  /** Every command of `executor` is over (it restarted, or its browser did). */
  executorEnded(executor: string): string[] {
    this.#remember(executorOf(executor));
    return this.#forget((ref) => ref.executor === executor);
  }

  /** The surface is gone (its tab closed): nothing more can happen on it. */
  surfaceGone(surface: string): boolean {
    return this.#surfaces.delete(surface);
  }

  /** The quarantined surfaces, oldest first. */
  list(): QuarantinedSurface[] {
    return [...this.#surfaces].map(([surface, entry]) => ({
      surface,
      since: entry.since,
      unproven: entry.commands.size,
    }));
  }

  #remember(proof: string): void {
    this.#proven.delete(proof);
    this.#proven.add(proof);
    if (this.#proven.size > PROOFS_KEPT) this.#proven.delete(this.#proven.values().next().value!);
  }

  /** Forgets the commands `proven` picks; a surface with none left clears. */
  #forget(proven: (ref: CommandRef) => boolean): string[] {
    const cleared: string[] = [];
    for (const [surface, entry] of this.#surfaces) {
      for (const [key, ref] of entry.commands) if (proven(ref)) entry.commands.delete(key);
      if (entry.commands.size > 0) continue;
      this.#surfaces.delete(surface);
      cleared.push(surface);
    }
    return cleared;
  }
}

function keyOf(ref: CommandRef): string {
  return JSON.stringify([ref.executor, ref.command]);
}

function executorOf(executor: string): string {
  return JSON.stringify([executor]);
}
