/**
 * `ghostlight policy explain | simulate | init`: what a policy allows, in words; which calls of
 * a past audit a policy would have refused; a commented starting file.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { ownEntry } from "../../shared/own.ts";
import { parseRecord, readAuditFile } from "../audit/mod.ts";
import {
  ALL_OPEN,
  BUILT_IN_SACRED,
  decide,
  DEFAULT_TEMPLATE,
  describePolicy,
  explainPolicy,
  MACHINE_POLICY_FILE,
  nameAsPrincipal,
  type PolicyLayer,
  readPolicySource,
  readPolicyText,
  type Rules,
  TEMPLATES,
} from "../governance/mod.ts";
import { shown } from "./shown.ts";
import { cannotRead, noMore, takeOption, UsageError } from "./args.ts";

/** Runs a `policy` subcommand. */
export async function runPolicy(paths: InstancePaths, args: string[]): Promise<number> {
  const sub = args.shift();
  switch (sub) {
    case "explain":
      return await explain(paths, args);
    case "simulate":
      return await simulate(args);
    case "init":
      return await init(paths, args);
    default:
      throw new UsageError(
        "the policy commands are 'policy explain [FILE]', 'policy simulate FILE --replay " +
          "AUDIT' and 'policy init [--template NAME]'",
      );
  }
}

/** A policy file read for a command: its layer, none when it is absent, or why it is bad. */
async function readLayer(file: string): Promise<PolicyLayer | null | string> {
  let text: string | null;
  try {
    text = await readPolicySource(file);
  } catch (error) {
    return cannotRead(file, error);
  }
  if (text === null) return null;
  const read = readPolicyText(text, file);
  return "error" in read ? read.error : read.policy;
}

/**
 * `policy explain [FILE] [--host HOST] [--principal NAME]`: the named file, or the layers this
 * instance would apply (machine-wide, then the person's), in words; with `--host`, what each
 * capability gets there.
 */
async function explain(paths: InstancePaths, args: string[]): Promise<number> {
  const host = takeOption(args, "--host");
  // --client is the deprecated spelling, from when grants named clients.
  const principal = takeOption(args, "--principal") ?? takeOption(args, "--client") ?? "*";
  const file = args.shift();
  noMore(args);
  const files = file === undefined ? [MACHINE_POLICY_FILE, paths.policyFile] : [file];
  const layers: PolicyLayer[] = [];
  for (const path of files) {
    const layer = await readLayer(path);
    if (typeof layer === "string") {
      console.error(`ghostlight: ${layer}`);
      return 1;
    }
    if (layer !== null) layers.push(layer);
    else if (file !== undefined) {
      console.error(`ghostlight: there is no policy file at ${file}`);
      return 1;
    }
  }
  if (layers.length === 0) {
    console.log(`No policy file (${paths.policyFile}): everything is allowed except sacred sites.`);
    layers.push(ALL_OPEN);
  }
  for (const line of describePolicy(layers, BUILT_IN_SACRED)) console.log(line);
  for (const warning of layers.flatMap((layer) => layer.warnings)) {
    console.log(`Warning: ${warning}`);
  }
  if (host !== undefined) {
    const explained = explainPolicy({ layers, builtInSacred: BUILT_IN_SACRED }, principal, host);
    if (explained === null) {
      console.error(
        `ghostlight: ${JSON.stringify(host)} is not a host: give one such as "example.com" or ` +
          '"127.0.0.1", without scheme, port or path',
      );
      return 1;
    }
    // Named as enforcement sees it: `Example.COM.` is example.com, an IDN its ASCII form.
    const seen = explained.host === host ? host : `${explained.host} (as ${host} is matched)`;
    console.log(`\nOn ${seen}, for ${principal === "*" ? "any principal" : principal}:`);
    for (const [capability, { verdict, rule }] of Object.entries(explained.capabilities)) {
      console.log(`  ${capability.padEnd(8)} ${verdict.padEnd(8)} ${rule}`);
    }
  }
  return 0;
}

/**
 * `policy simulate FILE --replay AUDIT`: each decision of the audit, decided again under FILE;
 * the ones it would have refused, and those it would have asked the person about, are listed. A per-call restriction is not in the audit, so it
 * is not replayed.
 */
async function simulate(args: string[]): Promise<number> {
  const replay = takeOption(args, "--replay");
  const file = args.shift();
  noMore(args);
  if (file === undefined || replay === undefined) {
    throw new UsageError("policy simulate needs a policy FILE and --replay AUDIT");
  }
  const layer = await readLayer(file);
  if (layer === null || typeof layer === "string") {
    console.error(`ghostlight: ${layer ?? `there is no policy file at ${file}`}`);
    return 1;
  }
  const rules: Rules = { layers: [layer], builtInSacred: BUILT_IN_SACRED };
  let lines: string[];
  try {
    lines = (await readAuditFile(replay)).split("\n");
  } catch (error) {
    console.error(`ghostlight: ${cannotRead(replay, error)}`);
    return 1;
  }
  let decisions = 0;
  let refused = 0;
  let asked = 0;
  let unnamed = 0;
  for (const [index, line] of lines.entries()) {
    if (line === "") continue;
    const record = parseRecord(line);
    if (typeof record === "string" || record.kind !== "decision") continue;
    if (!["allowed", "observed", "denied", "sacred"].includes(record.result)) continue;
    decisions++;
    // A landing check decided whether the page the call led to may be read.
    const landing = record.rule?.startsWith("after the call") ?? false;
    // A record names the principal its call came from; one written before records did names
    // only its client, which is replayed as the principal of that name (decision 0303).
    const principal = record.principal ?? nameAsPrincipal(record.client);
    if (typeof record.principal !== "string") unnamed++;
    const decision = decide(rules, {
      principal,
      host: record.host,
      capabilities: landing ? ["read"] : record.capabilities as never[],
      restrictions: [],
    });
    const would = decision.verdict === "sacred"
      ? "be refused (sacred)"
      : decision.verdict === "denied"
      ? "be denied"
      : decision.verdict === "ask"
      ? "ask the person"
      : null;
    if (would === null) continue;
    if (decision.verdict === "ask") asked++;
    else refused++;
    const call = record.action === null ? record.tool : `${record.tool} ${record.action}`;
    const who = typeof record.principal === "string"
      ? `${record.principal} (its client says: ${record.client})`
      : `${record.client} (no principal recorded; replayed as ${principal})`;
    console.log(shown(
      `${replay}:${index + 1}: ${record.time} ${who} ${call} on ` +
        `${record.host ?? "no site"} would ${would} (${decision.rule}); it was ${record.result}`,
    ));
  }
  if (unnamed > 0) {
    console.log(
      `${unnamed} decision(s) were recorded before records named their principal: each was ` +
        "replayed as the principal its client's self-reported name would be, which may not be " +
        "the principal it was started as.",
    );
  }
  console.log(`${refused} of ${decisions} decision(s) would have been refused under ${file}.`);
  if (asked > 0) {
    console.log(
      `${asked} of ${decisions} decision(s) would have waited for the person's answer under ` +
        `${file} (its "ask").`,
    );
  }
  return 0;
}

/** `policy init [--template NAME]`: writes a commented starting file; never overwrites one. */
async function init(paths: InstancePaths, args: string[]): Promise<number> {
  const name = takeOption(args, "--template") ?? DEFAULT_TEMPLATE;
  noMore(args);
  const template = ownEntry(TEMPLATES, name);
  if (!template) {
    throw new UsageError(
      `there is no template ${JSON.stringify(name)}; the templates are: ${
        Object.entries(TEMPLATES).map(([key, t]) => `${key} (${t.about})`).join(", ")
      }`,
    );
  }
  await Deno.mkdir(paths.configDir, { recursive: true, mode: 0o700 });
  try {
    await Deno.writeTextFile(paths.policyFile, template.text, { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    console.error(
      `ghostlight: ${paths.policyFile} already exists; edit it, or move it away and run this again`,
    );
    return 1;
  }
  console.log(
    `Wrote ${paths.policyFile} (${name}: ${template.about}). A running service applies it ` +
      "within a second; 'ghostlight policy explain' says what it allows.",
  );
  return 0;
}
