/**
 * The cap on connections one socket holds open at once, counted from accept (a connection still
 * in its handshake counts) to close. Past the cap a connection is told why and closed before
 * anything of it is read, so a flood of same-user connections costs the service a few bytes each.
 *
 * @module
 */

/** Connections the bridge socket holds at once: MCP connectors, handshaking or admitted. */
export const MAX_BRIDGE_CONNECTIONS = 64;
/** Connections the browser socket holds at once: browser connectors, handshaking or attached. */
export const MAX_BROWSER_CONNECTIONS = 16;

/** Counts one socket's open connections against its cap. */
export class ConnectionGate {
  #open = 0;
  #refusedSinceLast = 0;

  /** `name` says which socket in refusals; `max` is the cap. */
  constructor(readonly name: string, readonly max: number) {}

  /** Connections open now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a place for a new connection; false when the socket is full. `onFirstRefusal` runs
   * once per run of refusals (until a connection is admitted again), so a flood logs one line.
   */
  enter(onFirstRefusal?: (message: string) => void): boolean {
    if (this.#open >= this.max) {
      if (this.#refusedSinceLast++ === 0) onFirstRefusal?.(this.refusal());
      return false;
    }
    this.#refusedSinceLast = 0;
    this.#open++;
    return true;
  }

  /** Gives a place back when its connection closes. */
  leave(): void {
    this.#open--;
  }

  /** What a refused connection is told. */
  refusal(): string {
    return `the ${this.name} socket already holds ${this.max} connections; close one and retry`;
  }
}
