/**
 * The CPU time each process of a bench's stack uses over a stretch of the run: the bench itself
 * (its MCP clients), the service, the MCP connectors, the browser connector and Chromium's
 * processes, read from /proc/<pid>/stat before and after. Linux only; elsewhere nothing is read.
 *
 * @module
 */

import { descendants } from "./processes.ts";

/** The groups CPU time is told in. */
export const CPU_GROUPS = [
  "service",
  "MCP connectors",
  "browser connector",
  "Chromium's browser",
  "extension",
  "page renderers",
  "Chromium's others",
  "bench clients",
] as const;

/** One of {@linkcode CPU_GROUPS}. */
export type CpuGroup = typeof CPU_GROUPS[number];

/** CPU milliseconds (user and system) by group. */
export type CpuMs = Record<CpuGroup, number>;

/** Each process's CPU so far, in milliseconds, and its group. */
export type CpuSnapshot = Map<number, { group: CpuGroup; ms: number }>;

/** Clock ticks per second of /proc/<pid>/stat's times: 100 on every Linux we run on. */
const TICKS_PER_SECOND = 100;

/** The CPU time of `pid` so far in milliseconds (user and system), or null when it is gone. */
async function cpuMsOf(pid: number): Promise<number | null> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  if (stat === "") return null;
  // The fields after the command's closing parenthesis: state is the first, utime the 12th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 1000 / TICKS_PER_SECOND : null;
}

/**
 * Which group a process of the stack belongs to, by its id and command line: the service's
 * browser launcher (a Deno process that waits on Chromium) counts as the service; Chromium's main
 * process has no `--type`, and the extension's worker runs in a renderer marked as an extension's.
 */
async function groupOf(pid: number, servicePid: number): Promise<CpuGroup> {
  if (pid === Deno.pid) return "bench clients";
  if (pid === servicePid) return "service";
  const command = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
  if (command.includes("mcp-connector")) return "MCP connectors";
  if (command.includes("browser-connector")) return "browser connector";
  if (command.startsWith(Deno.execPath())) return "service";
  if (!command.includes("--type=")) return "Chromium's browser";
  if (!command.includes("--type=renderer")) return "Chromium's others";
  return command.includes("--extension-process") ? "extension" : "page renderers";
}

/** Every process of the bench's stack now (the bench and all it started) with its CPU so far. */
export async function cpuSnapshot(servicePid: number): Promise<CpuSnapshot> {
  const snapshot: CpuSnapshot = new Map();
  if (Deno.build.os !== "linux") return snapshot;
  for (const pid of [Deno.pid, ...await descendants(Deno.pid)]) {
    const ms = await cpuMsOf(pid);
    if (ms !== null) snapshot.set(pid, { group: await groupOf(pid, servicePid), ms });
  }
  return snapshot;
}

/**
 * The CPU each group used between `before` and `after`; a process born in between counts whole,
 * one that ended in between is lost (none should, while the clients call).
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuMs {
  const used = Object.fromEntries(CPU_GROUPS.map((group) => [group, 0])) as CpuMs;
  for (const [pid, now] of after) used[now.group] += now.ms - (before.get(pid)?.ms ?? 0);
  return used;
}
