/**
 * Binding a remote shore's connection to its remote (decision 0400): the shore's hello names the
 * remote it serves; the service looks that name up in its own remotes file and binds the
 * principal `remote:NAME`, the host it dials and its tool pin from there. A name the person has
 * not configured (or a file that cannot be read) admits nothing.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { findRemote, hostPort, readRemoteUrl } from "../../shared/remotes.ts";
import type { RemoteBinding } from "../bridge/mod.ts";

/** The binding of remote `name` from the remotes file, or why there is none. */
export async function bindRemote(
  paths: InstancePaths,
  name: string,
): Promise<RemoteBinding | { refused: string }> {
  try {
    const remote = await findRemote(paths, name);
    if (remote === null) {
      return { refused: `a remote shore named remote ${name}, which is not configured; refused` };
    }
    return {
      name: remote.name,
      host: hostPort(readRemoteUrl(remote.url)),
      pin: new Set(remote.tools),
    };
  } catch (error) {
    return { refused: `remote ${name} refused: ${(error as Error).message}` };
  }
}

/**
 * `bound`, able to read itself again from the file at each call and to end its connection
 * (decision 0470): a shore's connection outlives a change the person makes to its remote.
 */
export function rebindable(
  bound: RemoteBinding,
  paths: InstancePaths,
  conn: Deno.Conn,
): RemoteBinding {
  return {
    ...bound,
    current: () => bindRemote(paths, bound.name),
    drop: () => {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    },
  };
}
