/**
 * `ghostlight audit verify [FILE]` and `ghostlight audit tail [-n N] [--json]`: proving the audit
 * intact (exit 0) or naming its first bad line (exit 1), and reading its latest records.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import {
  type AuditRecord,
  type AuditText,
  parseRecord,
  rotatedNumbers,
  verifyAudit,
} from "../audit/mod.ts";
import { cannotRead, noMore, takeFlag, takeOption, UsageError } from "./args.ts";

/** Runs `audit verify` or `audit tail`. */
export async function runAudit(paths: InstancePaths, args: string[]): Promise<number> {
  const sub = args.shift();
  if (sub === "verify") return await verify(paths, args);
  if (sub === "tail") return await tail(paths, args);
  throw new UsageError("the audit commands are 'audit verify [FILE]' and 'audit tail [-n N]'");
}

/** The instance's audit files, oldest first: the rotated ones, then the current one. */
async function instanceFiles(paths: InstancePaths): Promise<string[]> {
  const rotated = (await rotatedNumbers(paths.auditFile)).map((n) => `${paths.auditFile}.${n}`);
  const current = await Deno.stat(paths.auditFile).then(() => [paths.auditFile], () => []);
  return [...rotated, ...current];
}

async function verify(paths: InstancePaths, args: string[]): Promise<number> {
  const file = args.shift();
  noMore(args);
  const files = file === undefined ? await instanceFiles(paths) : [file];
  if (files.length === 0) {
    console.error(`ghostlight: there is no audit at ${paths.auditFile} yet`);
    return 1;
  }
  const texts: AuditText[] = [];
  for (const name of files) {
    try {
      texts.push({ name, text: await Deno.readTextFile(name) });
    } catch (error) {
      console.error(`ghostlight: ${cannotRead(name, error)}`);
      return 1;
    }
  }
  const result = verifyAudit(texts);
  if (!result.ok) {
    console.log(
      `${result.file}:${result.line}: the record on line ${result.line} ${result.reason}`,
    );
    return 1;
  }
  const span = result.end === null
    ? "no records"
    : `${result.records} record(s), up to record ${result.end.seq}`;
  console.log(`The audit is intact: ${span} in ${files.length} file(s).`);
  return 0;
}

async function tail(paths: InstancePaths, args: string[]): Promise<number> {
  const json = takeFlag(args, "--json");
  const raw = takeOption(args, "-n") ?? "20";
  noMore(args);
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) throw new UsageError("-n takes a whole number");
  const lines: string[] = [];
  for (const file of (await instanceFiles(paths)).reverse()) {
    const text = await Deno.readTextFile(file);
    lines.unshift(...text.split("\n").filter((line) => line !== ""));
    if (lines.length >= count) break;
  }
  if (lines.length === 0) {
    console.error(`ghostlight: there are no audit records at ${paths.auditFile} yet`);
  }
  for (const line of lines.slice(-count)) {
    const record = parseRecord(line);
    console.log(json || typeof record === "string" ? line : describe(record));
  }
  return 0;
}

/** One record as a line for people. */
function describe(record: AuditRecord): string {
  const call = record.action === null ? record.tool : `${record.tool} ${record.action}`;
  const needs = record.capabilities.length > 0 ? ` [${record.capabilities.join(", ")}]` : "";
  const rule = record.rule === null ? "" : ` — ${record.rule}`;
  return `${record.time} #${record.seq} ${record.kind} ${record.result}: ${record.client} ` +
    `${call}${needs} on ${record.host ?? "no site"}${rule}`;
}
