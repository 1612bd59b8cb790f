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
