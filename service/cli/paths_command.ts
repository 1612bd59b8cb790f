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
  const width = Math.max(...Object.keys(all).map((key) => key.length));
  for (const [key, value] of Object.entries(all)) {
    console.log(`${key.padEnd(width)}  ${value ?? "(default instance)"}`);
  }
  return 0;
}
