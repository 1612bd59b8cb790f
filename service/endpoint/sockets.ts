/**
 * The service's sockets: binding them under the start-up lock, so two services can never both
 * serve an instance, and telling whether one is live. Only the owner can reach them: the folder
 * they live in is checked by {@linkcode ensureOwnedDir} and each socket is 0600.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { ensureOwnedDir } from "./owned_dir.ts";

/** True when something accepts connections on the Unix socket at `path`. */
export async function socketAlive(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

/** Thrown when another service already serves the instance. */
export class AlreadyRunning extends Error {
  constructor(paths: InstancePaths) {
    super(`the Ghostlight service for ${describeInstance(paths)} is already running`);
    this.name = "AlreadyRunning";
  }
}

/** Names an instance for people. */
export function describeInstance(paths: InstancePaths): string {
  return paths.instance === null ? "the default instance" : `instance '${paths.instance}'`;
}

/** The listeners one service holds. */
export interface Listeners {
  bridge: Deno.Listener<Deno.UnixConn, Deno.UnixAddr>;
  browser: Deno.Listener<Deno.UnixConn, Deno.UnixAddr>;
  control: Deno.Listener<Deno.UnixConn, Deno.UnixAddr>;
}

/**
 * Binds the bridge, browser and control sockets (0600) under the start-up lock, so two services started
 * at once cannot both bind. Throws {@linkcode AlreadyRunning} when a live service holds them.
 */
export async function bindSockets(paths: InstancePaths): Promise<Listeners> {
  await ensureOwnedDir(paths.runtimeDir);
  const lock = await Deno.open(paths.startLock, { create: true, write: true, mode: 0o600 });
  try {
    await lock.lock(true);
    if (await socketAlive(paths.bridgeSocket)) throw new AlreadyRunning(paths);
    for (const path of [paths.bridgeSocket, paths.browserSocket, paths.controlSocket]) {
      await Deno.remove(path).catch(() => {});
    }
    const bridge = Deno.listen({ transport: "unix", path: paths.bridgeSocket });
    const browser = Deno.listen({ transport: "unix", path: paths.browserSocket });
    const control = Deno.listen({ transport: "unix", path: paths.controlSocket });
    for (const path of [paths.bridgeSocket, paths.browserSocket, paths.controlSocket]) {
      await Deno.chmod(path, 0o600);
    }
    return { bridge, browser, control };
  } finally {
    await lock.unlock().catch(() => {});
    lock.close();
  }
}

/** The name of one of the service's sockets. */
export type SocketName = keyof Listeners;

/**
 * The file at `path`, or null when there is none: its inode and when it was made and last
 * changed. The inode alone is not enough: a file made just after another was removed often gets
 * the removed one's number, and the times tell the two apart.
 */
async function fileIdentity(path: string): Promise<string | null> {
  try {
    const info = await Deno.lstat(path);
    const times = [info.birthtime, info.ctime, info.mtime].map((time) => time?.getTime());
    return [info.isSocket ? "socket" : "other", info.dev, info.ino, ...times].join(":");
  } catch {
    return null;
  }
}

/**
 * Notices when one of the service's socket paths no longer names the socket the service bound
 * (decision 0250): a process that may write the path (a connector may, to connect) removed it or
 * put its own socket there. The service then binds the path again, so the next connector reaches
 * the service; the squatter could not have proved itself to it anyway, since only the service
 * holds its signing key.
 */
export class SocketGuard {
  readonly #paths: Record<SocketName, string>;
  readonly #bound = new Map<SocketName, string | null>();

  private constructor(paths: Record<SocketName, string>) {
    this.#paths = paths;
  }

  /** Remembers the files bound now at the paths of `paths`' sockets. */
  static async of(paths: InstancePaths): Promise<SocketGuard> {
    const guard = new SocketGuard({
      bridge: paths.bridgeSocket,
      browser: paths.browserSocket,
      control: paths.controlSocket,
    });
    for (const name of SOCKET_NAMES) guard.#bound.set(name, await fileIdentity(guard.#paths[name]));
    return guard;
  }

  /**
   * A check that the socket bound at `name`'s path now is still the one there: what a connection
   * accepted through that listener is checked with before it is admitted.
   */
  intact(name: SocketName): () => Promise<boolean> {
    const bound = this.#bound.get(name);
    const path = this.#paths[name];
    return async () => bound !== null && await fileIdentity(path) === bound;
  }

  /** The sockets whose path no longer names the file the service bound. */
  async replaced(): Promise<SocketName[]> {
    const changed: SocketName[] = [];
    for (const name of SOCKET_NAMES) {
      if (await fileIdentity(this.#paths[name]) !== this.#bound.get(name)) changed.push(name);
    }
    return changed;
  }

  /**
   * Releases the old listener of `name` (`release` closes it and resolves once its accept loop
   * has ended), removes whatever is at the path, and binds the service's socket there again
   * (0600). Deno unlinks a Unix listener's path when the listener is dropped, whatever file is
   * there by then, and drops it only once its pending accept has ended: binding before that would
   * see the new socket unlinked at once. Throws when the new socket is not at its path after all.
   */
  async rebind(
    name: SocketName,
    release: () => Promise<void>,
  ): Promise<Deno.Listener<Deno.UnixConn, Deno.UnixAddr>> {
    const path = this.#paths[name];
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      release().catch(() => {}),
      new Promise((resolve) => timer = setTimeout(resolve, RELEASE_WAIT_MS)),
    ]);
    clearTimeout(timer);
    await Deno.remove(path).catch(() => {});
    const listener = Deno.listen({ transport: "unix", path });
    await Deno.chmod(path, 0o600);
    const bound = await fileIdentity(path);
    if (bound === null) {
      listener.close();
      throw new Error("the new socket was gone as soon as it was bound");
    }
    this.#bound.set(name, bound);
    return listener;
  }
}

const SOCKET_NAMES: readonly SocketName[] = ["bridge", "browser", "control"];

/** How long a closed listener's accept loop may take to end before the path is bound anyway. */
const RELEASE_WAIT_MS = 1_000;
