/**
 * The service's footing on the filesystem: owner-only directories, the start-up lock, and the
 * Unix sockets. Peer admission is the filesystem itself, so every mode and owner is checked.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { readSecret, SECRET_BYTES } from "../../shared/proof.ts";

/**
 * Creates `dir` (0700) if missing and refuses one that is a symlink, that another user owns, or
 * that others can enter: the sockets inside are only as private as this folder.
 */
export async function ensureOwnedDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await Deno.lstat(dir);
  const elsewhere = "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a folder of your own";
  if (info.isSymlink) {
    throw new Error(`${dir} is a symbolic link; refusing to use it. Remove it, or ${elsewhere}`);
  }
  if (info.uid !== null && info.uid !== Deno.uid()) {
    throw new Error(
      `${dir} belongs to another user (uid ${info.uid}); refusing to use it. Remove it, or ` +
        elsewhere,
    );
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new Error(
      `${dir} is open to other users (mode ${(info.mode & 0o777).toString(8)}); ` +
        `run 'chmod 700 ${dir}' or remove it`,
    );
  }
}

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
  control: string;
}

/**
 * Binds the bridge and browser sockets (0600) under the start-up lock, so two services started
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
    await Deno.chmod(paths.bridgeSocket, 0o600);
    await Deno.chmod(paths.browserSocket, 0o600);
    return { bridge, browser, control: paths.controlSocket };
  } finally {
    await lock.unlock().catch(() => {});
    lock.close();
  }
}

/**
 * Creates the instance secret (0600) if it does not exist yet, and returns it. Only the service
 * creates it; connectors only read it to check the service's proof.
 */
export async function ensureSecret(path: string): Promise<Uint8Array> {
  try {
    return await readSecret(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const secret = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  await Deno.writeFile(path, secret, { mode: 0o600, createNew: true });
  return secret;
}
