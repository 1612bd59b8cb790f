/**
 * Which remote shore speaks for each remote (decision 0520): the connection that last said how
 * its tunnel is (`remote_state`, one per shore process, kept across its reconnects). A newer
 * shore for the same remote replaces the older, which is told to end; the person's Stop of a
 * remote agent tells its shore to end its tunnel and stay down. Everything here is keyed by the
 * connection itself, so an old shore's late teardown can forget only its own entry, never the
 * shore that replaced it. It also watches the remotes file, so that a pin the person narrows or
 * widens reaches the connected remotes' tool lists at once.
 *
 * @module
 */

import type { ServiceMessage } from "../../shared/bridge.ts";
import { statOrNull } from "../../shared/files.ts";
import { log } from "../log/mod.ts";

/** A shore's state connection, as the registry tells it to end. */
export interface ShoreLink {
  /** The remote the service bound the connection to from its own file. */
  readonly remote: string;
  send(message: ServiceMessage): void;
}

/** Why a shore was told to end, in the words its agent host is given. */
export const REMOTE_ENDS = {
  stopped: "the person stopped this remote agent in Ghostlight",
  replaced: "another Ghostlight shore for this remote connected; this one is replaced",
} as const;

/** The current shore of each remote; one per service. */
export class RemoteShores {
  readonly #current = new Map<string, ShoreLink>();
  readonly #listeners = new Set<() => void>();
  /** The remotes file as last seen (undefined: not looked at yet, null: absent). */
  #seen: string | null | undefined;
  #looking = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Looks at the remotes file every `ms`; each change is told to every listener. Resolves after
   * the first look, against which the first change is measured.
   */
  async watch(file: string, ms: number): Promise<void> {
    const look = async () => {
      if (this.#looking) return;
      this.#looking = true;
      try {
        const info = await statOrNull(file, true).catch(() => null);
        const seen = info === null
          ? null
          : `${info.dev}:${info.ino}:${info.size}:${info.mtime?.getTime()}`;
        const changed = this.#seen !== undefined && seen !== this.#seen;
        this.#seen = seen;
        if (changed) { for (const listener of [...this.#listeners]) listener(); }
      } finally {
        this.#looking = false;
      }
    };
    this.#timer = setInterval(look, ms);
    await look();
  }

  /** Calls `listener` after the remotes file changed; returns how to stop. */
  onFileChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }

  /** `link` says its tunnel's state: it is its remote's shore now; an older one is ended. */
  reported(link: ShoreLink): void {
    const before = this.#current.get(link.remote);
    if (before === link) return;
    this.#current.set(link.remote, link);
    if (before === undefined) return;
    log("info", `remote ${link.remote}: a newer shore connected; the older one is told to end`);
    before.send({ type: "remote_end", why: REMOTE_ENDS.replaced });
  }

  /** `link`'s connection ended: forgotten, only if it is still its remote's shore. */
  gone(link: ShoreLink): void {
    if (this.#current.get(link.remote) === link) this.#current.delete(link.remote);
  }

  /** The person stopped remote `name`'s agent: its shore ends its tunnel and stays down. */
  stop(name: string): void {
    const link = this.#current.get(name);
    if (link === undefined) return;
    this.#current.delete(name);
    log("info", `remote ${name}: the person stopped it; its shore is told to end its tunnel`);
    link.send({ type: "remote_end", why: REMOTE_ENDS.stopped });
  }
}
