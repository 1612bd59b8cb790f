/**
 * `ghostlight doctor`: checks every hop of an installed instance, from the files install wrote
 * to a live round trip through the service, the browser connector and the extension, and names
 * the next action for each problem. Every check is a small function returning findings; the
 * verdict is computed from them.
 *
 * @module
 */

import { z } from "zod";
import { BRIDGE_MAX_FRAME, ServiceMessage } from "../../shared/bridge.ts";
import { type Executable, EXECUTABLES } from "../../shared/executables.ts";
import { encodeFrame } from "../../shared/framing.ts";
import { connectAndVerify } from "../../shared/handshake.ts";
import type { InstancePaths, KeyFiles } from "../../shared/instance.ts";
import { VERSION } from "../../shared/version.ts";
import { fetchProbe, fetchStatus, type Status } from "../control/mod.ts";
import { controlKey } from "../endpoint/mod.ts";
import { loggedEvents } from "../log/mod.ts";
import { type AtLogin, autostartPlan } from "./autostart.ts";
import { BROWSERS, NativeHostManifest } from "./browsers.ts";
import { readClientConfig } from "./client_config.ts";
import { ClientId, CLIENTS } from "./clients.ts";
import { EXTENSION_FILES } from "./extension.ts";
import { readText, sha256 } from "./file_changes.ts";
import type { Host } from "./host.ts";
import { parseJsonc } from "./jsonc_edit.ts";
import {
  type InstallMode,
  LAUNCHER_MARK,
  launcherNeeds,
  launcherScript,
  serviceEntryScript,
} from "./launchers.ts";
import { denoDirOf } from "./payload.ts";
import type { Site } from "./install.ts";
import { installLayout, type Layout } from "./layout.ts";
import { readReceipt, type Receipt } from "./receipt.ts";

/** One thing doctor checked. */
export const Finding = z.object({
  /** The hop: "install", "executables", "instance", "client", "native host", ... */
  hop: z.string(),
  /** ok: it works; problem: it does not, and `fix` says what to do; note: worth knowing. */
  status: z.enum(["ok", "problem", "note"]),
  message: z.string(),
  fix: z.string().optional(),
});
export type Finding = z.infer<typeof Finding>;

/** What `ghostlight doctor --json` prints. */
export const DoctorReport = z.object({
  instance: z.string().nullable(),
  version: z.string(),
  healthy: z.boolean(),
  verdict: z.string(),
  findings: z.array(Finding),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

/** How long doctor waits for a browser to attach to a service it started itself. */
const ATTACH_WAIT_MS = 10_000;

/** How long doctor waits for a service it started to answer on its control socket. */
const START_WAIT_MS = 15_000;

interface Context {
  host: Host;
  paths: InstancePaths;
  layout: Layout;
  receipt: Receipt;
  /** What the person types to run this instance's CLI. */
  cli: string;
}

const ok = (hop: string, message: string): Finding => ({ hop, status: "ok", message });
const note = (hop: string, message: string): Finding => ({ hop, status: "note", message });
const problem = (hop: string, message: string, fix: string): Finding => ({
  hop,
  status: "problem",
  message,
  fix,
});

async function present(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null)) !== null;
}

async function executable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

function reinstall(context: Pick<Context, "cli">): string {
  return `run '${context.cli} install' to write it again`;
}

function modeOf(context: Context): InstallMode {
  return context.receipt.mode === "compiled"
    ? { kind: "compiled" }
    : { kind: "sources", denoDir: denoDirOf(context.host) };
}

/**
 * The service entry: there, the script this install writes (so it starts nothing but the
 * service), and writable by its owner only, since the MCP connector may run it.
 */
async function checkServiceEntry(context: Context): Promise<Finding> {
  const entry = context.layout.serviceEntry;
  const text = await readText(entry);
  if (text === null || !(await executable(entry))) {
    return problem("executables", `the service entry ${entry} is missing`, reinstall(context));
  }
  if (text !== serviceEntryScript(context, modeOf(context))) {
    return problem(
      "executables",
      `the service entry ${entry} is not the one this install writes`,
      reinstall(context),
    );
  }
  const mode = ((await Deno.stat(entry)).mode ?? 0o700) & 0o777;
  if ((mode & 0o022) !== 0) {
    return problem(
      "executables",
      `the service entry ${entry} has mode ${mode.toString(8)}: others may rewrite it`,
      `chmod 700 ${entry}`,
    );
  }
  return ok("executables", `service entry ${entry} (the one program connectors may start)`);
}

async function checkExecutables(context: Context): Promise<Finding[]> {
  const { layout, receipt } = context;
  const findings: Finding[] = [];
  for (const name of Object.keys(EXECUTABLES) as Executable[]) {
    const launcher = layout.launchers[name];
    const text = await readText(launcher);
    if (text === null || !(await executable(launcher))) {
      findings.push(
        problem("executables", `${launcher} is missing or not executable`, reinstall(context)),
      );
      continue;
    }
    const digest = await sha256(text);
    if (
      !text.includes(LAUNCHER_MARK) ||
      !receipt.files.some((file) => file.path === launcher && file.sha256 === digest)
    ) {
      findings.push(
        problem("executables", `${launcher} changed since install`, reinstall(context)),
      );
      continue;
    }
    const which = { mode: modeOf(context), executable: name };
    if (text !== launcherScript(context, which)) {
      findings.push(
        problem(
          "executables",
          `${launcher} is not the launcher this install writes (an older one?)`,
          reinstall(context),
        ),
      );
      continue;
    }
    const needs = launcherNeeds(context, which);
    const missing: string[] = [];
    for (const file of needs) if (!(await present(file))) missing.push(file);
    if (missing.length > 0) {
      findings.push(
        problem(
          "executables",
          `${launcher} runs ${missing.join(" and ")}, which is missing`,
          reinstall(context),
        ),
      );
      continue;
    }
    const runs = needs.find((file) => file.endsWith(".ts")) ?? needs[0];
    findings.push(ok("executables", `${launcher} → ${runs}`));
  }
  findings.push(await checkServiceEntry(context));
  const installed = receipt.mode === "sources"
    ? /VERSION = "([^"]+)"/.exec(
      (await readText(`${layout.appDir}/shared/version.ts`)) ?? "",
    )?.[1] ?? "unknown"
    : receipt.version;
  findings.push(
    installed === VERSION
      ? ok("executables", `version ${installed}, the same as this ghostlight`)
      : problem(
        "executables",
        `the installed executables are version ${installed}, this ghostlight is ${VERSION}`,
        `run '${context.cli} install' from the version you mean to use`,
      ),
  );
  return findings;
}

async function checkInstanceDirs(context: Context): Promise<Finding[]> {
  const { paths } = context;
  const findings: Finding[] = [];
  for (const [what, dir] of [["runtime", paths.runtimeDir], ["state", paths.stateDir]]) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(dir);
    } catch {
      findings.push(note("instance", `the ${what} folder ${dir} appears at the service's start`));
      continue;
    }
    const mode = (info.mode ?? 0o700) & 0o777;
    if (info.uid !== null && info.uid !== Deno.uid()) {
      findings.push(
        problem(
          "instance",
          `${dir} belongs to another user`,
          `remove ${dir} (the service makes it again)`,
        ),
      );
    } else if (mode !== 0o700) {
      findings.push(
        problem("instance", `${dir} has mode ${mode.toString(8)}, not 700`, `chmod 700 ${dir}`),
      );
    } else findings.push(ok("instance", `${what} folder ${dir} (700, yours)`));
  }
  for (const [role, file] of Object.entries(paths.keys) as [keyof KeyFiles, string][]) {
    try {
      const mode = ((await Deno.stat(file)).mode ?? 0o600) & 0o777;
      findings.push(
        mode === 0o600 ? ok("instance", `${KEY_NAMES[role]} ${file} (600)`) : problem(
          "instance",
          `${file} has mode ${mode.toString(8)}, not 600`,
          `chmod 600 ${file}`,
        ),
      );
    } catch {
      // Made at the service's first start, like the state folder: said, so a new instance's
      // list is not silently short of its keys.
      findings.push(
        note(
          "instance",
          `${KEY_NAMES[role]} is not made yet: the service makes it at its first start`,
        ),
      );
    }
  }
  return findings;
}

/** Each key file as a person reads its line: whose it is and what it is for. */
const KEY_NAMES: Record<keyof KeyFiles, string> = {
  service: "the service's own key (its signature, the control proof, the audit's chain)",
  servicePublic: "the service's public key (connectors check its signature with it)",
  mcp: "the MCP connectors' key",
  browser: "the browser connector's key",
};

/** A client entry that runs our launcher: with its principal, or unnamed (before principals). */
function principalFinding(
  context: Context,
  record: Context["receipt"]["clients"][number],
  args: string[],
): Finding {
  const name = CLIENTS[record.client].name;
  const at = args.indexOf("--principal");
  if (at === -1) {
    return note(
      "client",
      `${name}: "${record.name}" starts its connector without a principal, so your policy's ` +
        `grants see it as unnamed; '${context.cli} uninstall' then '${context.cli} install' ` +
        `gives it ${record.client}`,
    );
  }
  return ok(
    "client",
    `${name}: "${record.name}" in ${record.path} → ${
      context.layout.launchers["mcp-connector"]
    }, as ${args[at + 1]}`,
  );
}

async function checkClients(context: Context): Promise<Finding[]> {
  const { host, layout, receipt } = context;
  const findings: Finding[] = [];
  const launcher = layout.launchers["mcp-connector"];
  for (const record of receipt.clients) {
    const name = CLIENTS[record.client].name;
    const text = await readText(record.path);
    if (text === null) {
      findings.push(
        problem("client", `${name}: ${record.path} is gone`, reinstall(context)),
      );
      continue;
    }
    const read = readClientConfig(record.client, text);
    if (!read.ok) {
      findings.push(
        problem(
          "client",
          `${name}: ${record.path} does not parse (${read.reason})`,
          `fix the file (install's copy is beside it, *.ghostlight-backup), then '${context.cli} install'`,
        ),
      );
      continue;
    }
    const entry = CLIENTS[record.client].readEntry(read.config.servers[record.name]);
    if (entry === null) {
      findings.push(
        problem(
          "client",
          `${name}: the server "${record.name}" is no longer in ${record.path}`,
          reinstall(context),
        ),
      );
      continue;
    }
    if (!(await executable(entry.command))) {
      findings.push(
        problem(
          "client",
          `${name}: the server "${record.name}" runs ${entry.command}, which does not exist or ` +
            "is not executable",
          entry.command === launcher
            ? reinstall(context)
            : `point it at ${launcher}, or run '${context.cli} install'`,
        ),
      );
      continue;
    }
    if (entry.command !== launcher) {
      findings.push(
        problem(
          "client",
          `${name}: the server "${record.name}" runs ${entry.command}, not ${launcher}`,
          `point it at ${launcher}, or remove it and run '${context.cli} install'`,
        ),
      );
      continue;
    }
    findings.push(principalFinding(context, record, entry.args));
  }
  const registered = new Set(receipt.clients.map((record) => record.client));
  for (const client of ClientId.options) {
    if (registered.has(client)) continue;
    for (const marker of CLIENTS[client].markers(host)) {
      if ((await Deno.lstat(marker).catch(() => null)) === null) continue;
      findings.push(
        note(
          "client",
          `${CLIENTS[client].name} is on this machine without Ghostlight; to add it: ` +
            `${context.cli} install --client ${client}`,
        ),
      );
      break;
    }
  }
  if (findings.length === 0) {
    findings.push(
      note(
        "client",
        `no MCP client has Ghostlight; give yours the local server command ${launcher} ` +
          "--principal NAME (the name your policy's grants give it), " +
          `or name one: ${context.cli} install --client ID (${ClientId.options.join(", ")})`,
      ),
    );
  }
  return findings;
}

async function checkNativeHosts(context: Context): Promise<Finding[]> {
  const { layout, receipt } = context;
  const findings: Finding[] = [];
  const origin = `chrome-extension://${receipt.extension.id}/`;
  const launcher = layout.launchers["browser-connector"];
  if (receipt.browsers.length === 0) {
    findings.push(
      problem(
        "native host",
        "no browser has the native host registered",
        `run '${context.cli} install --browser chromium' (or chrome, edge, brave)`,
      ),
    );
  }
  for (const { browser, manifest } of receipt.browsers) {
    const name = BROWSERS[browser].name;
    const text = await readText(manifest);
    if (text === null) {
      findings.push(
        problem(
          "native host",
          `${name} cannot start the browser connector: ${manifest} is missing`,
          reinstall(context),
        ),
      );
      continue;
    }
    let parsed;
    try {
      parsed = NativeHostManifest.safeParse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      findings.push(
        problem("native host", `${name}: ${manifest} is not a host manifest`, reinstall(context)),
      );
      continue;
    }
    const found = parsed.data;
    const wrong = found.name !== layout.nativeHostName
      ? `names ${found.name}, not ${layout.nativeHostName}`
      : !found.allowed_origins.includes(origin)
      ? `does not allow ${origin}`
      : found.path !== launcher
      ? `starts ${found.path}, not ${launcher}`
      : !(await executable(found.path))
      ? `starts ${found.path}, which is missing`
      : null;
    findings.push(
      wrong === null
        ? ok("native host", `${name}: ${manifest} → ${launcher}`)
        : problem("native host", `${name}: ${manifest} ${wrong}`, reinstall(context)),
    );
  }
  return findings;
}

async function checkExtensionFiles(context: Context): Promise<Finding[]> {
  const { layout } = context;
  for (const file of [...EXTENSION_FILES, "config.json"]) {
    if ((await readText(`${layout.extensionDir}/${file}`)) === null) {
      return [
        problem(
          "extension",
          `${layout.extensionDir}/${file} is missing`,
          `${reinstall(context)}, then reload the extension in your browser`,
        ),
      ];
    }
  }
  return [
    ok("extension", `unpacked in ${layout.extensionDir} (id ${context.receipt.extension.id})`),
  ];
}

/**
 * When an extension last said hello, and its version: the last `browser_attached` record in the
 * log (decision 0322), read by its schema, not by the line's words.
 */
async function lastHello(paths: InstancePaths): Promise<string | null> {
  let last: string | null = null;
  for (const file of [`${paths.logFile}.1`, paths.logFile]) {
    for (const hello of loggedEvents((await readText(file)) ?? "", "browser_attached")) {
      last = `${hello.at} (extension ${hello.extension})`;
    }
  }
  return last;
}

function browserStep(context: Context): string {
  return `open your browser; if the extension is not loaded there, open chrome://extensions, ` +
    `switch on Developer mode, click "Load unpacked" and choose ${context.layout.extensionDir}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the last bytes of a stream: why a service doctor started did not come up. */
async function keepTail(stream: ReadableStream<Uint8Array>, tail: { text: string }) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    tail.text = (tail.text + decoder.decode(chunk, { stream: true })).slice(-2000);
  }
}

/** A service doctor started for its check, and how to stop it again. */
interface Started {
  status: Status | null;
  stop(): Promise<void>;
  error: string | null;
}

/**
 * Starts the service as an MCP connector would: through the service entry, in a process of its
 * own with the service's least privilege (doctor never serves connectors or browsers itself).
 * Waits until it answers on its control socket, then briefly for a browser to come back.
 */
async function startThroughEntry(context: Context): Promise<Started> {
  const { paths, layout } = context;
  const instance = paths.instance === null ? [] : ["--instance", paths.instance];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(layout.serviceEntry, {
      args: [...instance, "service", "--exit-when-idle"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    return { status: null, stop: async () => {}, error: (error as Error).message };
  }
  const tail = { text: "" };
  const reading = keepTail(child.stderr, tail).catch(() => {});
  const ended: { status: Deno.CommandStatus | null } = { status: null };
  child.status.then((status) => ended.status = status);
  const stop = async () => {
    if (ended.status === null) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Gone meanwhile.
      }
    }
    await child.status;
    await reading;
  };
  let status: Status | null = null;
  for (const deadline = Date.now() + START_WAIT_MS; Date.now() < deadline;) {
    status = await fetchStatus(paths.controlSocket).catch(() => null);
    // Exited: another start won the race (and serves), or it could not start.
    if (status !== null || ended.status !== null) break;
    await sleep(200);
  }
  status ??= await fetchStatus(paths.controlSocket).catch(() => null);
  if (status === null) {
    await stop();
    const said = tail.text.trim().split("\n").at(-1);
    return {
      status,
      stop: async () => {},
      error: said || `exit ${ended.status?.code ?? "unknown"}`,
    };
  }
  // A browser whose connector is waiting for the service comes back within a second or two.
  for (const deadline = Date.now() + ATTACH_WAIT_MS; Date.now() < deadline;) {
    if (status.browsers.length > 0) break;
    await sleep(200);
    status = await fetchStatus(paths.controlSocket).catch(() => status!);
  }
  return { status, stop, error: null };
}

/** Reaches the running service, or starts one through the service entry for the check. */
async function reachService(
  context: Context,
): Promise<{ status: Status | null; stop: () => Promise<void>; findings: Finding[] }> {
  const { paths } = context;
  const running = await fetchStatus(paths.controlSocket).catch((error) => {
    if (error instanceof Deno.errors.NotCapable) return "out of reach" as const;
    return null;
  });
  if (running === "out of reach") {
    // An installed launcher's permissions name its own instance's sockets only.
    return {
      status: null,
      stop: async () => {},
      findings: [
        problem(
          "service",
          "this launcher may reach only its own instance's service, not that of " +
            (paths.instance === null ? "the default instance" : `instance '${paths.instance}'`),
          `run '${context.cli} doctor', that instance's own launcher`,
        ),
      ],
    };
  }
  if (running) {
    return {
      status: running,
      stop: async () => {},
      findings: [
        running.service.version === VERSION
          ? ok("service", `running, version ${running.service.version}, pid ${running.service.pid}`)
          : problem(
            "service",
            `the running service is version ${running.service.version}, the install ${VERSION}`,
            "stop it (it restarts on demand from the installed executables)",
          ),
      ],
    };
  }
  const started = await startThroughEntry(context);
  if (started.status === null) {
    return {
      status: null,
      stop: started.stop,
      findings: [
        problem(
          "service",
          `the service cannot start through ${context.layout.serviceEntry}: ${started.error}`,
          `see ${paths.logFile}`,
        ),
      ],
    };
  }
  const plan = autostartPlan(context);
  const findings = [
    note(
      "service",
      "the service was not running; doctor started it for this check (MCP clients start it " +
        (context.receipt.autostart
          ? `on demand; to start it now: ${plan.startNow})`
          : "on demand)"),
    ),
  ];
  return { status: started.status, stop: started.stop, findings };
}

/** How many MCP connectors the service serves now (their clients' names are not repeated). */
function connectorsLive(status: Status): Finding {
  const count = status.connectors.length;
  return ok("connectors", `${count} MCP connector${count === 1 ? "" : "s"} connected now`);
}

async function checkExtensionLive(context: Context, status: Status | null): Promise<Finding[]> {
  if (status === null) return [];
  if (status.browsers.length === 0) {
    const hello = await lastHello(context.paths);
    return [
      problem(
        "extension",
        `no browser has the extension connected (last hello: ${hello ?? "never"})`,
        browserStep(context),
      ),
    ];
  }
  return status.browsers.map((browser) =>
    browser.extensionVersion === context.receipt.extension.version
      ? ok(
        "extension",
        `connected in slot ${browser.slot} since ${browser.connectedAt}, extension ` +
          browser.extensionVersion,
      )
      : problem(
        "extension",
        `slot ${browser.slot} runs extension ${browser.extensionVersion}, the install ` +
          context.receipt.extension.version,
        "reload the extension in chrome://extensions",
      )
  );
}

/** Says hello on the bridge as a connector would, checks the proof, asks for the catalog. */
async function bridgeRoundTrip(paths: InstancePaths): Promise<Finding> {
  try {
    const opened = await connectAndVerify({
      socket: paths.bridgeSocket,
      keys: paths.keys,
      role: "mcp",
      client: { name: "ghostlight doctor", version: VERSION },
      maxFrame: BRIDGE_MAX_FRAME,
    });
    try {
      await opened.writer.write(encodeFrame({ type: "catalog", seq: 1 }, BRIDGE_MAX_FRAME));
      const answer = ServiceMessage.safeParse(await opened.reader.next());
      if (!answer.success || answer.data.type !== "catalog") {
        return problem("round trip", "the service did not answer with its catalog", "see the log");
      }
      return ok(
        "round trip",
        `the service proved its key and lists ${answer.data.tools.length} tools`,
      );
    } finally {
      opened.conn.close();
    }
  } catch (error) {
    return problem(
      "round trip",
      `connectors cannot reach the service: ${(error as Error).message}`,
      `see ${paths.logFile}`,
    );
  }
}

/**
 * Each running remote shore's tunnel as the shore last told the service (decision 0460): read
 * with the control proof, since an unproven status withholds remotes.
 */
async function remotesLive(paths: InstancePaths): Promise<Finding[]> {
  try {
    return remoteFindings(await fetchStatus(paths.controlSocket, await controlKey(paths.keys)));
  } catch {
    return [];
  }
}

/** `remote NAME: connected to HOST`, or a problem `remote NAME: degraded: <why>` and what to do. */
export function remoteFindings(status: Pick<Status, "remotes">): Finding[] {
  return (status.remotes ?? []).map((remote) => {
    if (remote.state === "connected") {
      return ok(
        "remote",
        `remote ${remote.name}: connected to ${remote.host} since ${remote.since}`,
      );
    }
    // The reason may quote the agent host's close text: no control character reaches the terminal.
    // deno-lint-ignore no-control-regex
    const why = (remote.why ?? "no reason given").replace(/[\x00-\x1f\x7f]/g, "?");
    return problem(
      "remote",
      `remote ${remote.name}: degraded: ${why} (since ${remote.since})`,
      `the shore keeps trying; check the agent host at ${remote.host}, the token, and ` +
        `'ghostlight remote list'`,
    );
  });
}

/** Round trips the doctor times on each browser: one alone would show a cold worker's first. */
const DOCTOR_PROBE_ROUNDS = 5;

async function browserRoundTrip(paths: InstancePaths, status: Status | null): Promise<Finding[]> {
  if (status === null || status.browsers.length === 0) return [];
  try {
    const probe = await fetchProbe(
      paths.controlSocket,
      await controlKey(paths.keys),
      DOCTOR_PROBE_ROUNDS,
    );
    return probe.browsers.map((browser) =>
      browser.ms !== null
        ? ok(
          "round trip",
          `service → browser connector → extension (slot ${browser.slot}) and back in ` +
            `${browser.ms.toFixed(2)} ms (median of ${browser.samplesMs.length})`,
        )
        : problem(
          "round trip",
          `the extension in slot ${browser.slot} did not answer: ${browser.error}`,
          "reload the extension in chrome://extensions, or restart the browser",
        )
    );
  } catch (error) {
    return [problem("round trip", `the probe failed: ${(error as Error).message}`, "see the log")];
  }
}

async function checkPolicy(paths: InstancePaths): Promise<Finding[]> {
  const file = `${paths.configDir}/policy.jsonc`;
  const text = await readText(file);
  if (text === null) {
    return [
      note(
        "policy",
        `no policy file (${file}): everything is allowed except sacred sites (the default)`,
      ),
    ];
  }
  const parsed = parseJsonc(text);
  return [
    parsed.ok
      ? ok("policy", `${file} parses`)
      : problem("policy", `${file} does not parse: ${parsed.reason}`, `fix ${file}`),
  ];
}

/**
 * The login entries: the service's, and for a sources install the remote shores' (decision
 * 0532), each present and as install wrote it.
 */
export async function checkAutostart(
  context: Pick<Context, "host" | "layout" | "receipt" | "cli">,
): Promise<Finding[]> {
  if (!context.receipt.autostart) {
    return [note("autostart", "not installed (--no-autostart): MCP clients start the service")];
  }
  const entries: AtLogin[] = context.receipt.mode === "sources" ? ["service", "remotes"] : [
    "service",
  ];
  const findings: Finding[] = [];
  for (const which of entries) {
    const plan = autostartPlan(context, which);
    if (plan.kind === "registry") {
      findings.push(note("autostart", `Run value ${plan.value.name}`));
      continue;
    }
    for (const file of [plan.file, plan.enable]) {
      if (file === null) continue;
      findings.push(
        (await readText(file.path)) === file.text
          ? ok("autostart", file.path)
          : problem("autostart", `${file.path} is missing or changed`, reinstall(context)),
      );
    }
  }
  return findings;
}

function verdictOf(findings: Finding[]): { healthy: boolean; verdict: string } {
  const problems = findings.filter((finding) => finding.status === "problem");
  if (problems.length === 0) {
    return { healthy: true, verdict: "Healthy: every hop answered." };
  }
  return {
    healthy: false,
    verdict: `${problems.length} problem${problems.length === 1 ? "" : "s"}. ` +
      `First: ${problems[0].message}; ${problems[0].fix}.`,
  };
}

/** Checks every hop of the site's instance, starting its service for the check if none runs. */
export async function doctor({ host, paths }: Site): Promise<DoctorReport> {
  const layout = installLayout(host, paths);
  const cli = layout.launchers.service.replace(/^.*[\\/]/, "").replace(/\.cmd$/, "");
  const found = await readReceipt(layout.receipt);
  const report = (findings: Finding[]): DoctorReport => ({
    instance: paths.instance,
    version: VERSION,
    ...verdictOf(findings),
    findings,
  });
  if (found === null || typeof found === "string") {
    const instance = paths.instance === null ? "" : ` --instance ${paths.instance}`;
    return report([
      problem(
        "install",
        found ?? `Ghostlight is not installed for this instance (no ${layout.receipt})`,
        `run 'ghostlight${instance} install'`,
      ),
    ]);
  }
  const context: Context = { host, paths, layout, receipt: found, cli };
  const findings: Finding[] = [
    ok("install", `${layout.prefix} (${found.mode === "compiled" ? "compiled" : "sources"})`),
    ...await checkExecutables(context),
    ...await checkInstanceDirs(context),
    ...await checkClients(context),
    ...await checkNativeHosts(context),
    ...await checkExtensionFiles(context),
    ...await checkPolicy(paths),
    ...await checkAutostart(context),
  ];
  const service = await reachService(context);
  try {
    findings.push(...service.findings);
    if (service.status !== null) {
      findings.push(connectorsLive(service.status), ...await remotesLive(paths));
    }
    findings.push(...await checkExtensionLive(context, service.status));
    if (service.status !== null) {
      findings.push(await bridgeRoundTrip(paths));
      findings.push(...await browserRoundTrip(paths, service.status));
    }
  } finally {
    await service.stop();
  }
  return report(findings);
}
