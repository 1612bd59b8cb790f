/**
 * `ghostlight audit verify [FILE]`, `ghostlight audit tail [-n N] [--json]` and `ghostlight
 * audit reset`: proving the audit intact against its keyed chain and its anchor (exit 0) or
 * naming what is wrong (exit 1), reading its latest records, and starting a new audit on the
 * person's word (recorded as its first record).
 *
 * @module
 */

import { readRegularFile, statOrNull } from "../../shared/files.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import {
  anchorFileOf,
  auditEvent,
  AuditLog,
  type AuditRecord,
  type AuditText,
  ChainKey,
  checkAnchor,
  parseRecord,
  readAnchor,
  readAuditFile,
  rotatedNumbers,
  verifyAudit,
} from "../audit/mod.ts";
import { auditSecret, socketAlive } from "../endpoint/mod.ts";
import { cannotRead, noMore, takeFlag, takeOption, UsageError } from "./args.ts";
import { shown } from "./shown.ts";

/** Runs `audit verify`, `audit tail` or `audit reset`. */
export async function runAudit(paths: InstancePaths, args: string[]): Promise<number> {
  const sub = args.shift();
  if (sub === "verify") return await verify(paths, args);
  if (sub === "tail") return await tail(paths, args);
  if (sub === "reset") return await reset(paths, args);
  throw new UsageError(
    "the audit commands are 'audit verify [FILE]', 'audit tail [-n N]' and 'audit reset'",
  );
}

/** The instance's audit files, oldest first: the rotated ones, then the current one. */
async function instanceFiles(paths: InstancePaths): Promise<string[]> {
  const rotated = (await rotatedNumbers(paths.auditFile)).map((n) => `${paths.auditFile}.${n}`);
  const current = await Deno.lstat(paths.auditFile).then(() => [paths.auditFile], () => []);
  return [...rotated, ...current];
}

/**
 * The audit's secret, derived from the service's key as the service derives it, or null when the
 * instance has no key (it never ran). The one place the command line reads it.
 */
async function serviceSecret(paths: InstancePaths): Promise<Uint8Array | null> {
  const key = await readRegularFile(paths.keys.service, { maxBytes: 4096 });
  return key === null ? null : await auditSecret(key);
}

async function verify(paths: InstancePaths, args: string[]): Promise<number> {
  const file = args.shift();
  noMore(args);
  const files = file === undefined ? await instanceFiles(paths) : [file];
  const texts: AuditText[] = [];
  for (const name of files) {
    try {
      texts.push({ name, text: await readAuditFile(name) });
    } catch (error) {
      console.error(`ghostlight: ${cannotRead(name, error)}`);
      return 1;
    }
  }
  const secret = await serviceSecret(paths);
  const anchorFile = anchorFileOf(paths.auditFile);
  if (secret === null) {
    console.error(
      files.length === 0
        ? `ghostlight: there is no audit at ${paths.auditFile} yet`
        : `ghostlight: this instance has no service key (${paths.keys.service}), so its audit's keyed ` +
          "hashes cannot be checked",
    );
    return 1;
  }
  const key = ChainKey.derive(secret);
  const anchor = file === undefined ? await readAnchor(anchorFile, key) : null;
  if (typeof anchor === "string") {
    console.log(`The audit cannot be vouched for: ${anchor}.`);
    return 1;
  }
  if (files.length === 0 && anchor === null) {
    console.log(
      `There is no audit at ${paths.auditFile} and no anchor, but this instance has run (its ` +
        "key exists): its audit was deleted, or it never wrote a record before anchoring " +
        "began. 'ghostlight audit reset' starts a new audit, recorded.",
    );
    return 1;
  }
  const result = verifyAudit(texts, key, anchor?.seq);
  if (!result.ok) {
    console.log(
      `${result.file}:${result.line}: the record on line ${result.line} ${result.reason}`,
    );
    return 1;
  }
  const wrong = anchor === null ? null : checkAnchor(result, anchor);
  if (wrong !== null) {
    console.log(`The audit was tampered with: ${wrong}.`);
    return 1;
  }
  if (file === undefined && anchor === null && result.records > result.legacy) {
    console.log(`The audit was tampered with: its anchor ${anchorFile} was deleted.`);
    return 1;
  }
  const span = result.end === null
    ? "no records"
    : `${result.records} record(s), up to record ${result.end.seq}`;
  const against = file !== undefined
    ? " (one file named: the anchor is not checked)"
    : anchor === null
    ? " (written before anchoring: a cut end could not be seen)"
    : `; its anchor names record ${anchor.seq}`;
  const gaps = result.events.filter((event) => event.result === "gap");
  const lines = [
    gaps.length > 0
      ? `The records are intact, but the audit has ${gaps.length} gap(s): ${span} in ` +
        `${files.length} file(s)${against}.`
      : `The audit is intact: ${span} in ${files.length} file(s)${against}.`,
  ];
  if (result.legacy > 0) {
    lines.push(
      `The first ${result.legacy} record(s) were written before the chain was keyed: their ` +
        "order and content agree with each other, but anyone could have rewritten them, and " +
        "records cut from before the keyed ones could not be seen.",
    );
  }
  for (const event of result.events) {
    lines.push(
      event.result === "gap"
        ? `Record ${event.seq} (${event.time}): at start the service found ` +
          `${shown(event.rule ?? "")}.`
        : `Record ${event.seq} (${event.time}): the person reset the audit: ` +
          `${shown(event.rule ?? "")}.`,
    );
  }
  if (gaps.length > 0) {
    lines.push("After looking into it, 'ghostlight audit reset' starts a new audit, recorded.");
  }
  console.log(lines.join("\n"));
  return gaps.length > 0 ? 1 : 0;
}

/**
 * `audit reset`: the person's word that the audit starts over. The service must be stopped; the
 * files and the anchor move into a folder of their own (nothing is deleted), and the new audit's
 * first record says so.
 */
async function reset(paths: InstancePaths, args: string[]): Promise<number> {
  noMore(args);
  if (await socketAlive(paths.controlSocket)) {
    console.error(
      "ghostlight: the service is running; stop it first (Ctrl-C where it runs in the " +
        "foreground; one a client started exits by itself once idle), then reset the audit",
    );
    return 1;
  }
  const secret = await serviceSecret(paths);
  if (secret === null) {
    console.error(`ghostlight: there is no audit at ${paths.auditFile} yet`);
    return 1;
  }
  const stamp = new Date().toISOString().replaceAll(":", "-");
  const stateDir = paths.auditFile.slice(0, paths.auditFile.lastIndexOf("/"));
  const aside = `${stateDir}/audit-before-${stamp}`;
  await Deno.mkdir(aside, { mode: 0o700 });
  const anchorFile = anchorFileOf(paths.auditFile);
  let moved = 0;
  for (const name of [...await instanceFiles(paths), anchorFile]) {
    if ((await statOrNull(name, false)) === null) continue;
    await Deno.rename(name, `${aside}/${name.slice(name.lastIndexOf("/") + 1)}`);
    moved++;
  }
  const audit = await AuditLog.open({
    file: paths.auditFile,
    maxBytes: Number.MAX_SAFE_INTEGER,
    keepFiles: 1,
    key: ChainKey.derive(secret),
  });
  const record = await audit.append(
    auditEvent("reset", `${moved} earlier file(s) were moved to ${aside}`),
  );
  console.log(
    `A new audit starts at record ${record.seq}, which records this reset; the earlier ` +
      `${moved} file(s) are in ${aside}.`,
  );
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
    const text = await readAuditFile(file);
    lines.unshift(...text.split("\n").filter((line) => line !== ""));
    if (lines.length >= count) break;
  }
  if (lines.length === 0) {
    console.error(`ghostlight: there are no audit records at ${paths.auditFile} yet`);
  }
  for (const line of lines.slice(-count)) {
    const record = parseRecord(line);
    console.log(json ? line : typeof record === "string" ? shown(line) : describe(record));
  }
  return 0;
}

/** One record as a line for people. */
function describe(record: AuditRecord): string {
  const call = record.action === null ? record.tool : `${record.tool} ${record.action}`;
  const needs = record.capabilities.length > 0 ? ` [${record.capabilities.join(", ")}]` : "";
  const rule = record.rule === null ? "" : ` — ${record.rule}`;
  // Who: the principal its connector was started as, then what its client called itself.
  const who = typeof record.principal === "string"
    ? `${record.principal} (client ${record.client})`
    : record.principal === null
    ? record.client
    : `${record.client} (no principal recorded)`;
  return shown(
    `${record.time} #${record.seq} ${record.kind} ${record.result}: ${who} ` +
      `${call}${needs} on ${record.host ?? "no site"}${rule}`,
  );
}
