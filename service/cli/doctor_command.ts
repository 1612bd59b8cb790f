/**
 * `ghostlight doctor`: every hop of the installed instance, a verdict, and the next action for
 * each problem, for people or as JSON.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { currentHost, doctor, DoctorReport } from "../install/mod.ts";
import { noMore, takeFlag } from "./args.ts";

const MARKS = { ok: "ok     ", problem: "PROBLEM", note: "note   " } as const;

/** `ghostlight doctor [--json]`: exit code 0 when healthy, 1 with problems. */
export async function runDoctor(paths: InstancePaths, args: string[]): Promise<number> {
  const json = takeFlag(args, "--json");
  noMore(args);
  const report = DoctorReport.parse(await doctor({ host: currentHost(), paths }));
  if (json) {
    console.log(JSON.stringify(report));
    return report.healthy ? 0 : 1;
  }
  for (const finding of report.findings) {
    console.log(`${MARKS[finding.status]}  ${finding.hop.padEnd(12)} ${finding.message}`);
    if (finding.fix) console.log(`${" ".repeat(22)}→ ${finding.fix}`);
  }
  console.log(`\n${report.verdict}`);
  return report.healthy ? 0 : 1;
}
