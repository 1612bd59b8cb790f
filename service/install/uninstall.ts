/**
 * `ghostlight uninstall`: removes exactly what install added. Entries are recognised by their
 * shape (a server entry that starts this instance's connector launcher, a host manifest that
 * names this instance's host and launcher, a launcher or unit carrying install's mark); the
 * receipt's inverses give each edited file back its original bytes. A user's own entry under
 * our name stays, and so do the backups.
 *
 * @module
 */

import { type Executable, EXECUTABLES } from "../../shared/executables.ts";
import { autostartPlan } from "./autostart.ts";
import { BrowserId, hostRegistration, NativeHostManifest } from "./browsers.ts";
import { ourEntries, readClientConfig, removeEntry } from "./client_config.ts";
import { ClientId, CLIENTS } from "./clients.ts";
import { type Change, FileChanges, notEditable, readText, sha256 } from "./file_changes.ts";
import { homeOf, type Host, parentOf } from "./host.ts";
import {
  type InstallOptions,
  type Outcome,
  removeLegacyLink,
  serverCommand,
  type Site,
  unnamedServerCommand,
} from "./install.ts";
import { applyInverse } from "./jsonc_edit.ts";
import { LAUNCHER_MARK } from "./launchers.ts";
import { installLayout, type Layout } from "./layout.ts";
import { readReceipt, type Receipt } from "./receipt.ts";

/** What uninstall did. */
export interface UninstallReport {
  layout: Layout;
  changes: Change[];
  outcomes: Outcome[];
}

async function removeClientEntries(
  fs: FileChanges,
  host: Host,
  layout: Layout,
  receipt: Receipt | null,
  client: ClientId,
): Promise<Outcome[]> {
  const path = CLIENTS[client].configPath(host);
  const outcome = (status: Outcome["status"], detail: string): Outcome => ({
    target: client,
    path,
    status,
    detail: `${CLIENTS[client].name}: ${detail}`,
  });
  const unsafe = await notEditable(path, homeOf(host));
  if (unsafe !== null) {
    const ours = receipt?.clients.some((record) => record.path === path);
    return ours ? [outcome("refused", `left untouched, ${unsafe}`)] : [];
  }
  const original = await readText(path);
  if (original === null) return [];
  const read = readClientConfig(client, original);
  if (!read.ok) {
    const ours = receipt?.clients.some((record) => record.path === path);
    return ours ? [outcome("refused", `left untouched, ${read.reason}`)] : [];
  }
  let text = original;
  let created = false;
  const outcomes: Outcome[] = [];
  // This client's entry, and one an install from before principals wrote.
  const names = [
    ...ourEntries(read.config, serverCommand(layout, client)),
    ...ourEntries(read.config, unnamedServerCommand(layout)),
  ];
  for (const name of names) {
    const record = receipt?.clients.find((entry) =>
      entry.client === client && entry.path === path && entry.name === name
    );
    const exact = record ? applyInverse(text, record.inverse) : null;
    if (exact !== null) {
      text = exact;
      created ||= record!.created;
      outcomes.push(outcome("removed", `removed the server "${name}"`));
      continue;
    }
    const current = readClientConfig(client, text);
    const removed = current.ok ? removeEntry(current.config, { text, name }) : null;
    if (removed === null) {
      outcomes.push(outcome("refused", `the server "${name}" could not be removed; remove it`));
      continue;
    }
    text = removed;
    outcomes.push(
      outcome("removed", `removed the server "${name}" (the file changed since install)`),
    );
  }
  if (text === original) return outcomes;
  if (created && text === "") await fs.remove(path);
  else await fs.writeFile(path, text, ((await Deno.stat(path)).mode ?? 0o600) & 0o777);
  return outcomes;
}

async function removeHostManifests(
  fs: FileChanges,
  host: Host,
  layout: Layout,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const browser of BrowserId.options) {
    const { manifestPath } = hostRegistration({ host, layout }, browser);
    const text = await readText(manifestPath);
    if (text === null) continue;
    let manifest;
    try {
      manifest = NativeHostManifest.safeParse(JSON.parse(text));
    } catch {
      continue;
    }
    if (
      manifest.success && manifest.data.name === layout.nativeHostName &&
      manifest.data.path === layout.launchers["browser-connector"]
    ) {
      if (await fs.remove(manifestPath)) {
        outcomes.push({
          target: browser,
          path: manifestPath,
          status: "removed",
          detail: "removed the native host manifest",
        });
      }
    }
  }
  return outcomes;
}

/** True when `path` holds a file install wrote: the receipt's digest, or install's mark. */
async function isOurs(path: string, receipt: Receipt | null): Promise<boolean> {
  const text = await readText(path);
  if (text === null) return false;
  const digest = await sha256(text);
  return receipt?.files.some((file) => file.path === path && file.sha256 === digest) ||
    text.includes(LAUNCHER_MARK);
}

async function removeAutostart(
  fs: FileChanges,
  host: Host,
  layout: Layout,
  receipt: Receipt | null,
): Promise<void> {
  for (const which of ["service", "remotes"] as const) {
    const plan = autostartPlan({ host, layout }, which);
    if (plan.kind === "registry") continue;
    await removeLegacyLink(fs, plan.legacyLink);
    for (const file of [plan.file, plan.enable]) {
      if (file !== null && (await isOurs(file.path, receipt))) await fs.remove(file.path);
    }
  }
}

/** Uninstalls the site's instance. */
export async function uninstall(
  { host, paths }: Site,
  options: Pick<InstallOptions, "dryRun" | "registry">,
): Promise<UninstallReport> {
  const layout = installLayout(host, paths);
  const fs = new FileChanges({ dryRun: options.dryRun });
  const found = await readReceipt(layout.receipt);
  const receipt = typeof found === "string" ? null : found;
  const outcomes: Outcome[] = [];

  for (const client of ClientId.options) {
    outcomes.push(...await removeClientEntries(fs, host, layout, receipt, client));
  }
  outcomes.push(...await removeHostManifests(fs, host, layout));
  for (const value of receipt?.registry ?? []) {
    const description = `HKCU\\${value.key}${value.name ? ` ${value.name}` : ""}`;
    if (options.dryRun) fs.registry(description);
    else if (options.registry) {
      await options.registry.remove(value);
      fs.registry(description);
    } else {
      outcomes.push({
        target: "registry",
        path: description,
        status: "refused",
        detail: "the registry is cleaned by the installer (install.ts), which may run reg.exe",
      });
    }
  }
  await removeAutostart(fs, host, layout, receipt);
  for (const executable of Object.keys(EXECUTABLES) as Executable[]) {
    const launcher = layout.launchers[executable];
    if (await isOurs(launcher, receipt)) await fs.remove(launcher);
  }
  await fs.remove(layout.serviceEntry);
  for (const part of [layout.appDir, parentOf(layout.runtime), layout.libexecDir]) {
    await fs.removeTree(part);
  }
  for (const part of [layout.extensionDir, layout.nativeHostDir]) await fs.removeTree(part);
  await fs.remove(layout.receipt);
  await fs.removeEmptyDir(layout.prefix);
  for (const dir of [...(receipt?.dirs ?? [])].reverse()) await fs.removeEmptyDir(dir);
  return { layout, changes: fs.changes, outcomes };
}
