/**
 * Whether the service is busy, for its idle exit: connections still in their hello, sessions,
 * attached browsers and running works all count, and the moment the last of them ended is kept.
 *
 * @module
 */

import type { SessionInfo } from "../bridge/mod.ts";

/** What keeps the service from idling out, and since when it has been idle. */
export class Activity {
  /** Connectors being served; a session counts from before its hello ends. */
  readonly sessions = new Set<SessionInfo>();
  /** Works running across all sessions (the bridge counts them). */
  readonly works = { works: 0 };
  #handshaking = 0;
  #lastBusy = Date.now();

  /** `browsers` counts the attached browsers. */
  constructor(private readonly browsers: () => number) {}

  /** Whether anything is going on now. */
  busy(): boolean {
    return this.#handshaking > 0 || this.sessions.size > 0 || this.browsers() > 0 ||
      this.works.works > 0;
  }

  /** Notes that something just ended. */
  touch(): void {
    this.#lastBusy = Date.now();
  }

  /** How long the service has been idle (0 while busy; checking also notes a busy moment). */
  idleMs(): number {
    if (this.busy()) this.touch();
    return Date.now() - this.#lastBusy;
  }

  /** Runs a connection's hello while counting it, so an idle exit waits for it. */
  async admitting<T>(hello: () => Promise<T>): Promise<T> {
    this.#handshaking++;
    try {
      return await hello();
    } finally {
      this.#handshaking--;
      this.touch();
    }
  }
}
