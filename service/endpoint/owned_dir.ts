/**
 * Owner-only folders: the runtime folder that holds the sockets and the state folder that holds
 * the secret and the log. Peer admission is the filesystem itself, so each one's type, owner and
 * mode are checked, never assumed.
 *
 * @module
 */

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
