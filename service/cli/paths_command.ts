/**
 * `ghostlight paths`: every file, folder and socket of an instance, so people, tests and
 * `doctor` read where things are instead of guessing.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { MACHINE_POLICY_FILE } from "../governance/mod.ts";
import { noMore, takeFlag } from "./args.ts";

/** `ghostlight paths [--json]`: the instance's paths (and the machine-wide policy file). */
export function runPaths(paths: InstancePaths, args: string[]): number {
  const json = takeFlag(args, "--json");
  noMore(args);
  const all = { ...paths, machinePolicyFile: MACHINE_POLICY_FILE };
  if (json) {
    console.log(JSON.stringify(all));
    return 0;
  }
  // The key files one a line, as `keys.mcp` and so on.
  const lines: [string, string | null][] = Object.entries(all).flatMap((
    [key, value],
  ): [string, string | null][] =>
    value !== null && typeof value === "object"
      ? Object.entries(value).map(([role, file]) => [`${key}.${role}`, file])
      : [[key, value]]
  );
  const width = Math.max(...lines.map(([key]) => key.length));
  for (const [key, value] of lines) {
    console.log(`${key.padEnd(width)}  ${value ?? "(default instance)"}`);
  }
  return 0;
}
