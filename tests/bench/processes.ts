/**
 * The processes a peer leaves behind: every descendant of a process we started, found through
 * /proc, so a peer's browser can be ended by its id if closing the peer did not end it.
 *
 * @module
 */

import { isRunning } from "../support/processes.ts";
import { waitFor } from "../support/wait.ts";

/** The ids of every live descendant of `pid` (children, their children, ...). */
export async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    if (stat === "") continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = parents.get(ppid) ?? [];
    list.push(Number(entry.name));
    parents.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0 && found.length < 10_000) {
    for (const child of parents.get(queue.pop()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Waits (bounded) for each of `pids` to end by itself, then sends SIGKILL to those still there.
 * Returns how many had to be killed.
 */
export async function reap(pids: number[], ms = 10_000): Promise<number> {
  const alive = async () => (await Promise.all(pids.map(isRunning))).some(Boolean);
  await waitFor(async () => !(await alive()), "the peer's processes to exit", ms).catch(() => {});
  let killed = 0;
  for (const pid of pids) {
    if (!(await isRunning(pid))) continue;
    try {
      Deno.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // Gone in between.
    }
  }
  return killed;
}

/** The resident set and its peak of process `pid`, in KiB, from /proc/<pid>/status. */
export async function memoryOf(pid: number): Promise<{ rssKiB: number; hwmKiB: number } | null> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const field = (name: string) =>
    Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1]);
  const rssKiB = field("VmRSS");
  const hwmKiB = field("VmHWM");
  return Number.isFinite(rssKiB) ? { rssKiB, hwmKiB } : null;
}
