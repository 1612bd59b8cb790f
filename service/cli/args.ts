/**
 * Command-line arguments, taken out of a list one by one so that whatever is left over is a
 * mistake the user hears about.
 *
 * @module
 */

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * Why a file named on the command line could not be read. A command runs under its own
 * permissions, so a file outside them gets a way out, not Deno's "run again with --allow-read".
 */
export function cannotRead(file: string, error: unknown): string {
  if (error instanceof Deno.errors.NotCapable) {
    return `${file} is outside the folders this command may read (your home folder and ` +
      `/etc/ghostlight); copy it into your home folder and name the copy`;
  }
  return `${file} cannot be read: ${(error as Error).message}`;
}

/** Removes the flag `name` from `args`; true when it was there. */
export function takeFlag(args: string[], name: string): boolean {
  const index = args.indexOf(name);
  if (index < 0) return false;
  args.splice(index, 1);
  return true;
}

/**
 * Removes the option `name` and its value (`--name value` or `--name=value`) from `args` and
 * returns the value; undefined when absent. Throws a {@linkcode UsageError} when the value is
 * missing.
 */
export function takeOption(args: string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index < 0) return undefined;
  const arg = args[index];
  if (arg.includes("=")) {
    args.splice(index, 1);
    return arg.slice(name.length + 1);
  }
  const value = args[index + 1];
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  args.splice(index, 2);
  return value;
}

/** Throws a {@linkcode UsageError} when arguments are left over. */
export function noMore(args: string[]): void {
  if (args.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
}
