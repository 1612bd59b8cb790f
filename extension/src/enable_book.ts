/**
 * The enable commands of the observed tabs (decision 0182): what each tab asks to be sent on every
 * debugger attachment, and which of them its current attachment has had. Every tab asks for the
 * same few commands, one of them the page runtime's 58 kB registration for new documents, so each
 * distinct command is held once and the tabs share it by reference, for as long as a tab asks for
 * it. No Chrome API here, so it is tested on its own.
 *
 * @module
 */

import type { EnableCommand } from "../../shared/browser_protocol.ts";

/** The enable commands of every observed tab, each distinct command held once. */
export class EnableBook {
  /**
   * Each distinct command some tab asks for, by its method and parameters as JSON (one key per
   * distinct command, not per tab), and how many tabs ask for it.
   */
  #held = new Map<string, { command: EnableCommand; tabs: number }>();
  /** The key each held command is held under, so releasing it needs no JSON again. */
  #keys = new Map<EnableCommand, string>();
  /** Tab → the commands it asks for, in order (references into `#held`). */
  #asked = new Map<number, readonly EnableCommand[]>();
  /** Tab → the commands its current debugger attachment has been sent (a subset of its own). */
  #sent = new Map<number, Set<EnableCommand>>();

  /**
   * Sets what `tabId` asks for, replacing what it asked before. What its attachment was sent and
   * is still asked for is not sent again; a command it no longer asks for is forgotten, so asked
   * for again later it is sent again (the page runtime's install is idempotent: a second run
   * leaves the first runtime in place).
   */
  ask(tabId: number, commands: readonly EnableCommand[]): void {
    const asked = commands.map((command) => this.#hold(command));
    this.#release(this.#asked.get(tabId) ?? []);
    this.#asked.set(tabId, asked);
    const sent = this.#sent.get(tabId);
    if (sent) this.#sent.set(tabId, new Set(asked.filter((command) => sent.has(command))));
  }

  /** Makes `tabId` ask for what `openerTabId` asks for; false when the opener asks for nothing. */
  askLike(openerTabId: number, tabId: number): boolean {
    const opener = this.#asked.get(openerTabId);
    if (!opener || this.#asked.has(tabId)) return false;
    this.ask(tabId, opener);
    return true;
  }

  /** What `tabId` asks for, empty when it is not observed. */
  commands(tabId: number): readonly EnableCommand[] {
    return this.#asked.get(tabId) ?? [];
  }

  /** The commands for a fresh debugger attachment to `tabId`: all of them, noted as sent. */
  attached(tabId: number): EnableCommand[] {
    this.#sent.set(tabId, new Set());
    return this.notYetSent(tabId);
  }

  /**
   * Of what `tabId` asks for, what its current attachment has not been sent yet, noted as sent
   * now: a script registered for new documents twice would run twice in every page.
   */
  notYetSent(tabId: number): EnableCommand[] {
    let sent = this.#sent.get(tabId);
    if (!sent) this.#sent.set(tabId, sent = new Set());
    const unsent: EnableCommand[] = [];
    for (const command of this.commands(tabId)) {
      if (sent.has(command)) continue;
      sent.add(command);
      unsent.push(command);
    }
    return unsent;
  }

  /** Forgets a tab no longer observed (released or closed). */
  forget(tabId: number): void {
    this.#release(this.#asked.get(tabId) ?? []);
    this.#asked.delete(tabId);
    this.#sent.delete(tabId);
  }

  /** How many distinct commands are held: at most what the observed tabs ask for now. */
  get held(): number {
    return this.#held.size;
  }

  /** The held command equal to `command` (method and params), held once more. */
  #hold(command: EnableCommand): EnableCommand {
    const key = JSON.stringify([command.method, command.params]);
    const held = this.#held.get(key);
    if (held) {
      held.tabs++;
      return held.command;
    }
    this.#held.set(key, { command, tabs: 1 });
    this.#keys.set(command, key);
    return command;
  }

  #release(commands: readonly EnableCommand[]): void {
    for (const command of commands) {
      const key = this.#keys.get(command);
      const held = key === undefined ? undefined : this.#held.get(key);
      if (!held || --held.tabs > 0) continue;
      this.#held.delete(key!);
      this.#keys.delete(command);
    }
  }
}
