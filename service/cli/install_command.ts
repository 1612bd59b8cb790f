/**
 * `ghostlight install` and `ghostlight uninstall`: read the options, run the install module,
 * print what changed and what is left for the person to do.
 *
 * @module
 */

import { runningFromSource, SOURCE_ROOT } from "../../shared/executables.ts";
import type { InstancePaths } from "../../shared/instance.ts";
import { FIRST_LAUNCH_MAX_ITEMS, writeFirstLaunch } from "../../shared/first_launch.ts";
import {
  BrowserId,
  type Change,
  ClientId,
  currentHost,
  currentPayload,
  install,
  type Outcome,
  type Payload,
  type RegistryWriter,
  uninstall,
} from "../install/mod.ts";
import { noMore, takeFlag, takeOption, UsageError } from "./args.ts";

function takeAll(args: string[], name: string): string[] {
  const values: string[] = [];
  for (let value = takeOption(args, name); value !== undefined; value = takeOption(args, name)) {
    values.push(value);
  }
  return values;
}

function ids<T extends string>(values: string[], known: readonly T[], option: string): T[] | null {
  if (values.length === 0) return null;
  // `--client none`: register with no client (the Claude Desktop bundle's first launch).
  if (values.length === 1 && values[0] === "none") return [];
  for (const value of values) {
    if (!known.includes(value as T)) {
      throw new UsageError(`${option} takes one of ${known.join(", ")}; not ${value}`);
    }
  }
  return values as T[];
}

const SIGNS: Record<Change["action"], string> = {
  create: "+",
  update: "~",
  remove: "-",
  mkdir: "+",
  rmdir: "-",
  link: "+",
  backup: "=",
  registry: "~",
};

/** Lists the changes; those inside `quiet` (the copied sources) as one line. */
function printChanges(changes: Change[], dryRun: boolean, quiet: string): void {
  if (changes.length === 0) {
    console.log("Nothing to change: everything is already in place.");
    return;
  }
  console.log(dryRun ? "Would change:" : "Changed:");
  const hidden = changes.filter((change) => change.path.startsWith(`${quiet}/`));
  for (const change of changes) {
    if (hidden.includes(change)) continue;
    console.log(`  ${SIGNS[change.action]} ${change.action.padEnd(8)} ${change.path}`);
  }
  if (hidden.length > 0) console.log(`  ~ ${hidden.length} files and folders in ${quiet}`);
}

function printOutcomes(outcomes: Outcome[]): void {
  for (const outcome of outcomes) {
    console.log(`  ${outcome.status.padEnd(8)} ${outcome.detail}  [${outcome.path}]`);
  }
}

/**
 * What the installer body (`install.ts`) supplies: the compiled executables it just built, and
 * the Windows registry writer (it may run reg.exe; the service may not).
 */
export interface InstallerSupplies {
  payload?: Payload;
  registry?: RegistryWriter;
}

/**
 * `ghostlight install [--dry-run] [--client ID|none]... [--browser ID]... [--no-autostart] [--json]
 * [--first-launch]`. `--first-launch` (the Claude Desktop bundle's) also records what was set up
 * where `ghostlight status` reads it. Exit code 0, or 1 when a client or browser could not be
 * registered.
 */
export async function runInstall(
  paths: InstancePaths,
  args: string[],
  supplies: InstallerSupplies = {},
): Promise<number> {
  const dryRun = takeFlag(args, "--dry-run");
  const json = takeFlag(args, "--json");
  const autostart = !takeFlag(args, "--no-autostart");
  const firstLaunch = takeFlag(args, "--first-launch");
  const clients = ids(takeAll(args, "--client"), ClientId.options, "--client");
  const browsers = ids(takeAll(args, "--browser"), BrowserId.options, "--browser");
  noMore(args);
  const host = currentHost();
  const payload = supplies.payload ?? currentPayload(host, {
    fromSource: runningFromSource(),
    root: SOURCE_ROOT,
    execPath: Deno.execPath(),
  });
  const report = await install({ host, paths }, {
    payload,
    dryRun,
    clients,
    browsers,
    autostart,
    registry: supplies.registry,
  });
  const refused = report.outcomes.some((outcome) => outcome.status === "refused");
  if (firstLaunch && !dryRun) {
    writeFirstLaunch(paths, {
      at: new Date().toISOString(),
      prefix: report.layout.prefix,
      extension: report.layout.extensionDir,
      setUp: report.outcomes.slice(0, FIRST_LAUNCH_MAX_ITEMS).map(({ target, status, detail }) => ({
        target,
        status,
        detail,
      })),
    });
  }
  if (json) {
    console.log(JSON.stringify(report));
    return refused ? 1 : 0;
  }
  const how = report.mode === "compiled"
    ? "compiled executables"
    : "launchers that run the installed sources with Deno";
  console.log(
    `${dryRun ? "Would install" : "Installed"} Ghostlight into ${report.layout.prefix} (${how}); ` +
      `launchers in ${report.layout.binDir}.`,
  );
  printChanges(report.changes, dryRun, report.layout.appDir);
  if (report.outcomes.length > 0) console.log("Registrations:");
  printOutcomes(report.outcomes);
  console.log("Next:");
  report.nextSteps.forEach((step, index) => console.log(`  ${index + 1}. ${step}`));
  return refused ? 1 : 0;
}

/** `ghostlight uninstall [--dry-run] [--json]`: exit code 0, or 1 when something had to stay. */
export async function runUninstall(
  paths: InstancePaths,
  args: string[],
  supplies: InstallerSupplies = {},
): Promise<number> {
  const dryRun = takeFlag(args, "--dry-run");
  const json = takeFlag(args, "--json");
  noMore(args);
  const report = await uninstall({ host: currentHost(), paths }, {
    dryRun,
    registry: supplies.registry,
  });
  const refused = report.outcomes.some((outcome) => outcome.status === "refused");
  if (json) {
    console.log(JSON.stringify(report));
    return refused ? 1 : 0;
  }
  if (report.changes.length === 0 && report.outcomes.length === 0) {
    console.log(`Nothing to remove: Ghostlight is not installed in ${report.layout.prefix}.`);
    return 0;
  }
  console.log(
    `${dryRun ? "Would uninstall" : "Uninstalled"} Ghostlight from ${report.layout.prefix}.`,
  );
  printChanges(report.changes, dryRun, report.layout.appDir);
  printOutcomes(report.outcomes);
  if (!dryRun) console.log("Backups made by install (*.ghostlight-backup*) were kept.");
  return refused ? 1 : 0;
}
