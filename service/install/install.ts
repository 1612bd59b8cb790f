/**
 * `ghostlight install`: puts the executables and the extension under the instance's prefix, the
 * launchers on PATH, the native host with every Chromium-family browser, the MCP server with
 * every client, and the auto-start; records it all in the receipt. A second run changes no byte.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { VERSION } from "../../shared/version.ts";
import { type Executable, EXECUTABLES } from "../../shared/executables.ts";
import { type AtLogin, autostartPlan } from "./autostart.ts";
import {
  browserDataDir,
  BrowserId,
  BROWSERS,
  hostRegistration,
  nativeHostManifest,
  type RegistryValue,
} from "./browsers.ts";
import {
  addEntry,
  freeName,
  newConfigText,
  ourEntries,
  readClientConfig,
} from "./client_config.ts";
import { ClientId, CLIENTS, type ServerCommand } from "./clients.ts";
import { EXTENSION_FILES, readExtension } from "./extension.ts";
import { type Change, FileChanges, notEditable, readText, sha256 } from "./file_changes.ts";
import { homeOf, type Host, joinPath, parentOf } from "./host.ts";
import { launcherScript, serviceEntryScript } from "./launchers.ts";
import { installLayout, type Layout } from "./layout.ts";
import {
  COMPILED,
  compiledPath,
  installedConfig,
  modeOf,
  type Payload,
  sourceFiles,
} from "./payload.ts";
import { type ClientRecord, readReceipt, type Receipt, receiptText } from "./receipt.ts";

/** Sets and removes registry values: only on Windows, only where the process may run reg.exe. */
export interface RegistryWriter {
  set(value: RegistryValue): Promise<void>;
  remove(value: RegistryValue): Promise<void>;
}

/** Which instance, on which machine. */
export interface Site {
  host: Host;
  paths: InstancePaths;
}

/** What to install. */
export interface InstallOptions {
  /** Where the executables come from. */
  payload: Payload;
  dryRun: boolean;
  /** The clients to register with; null for every client found on this machine. */
  clients: ClientId[] | null;
  /** The browsers to register the native host with; null for every browser found. */
  browsers: BrowserId[] | null;
  autostart: boolean;
  /** How Windows registry values are written; absent where they cannot be. */
  registry?: RegistryWriter;
}

/** What happened to one client or browser. */
export interface Outcome {
  /** A client or browser id, or "autostart". */
  target: string;
  path: string;
  status: "added" | "present" | "refused" | "removed";
  detail: string;
}

/** What install did. */
export interface InstallReport {
  layout: Layout;
  mode: Payload["kind"];
  changes: Change[];
  outcomes: Outcome[];
  nextSteps: string[];
}

/**
 * The command `client`'s entry starts: the MCP connector's launcher, with the client's own
 * principal (decision 0255), which the policy's grants name.
 */
export function serverCommand(layout: Layout, client: ClientId): ServerCommand {
  return { command: layout.launchers["mcp-connector"], args: ["--principal", client] };
}

/** The entry an install from before principals wrote: the launcher alone (its connector is unnamed). */
export function unnamedServerCommand(layout: Layout): ServerCommand {
  return { command: layout.launchers["mcp-connector"], args: [] };
}

/** True when `path` is `dir` or inside it. */
function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}\\`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function unionBy<T>(first: T[], second: T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of [...first, ...second]) seen.set(key(item), item);
  return [...seen.values()];
}

/** One install run: the changes, what it wrote outside the prefix, and what it reports. */
class InstallRun {
  readonly fs: FileChanges;
  readonly outcomes: Outcome[] = [];
  readonly createdDirs: string[] = [];
  readonly files: Receipt["files"] = [];
  readonly backups: Receipt["backups"];

  constructor(
    readonly host: Host,
    readonly layout: Layout,
    readonly previous: Receipt | null,
    dryRun: boolean,
  ) {
    this.fs = new FileChanges({ dryRun });
    this.backups = [...(previous?.backups ?? [])];
  }

  /** Makes a folder, remembering those made outside the prefix for uninstall. */
  async ensureDir(path: string, mode?: number): Promise<void> {
    const made = await this.fs.ensureDir(path, mode);
    this.createdDirs.push(...made.filter((dir) => !inside(dir, this.layout.prefix)));
  }

  /** Writes a file outside the prefix and records its digest; a script `whole`. */
  async writeOwned(
    path: string,
    text: string,
    mode: number,
    options: { whole?: boolean } = {},
  ): Promise<boolean> {
    await this.backupOnce(path);
    const written = await this.fs.writeFile(path, text, mode, options);
    this.files.push({ path, sha256: await sha256(text) });
    return written;
  }

  /**
   * Copies a file that is not ours before its first change, under a name that never replaces an
   * earlier copy. A file install created itself needs none.
   */
  async backupOnce(path: string): Promise<void> {
    if (this.backups.some((entry) => entry.path === path)) return;
    const current = await readText(path);
    if (current === null) return;
    const digest = await sha256(current);
    const ours = [...(this.previous?.files ?? []), ...this.files];
    if (ours.some((file) => file.path === path && file.sha256 === digest)) return;
    let backup = `${path}.ghostlight-backup`;
    for (let n = 2; await exists(backup); n++) backup = `${path}.ghostlight-backup-${n}`;
    await this.fs.backup(path, backup);
    this.backups.push({ path, backup });
  }
}

async function installPayload(run: InstallRun, payload: Payload): Promise<void> {
  const { fs, host, layout } = run;
  if (payload.kind === "compiled") {
    await run.ensureDir(layout.libexecDir);
    for (const name of COMPILED) {
      const from = compiledPath(host, payload.binDir, name);
      await fs.linkOrCopy(from, compiledPath(host, layout.libexecDir, name), 0o755);
    }
    return;
  }
  await run.ensureDir(parentOf(layout.runtime));
  await fs.linkOrCopy(payload.deno, layout.runtime, 0o755);
  const app = layout.appDir;
  for (const file of await sourceFiles(payload.root)) {
    await run.ensureDir(parentOf(joinPath(host, app, file)));
    await fs.writeFile(
      joinPath(host, app, file),
      await Deno.readFile(`${payload.root}/${file}`),
      0o644,
    );
  }
  const config = await Deno.readTextFile(`${payload.root}/deno.json`);
  await fs.writeFile(joinPath(host, app, "deno.json"), installedConfig(config), 0o644);
  const lock = await readText(`${payload.root}/deno.lock`);
  if (lock !== null) await fs.writeFile(joinPath(host, app, "deno.lock"), lock, 0o644);
  // `browser launch` from the installed copy loads the extension from beside the sources.
  for (const file of EXTENSION_FILES) {
    const target = joinPath(host, app, "extension", file);
    await run.ensureDir(parentOf(target));
    await fs.writeFile(target, await Deno.readFile(`${payload.extensionDir}/${file}`), 0o644);
  }
}

async function installExtension(run: InstallRun, payload: Payload): Promise<void> {
  const { fs, host, layout } = run;
  for (const file of EXTENSION_FILES) {
    const target = joinPath(host, layout.extensionDir, file);
    await run.ensureDir(parentOf(target));
    await fs.writeFile(target, await Deno.readFile(`${payload.extensionDir}/${file}`), 0o644);
  }
  // The extension connects to the native host of this instance.
  await fs.writeFile(
    joinPath(host, layout.extensionDir, "config.json"),
    `${JSON.stringify({ host: layout.nativeHostName })}\n`,
    0o644,
  );
}

/**
 * The service entry in the prefix first (owner-only: the one program the MCP connector may run),
 * then the launchers on PATH, each written whole: a client or browser starting one meanwhile
 * runs the old or the new, never half.
 */
async function installLaunchers(run: InstallRun, payload: Payload): Promise<void> {
  const mode = modeOf(payload);
  await run.fs.writeFile(run.layout.serviceEntry, serviceEntryScript(run, mode), 0o700, {
    whole: true,
  });
  await run.ensureDir(run.layout.binDir);
  for (const executable of Object.keys(EXECUTABLES) as Executable[]) {
    const text = launcherScript(run, { mode, executable });
    await run.writeOwned(run.layout.launchers[executable], text, 0o755, { whole: true });
  }
}

async function registerBrowsers(
  run: InstallRun,
  options: InstallOptions,
  extensionId: string,
): Promise<{ browsers: Receipt["browsers"]; registry: RegistryValue[] }> {
  const { host, layout } = run;
  const found: BrowserId[] = [];
  for (const id of BrowserId.options) {
    if (await exists(browserDataDir(host, id))) found.push(id);
  }
  const chosen = options.browsers ?? found;
  const manifest = `${
    JSON.stringify(
      nativeHostManifest({
        name: layout.nativeHostName,
        path: layout.launchers["browser-connector"],
        extensionId,
      }),
      null,
      2,
    )
  }\n`;
  const browsers: Receipt["browsers"] = [];
  const registry: RegistryValue[] = [];
  for (const id of chosen) {
    const registration = hostRegistration(run, id);
    await run.ensureDir(parentOf(registration.manifestPath));
    const written = await run.writeOwned(registration.manifestPath, manifest, 0o644);
    browsers.push({ browser: id, manifest: registration.manifestPath });
    if (registration.kind === "registry") {
      if (!(await setRegistry(run, options, registration.value, id))) continue;
      registry.push(registration.value);
    }
    run.outcomes.push({
      target: id,
      path: registration.manifestPath,
      status: written || registration.kind === "registry" ? "added" : "present",
      detail: `${BROWSERS[id].name} can start the browser connector (${layout.nativeHostName})`,
    });
  }
  return { browsers, registry };
}

async function setRegistry(
  run: InstallRun,
  options: InstallOptions,
  value: RegistryValue,
  target: string,
): Promise<boolean> {
  const description = `HKCU\\${value.key}${value.name ? ` ${value.name}` : ""}`;
  if (options.dryRun) {
    run.fs.registry(description);
    return true;
  }
  if (!options.registry) {
    run.outcomes.push({
      target,
      path: description,
      status: "refused",
      detail: "the registry is written by the installer (install.ts), which may run reg.exe",
    });
    return false;
  }
  await options.registry.set(value);
  run.fs.registry(description);
  return true;
}

async function registerClient(
  run: InstallRun,
  client: ClientId,
  server: ServerCommand,
): Promise<ClientRecord | null> {
  const { fs, host, layout } = run;
  const row = CLIENTS[client];
  const path = row.configPath(host);
  const report = (status: Outcome["status"], detail: string) =>
    run.outcomes.push({ target: client, path, status, detail });
  const unsafe = await notEditable(path, homeOf(host));
  if (unsafe !== null) {
    report("refused", `${row.name}: left untouched, ${unsafe}; fix it and install again`);
    return null;
  }
  const text = await readText(path);
  if (text === null) {
    const content = newConfigText(client, { name: layout.serverName, server });
    await run.ensureDir(parentOf(path));
    await fs.writeFile(path, content, 0o600);
    report("added", `${row.name}: created with the server "${layout.serverName}"`);
    return {
      client,
      path,
      name: layout.serverName,
      created: true,
      inverse: { find: content, replace: "" },
    };
  }
  const read = readClientConfig(client, text);
  if (!read.ok) {
    report("refused", `${row.name}: left untouched, ${read.reason}; fix it and install again`);
    return null;
  }
  const unnamed = ourEntries(read.config, unnamedServerCommand(layout));
  const foreign = layout.serverName in read.config.servers &&
      ![...ourEntries(read.config, server), ...unnamed].includes(layout.serverName)
    ? ` (the entry "${layout.serverName}" there runs something else and was left alone)`
    : "";
  const ours = ourEntries(read.config, server);
  if (ours.length > 0) {
    report("present", `${row.name}: already has the server "${ours[0]}"${foreign}`);
    return run.previous?.clients.find((record) =>
      record.client === client && record.path === path && record.name === ours[0]
    ) ?? null;
  }
  if (unnamed.length > 0) {
    // An entry from before principals: left as it is, its connector unnamed; uninstall removes it.
    report(
      "present",
      `${row.name}: already has the server "${unnamed[0]}", started without a principal ` +
        `(your policy's grants see it as unnamed); '${cliName(layout)} uninstall' then ` +
        `'${cliName(layout)} install' gives it ${client}`,
    );
    return run.previous?.clients.find((record) =>
      record.client === client && record.path === path && record.name === unnamed[0]
    ) ?? null;
  }
  const name = freeName(read.config, layout.serverName);
  const edit = addEntry(read.config, { text, name, server });
  if (!edit.ok) {
    report("refused", `${row.name}: left untouched, ${edit.reason}`);
    return null;
  }
  await run.backupOnce(path);
  const mode = (await Deno.stat(path)).mode;
  await fs.writeFile(path, edit.text, mode === null ? 0o600 : mode & 0o777);
  report("added", `${row.name}: added the server "${name}"${foreign}`);
  return { client, path, name, created: false, inverse: edit.inverse };
}

async function registerClients(
  run: InstallRun,
  options: InstallOptions,
): Promise<ClientRecord[]> {
  const found: ClientId[] = [];
  for (const id of ClientId.options) {
    for (const marker of CLIENTS[id].markers(run.host)) {
      if (await exists(marker)) {
        found.push(id);
        break;
      }
    }
  }
  const records: ClientRecord[] = [];
  for (const client of options.clients ?? found) {
    const record = await registerClient(run, client, serverCommand(run.layout, client));
    if (record) records.push(record);
  }
  return records;
}

/** Removes the enablement link an earlier install made, when it is there and ours. */
export async function removeLegacyLink(
  fs: FileChanges,
  link: { path: string; target: string } | null,
): Promise<void> {
  if (link === null) return;
  const info = await Deno.lstat(link.path).catch(() => null);
  if (info?.isSymlink && (await Deno.readLink(link.path)) === link.target) {
    await fs.remove(link.path);
  }
}

async function installAutostart(run: InstallRun, options: InstallOptions): Promise<{
  registry: RegistryValue[];
  startNow: string | null;
}> {
  const service = await installAtLogin(run, options, "service", options.autostart);
  // The remote shores' entry (decision 0532): a compiled install cannot start a shore yet.
  const wanted = options.autostart && options.payload.kind === "sources";
  const remotes = await installAtLogin(run, options, "remotes", wanted);
  return { registry: [...service.registry, ...remotes.registry], startNow: service.startNow };
}

/** Writes (or, not wanted, takes back) one login entry: the service's or the shores'. */
async function installAtLogin(
  run: InstallRun,
  options: InstallOptions,
  which: AtLogin,
  wanted: boolean,
): Promise<{ registry: RegistryValue[]; startNow: string | null }> {
  const plan = autostartPlan(run, which);
  if (plan.kind === "files") await removeLegacyLink(run.fs, plan.legacyLink);
  if (!wanted) {
    if (plan.kind === "files") {
      for (const file of [plan.file, plan.enable]) {
        if (file !== null && (await readText(file.path)) === file.text) {
          await run.fs.remove(file.path);
        }
      }
    }
    return { registry: [], startNow: null };
  }
  if (plan.kind === "registry") {
    const set = await setRegistry(run, options, plan.value, "autostart");
    return { registry: set ? [plan.value] : [], startNow: plan.startNow };
  }
  let written = false;
  for (const file of [plan.file, plan.enable]) {
    if (file === null) continue;
    await run.ensureDir(parentOf(file.path));
    if (await run.writeOwned(file.path, file.text, 0o644)) written = true;
  }
  run.outcomes.push({
    target: "autostart",
    path: plan.file.path,
    status: written ? "added" : "present",
    detail: which === "service"
      ? "the service starts at login"
      : "the shores of remotes marked 'remote at-login NAME on' start at login",
  });
  return { registry: [], startNow: plan.startNow };
}

function browserStep(layout: Layout, browsers: BrowserId[]): string {
  const schemes: Record<BrowserId, string> = {
    chromium: "chrome://extensions",
    chrome: "chrome://extensions",
    edge: "edge://extensions",
    brave: "brave://extensions",
  };
  const pages = [...new Set(browsers.map((id) => schemes[id]))];
  return `In your browser open ${pages.join(" or ") || "chrome://extensions"}, switch on ` +
    `Developer mode, click "Load unpacked" and choose ${layout.extensionDir} ` +
    "(the one step install cannot do for you).";
}

function nextSteps(
  host: Host,
  layout: Layout,
  outcomes: Outcome[],
  browsers: BrowserId[],
  startNow: string | null,
): string[] {
  const steps: string[] = [];
  if (browsers.length === 0) {
    const cli = cliName(layout);
    steps.push(
      "No Chromium-family browser's profile folder was found (a browser makes one the first " +
        `time it runs, e.g. ${browserDataDir(host, "chromium")}); start yours once and install ` +
        `again, or name it: ${cli} install --browser chromium (or chrome, edge, brave).`,
    );
  }
  steps.push(browserStep(layout, browsers));
  const clients = outcomes.filter((o) => o.status === "added" && o.target in CLIENTS)
    .map((o) => CLIENTS[o.target as ClientId].name);
  if (clients.length > 0) steps.push(`Restart ${clients.join(", ")} to load the new server.`);
  if (!outcomes.some((o) => o.target in CLIENTS)) {
    steps.push(
      "No MCP client was found to register with; give yours the local server command " +
        `${layout.launchers["mcp-connector"]} with the arguments --principal NAME (the name ` +
        `your policy's grants give it), or name one: ${cliName(layout)} ` +
        `install --client ID (${ClientId.options.join(", ")}).`,
    );
  }
  if (startNow) steps.push(`The service starts at your next login; to start it now: ${startNow}`);
  const path = (host.env("PATH") ?? "").split(host.platform === "windows" ? ";" : ":");
  if (!path.includes(layout.binDir)) {
    steps.push(`Add ${layout.binDir} to your PATH to run ${cliName(layout)} by name.`);
  }
  steps.push(`Then check every hop: ${cliName(layout)} doctor`);
  return steps;
}

/** The launcher's name: what the person types (it pins the instance). */
function cliName(layout: Layout): string {
  return layout.launchers.service.replace(/^.*[\\/]/, "").replace(/\.cmd$/, "");
}

/** Installs the site's instance from `options.payload`. */
export async function install(
  { host, paths }: Site,
  options: InstallOptions,
): Promise<InstallReport> {
  const { payload } = options;
  const layout = installLayout(host, paths);
  const found = await readReceipt(layout.receipt);
  const previous = typeof found === "string" ? null : found;
  const run = new InstallRun(host, layout, previous, options.dryRun);
  if (typeof found === "string") {
    run.outcomes.push({
      target: "receipt",
      path: layout.receipt,
      status: "refused",
      detail: `${found}; writing a new one`,
    });
  }
  const extension = await readExtension(payload.extensionDir);

  await run.ensureDir(layout.prefix, 0o700);
  await installPayload(run, payload);
  await installExtension(run, payload);
  await installLaunchers(run, payload);
  const { browsers, registry } = await registerBrowsers(run, options, extension.id);
  const clients = await registerClients(run, options);
  const autostart = await installAutostart(run, options);

  const receipt: Receipt = {
    receipt: 1,
    version: VERSION,
    instance: layout.instance,
    mode: payload.kind,
    extension: { ...extension, dir: layout.extensionDir },
    files: unionBy(previous?.files ?? [], run.files, (file) => file.path),
    // Only earlier installs made links (systemd's enablement), and this run removed them.
    links: [],
    dirs: [...new Set([...(previous?.dirs ?? []), ...run.createdDirs])],
    clients: unionBy(
      previous?.clients ?? [],
      clients,
      (record) => `${record.path}\n${record.name}`,
    ),
    browsers: unionBy(previous?.browsers ?? [], browsers, (entry) => entry.manifest),
    registry: unionBy(
      previous?.registry ?? [],
      [...registry, ...autostart.registry],
      (value) => `${value.key}\n${value.name}`,
    ),
    autostart: options.autostart,
    backups: run.backups,
  };
  await run.fs.writeFile(layout.receipt, receiptText(receipt), 0o600);
  return {
    layout,
    mode: payload.kind,
    changes: run.fs.changes,
    outcomes: run.outcomes,
    nextSteps: nextSteps(
      host,
      layout,
      run.outcomes,
      browsers.map((entry) => entry.browser),
      autostart.startNow,
    ),
  };
}
