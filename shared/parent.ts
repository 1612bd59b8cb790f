/**
 * Whether the process that started this one has gone, asked when its input ends: a parent killed
 * outright closes its end of the pipe a moment before its children are handed to another parent.
 *
 * @module
 */

/** How long, after its input ended, a process watches for its parent's exit. */
export const PARENT_EXIT_MS = 100;

/** Whether the parent `parent` exits within {@linkcode PARENT_EXIT_MS}. */
export async function parentExits(parent: number): Promise<boolean> {
  const deadline = Date.now() + PARENT_EXIT_MS;
  while (Deno.ppid === parent) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}
