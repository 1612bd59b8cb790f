/**
 * `ghostlight remote add|pin|list|remove|start` (issue 31, decision 0400): the person's remotes,
 * agent hosts elsewhere that the remote shore dials out to. The remotes file and each token file
 * are written whole and owner-only in the instance's config folder; a token is never printed.
 * A new remote's pin is empty (deny-all): `add` names the read-only tools as a proposal and pins
 * only what `--tools` lists. `start` runs the shore in the foreground under its own permission set,
 * whose only network grant besides the bridge socket is the remote's one host and port.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { FileRefused, readRegularText } from "../../shared/files.ts";
import {
  Binding,
  hostPort,
  MAX_TOKEN_BYTES,
  readRemotes,
  readRemoteUrl,
  readToken,
  type Remote,
  RemoteName,
  RemotesFile,
  remotesFile,
  tokenFile,
} from "../../shared/remotes.ts";
import { CONTRACT } from "../catalog/mod.ts";
import { currentStartPlan, startCommand } from "../privilege/mod.ts";
import { cannotRead, noMore, takeFlag, takeOption, UsageError } from "./args.ts";
import { shown } from "./shown.ts";

/** The tools that only read, as the contract marks them: what `add` proposes. */
export const READ_ONLY_TOOLS: readonly string[] = CONTRACT
  .filter((row) => row.annotations.readOnlyHint)
  .map((row) => row.name);

const TOOL_NAMES = new Set(CONTRACT.map((row) => row.name));

/** Runs one `remote` subcommand; returns the exit code. */
export async function runRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const sub = args.shift();
  switch (sub) {
    case "add":
      return await addRemote(paths, args);
    case "pin":
      return await pinRemote(paths, args);
    case "list":
      noMore(args);
      return await listRemotes(paths);
    case "remove":
      return await removeRemote(paths, args);
    case "at-login":
      return await atLoginRemote(paths, args);
    case "start":
      return takeFlag(args, "--at-login")
        ? await startAtLogin(paths, args)
        : await startRemote(paths, args);
    default:
      throw new UsageError(
        "the remote commands are 'remote add|pin|list|remove|at-login|start'",
      );
  }
}

function nameOf(raw: string | undefined): RemoteName {
  const parsed = RemoteName.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(
      `${JSON.stringify((raw ?? "").slice(0, 64))}: ${parsed.error.issues[0].message}`,
    );
  }
  return parsed.data;
}

/** A `--tools a,b,c` list, each a tool of the catalog. */
function toolsOf(raw: string): string[] {
  const tools = raw.split(",").map((tool) => tool.trim()).filter((tool) => tool !== "");
  const unknown = tools.filter((tool) => !TOOL_NAMES.has(tool));
  if (unknown.length > 0) {
    throw new UsageError(
      `no tool named ${unknown.map((tool) => JSON.stringify(tool.slice(0, 64))).join(", ")}; ` +
        `the tools are ${[...TOOL_NAMES].join(", ")}`,
    );
  }
  return [...new Set(tools)];
}

/** Writes `text` whole and owner-only: a temporary file beside it, renamed over it. */
async function writeOwnerOnly(path: string, text: string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
  try {
    await Deno.chmod(temporary, 0o600);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

async function writeRemotes(paths: InstancePaths, file: RemotesFile): Promise<void> {
  await Deno.mkdir(paths.configDir, { recursive: true, mode: 0o700 });
  await writeOwnerOnly(remotesFile(paths), `${JSON.stringify(RemotesFile.parse(file), null, 2)}\n`);
}

/** `remote add NAME URL --binding acp|openab [--token-file F] [--tools a,b,c] [--at-login]`. */
async function addRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const atLogin = takeFlag(args, "--at-login");
  const bindingRaw = takeOption(args, "--binding");
  const tokenPath = takeOption(args, "--token-file");
  const toolsRaw = takeOption(args, "--tools");
  const name = nameOf(args.shift());
  const urlRaw = args.shift();
  noMore(args);
  if (urlRaw === undefined) throw new UsageError("remote add NAME URL --binding acp|openab");
  let url: URL;
  try {
    url = readRemoteUrl(urlRaw);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const binding = Binding.safeParse(bindingRaw);
  if (!binding.success) throw new UsageError("remote add needs --binding acp or --binding openab");
  const tools = toolsRaw === undefined ? [] : toolsOf(toolsRaw);
  const file = await readRemotes(paths);
  if (file.remotes.some((remote) => remote.name === name)) {
    throw new UsageError(`a remote named ${name} is there already; 'remote remove ${name}' first`);
  }
  let token: string | null = null;
  if (tokenPath !== undefined) {
    let text: string | null;
    try {
      text = await readRegularText(tokenPath, { maxBytes: MAX_TOKEN_BYTES });
    } catch (error) {
      if (error instanceof FileRefused) throw new UsageError(error.message);
      throw new UsageError(cannotRead(tokenPath, error));
    }
    if (text === null) throw new UsageError(`${tokenPath} does not exist`);
    try {
      token = readToken(text, tokenPath);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  // The token first: a remote listed without its token would fail at start, not here.
  await Deno.mkdir(paths.configDir, { recursive: true, mode: 0o700 });
  if (token !== null) await writeOwnerOnly(tokenFile(paths, name), `${token}\n`);
  const remote: Remote = {
    name,
    url: url.href,
    binding: binding.data,
    tools,
    token: token !== null,
    ...(atLogin ? { atLogin } : {}),
  };
  await writeRemotes(paths, { version: 1, remotes: [...file.remotes, remote] });
  console.log(
    `remote ${name} added: ${url.host} over the ${binding.data} binding` +
      (token === null ? ", no token" : ", its token kept owner-only"),
  );
  if (tools.length === 0) {
    console.log(
      `It may call no tool yet (a new remote's pin denies all). The read-only tools are ` +
        `${READ_ONLY_TOOLS.join(",")}; to let it use them:\n` +
        `  ghostlight remote pin ${name} --tools ${READ_ONLY_TOOLS.join(",")}`,
    );
  } else {
    console.log(`It may call ${tools.join(", ")}, as far as the policy allows remote:${name}.`);
  }
  if (atLogin) console.log(AT_LOGIN_SAID(name));
  return 0;
}

/** What `--at-login` does, in words. */
const AT_LOGIN_SAID = (name: string) =>
  `Its shore starts at login ('remote start --at-login', which the login entry ghostlight ` +
  `install writes runs); 'ghostlight remote at-login ${name} off' stops that.`;

/** `remote at-login NAME on|off`: whether the login entry starts NAME's shore (decision 0532). */
async function atLoginRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const name = nameOf(args.shift());
  const choice = args.shift();
  noMore(args);
  if (choice !== "on" && choice !== "off") throw new UsageError("remote at-login NAME on|off");
  const file = await readRemotes(paths);
  const remote = file.remotes.find((entry) => entry.name === name);
  if (remote === undefined) throw new UsageError(`no remote named ${name}`);
  await writeRemotes(paths, {
    version: 1,
    remotes: file.remotes.map((entry) => {
      if (entry !== remote) return entry;
      const { atLogin: _, ...rest } = entry;
      return choice === "on" ? { ...rest, atLogin: true } : rest;
    }),
  });
  console.log(
    choice === "on" ? AT_LOGIN_SAID(name) : `remote ${name}'s shore no longer starts at login`,
  );
  return 0;
}

/** `remote pin NAME --tools a,b,c` (an empty list denies all). */
async function pinRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const toolsRaw = takeOption(args, "--tools");
  const name = nameOf(args.shift());
  noMore(args);
  if (toolsRaw === undefined) throw new UsageError("remote pin NAME --tools a,b,c");
  const tools = toolsOf(toolsRaw);
  const file = await readRemotes(paths);
  const remote = file.remotes.find((entry) => entry.name === name);
  if (remote === undefined) throw new UsageError(`no remote named ${name}`);
  await writeRemotes(paths, {
    version: 1,
    remotes: file.remotes.map((entry) => entry === remote ? { ...entry, tools } : entry),
  });
  console.log(
    tools.length === 0
      ? `remote ${name} may call no tool`
      : `remote ${name} may call ${tools.join(", ")} (from its next connection)`,
  );
  return 0;
}

/** `remote list`: each remote, its host, binding and pin; never its token. */
async function listRemotes(paths: InstancePaths): Promise<number> {
  const { remotes } = await readRemotes(paths);
  if (remotes.length === 0) console.log("no remotes ('ghostlight remote add' configures one)");
  for (const remote of remotes) {
    const pin = remote.tools.length === 0 ? "no tool (deny-all)" : remote.tools.join(",");
    console.log(shown(
      `remote:${remote.name}  ${remote.url}  ${remote.binding}  ` +
        `token: ${remote.token ? "kept" : "none"}  tools: ${pin}` +
        (remote.atLogin ? "  starts at login" : ""),
    ));
  }
  return 0;
}

/** `remote remove NAME`: its entry and its token file. */
async function removeRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const name = nameOf(args.shift());
  noMore(args);
  const file = await readRemotes(paths);
  const removed = file.remotes.find((remote) => remote.name === name);
  if (removed === undefined) throw new UsageError(`no remote named ${name}`);
  await writeRemotes(paths, {
    version: 1,
    remotes: file.remotes.filter((remote) => remote.name !== name),
  });
  await Deno.remove(tokenFile(paths, name)).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  console.log(
    `remote ${name} removed (a shore running for it is refused at its next call` +
      `${removed?.atLogin ? "; it no longer starts at login" : ""})`,
  );
  return 0;
}

/** `remote start NAME`: the shore in the foreground, under its own permissions; Ctrl-C ends it. */
async function startRemote(paths: InstancePaths, args: string[]): Promise<number> {
  const name = nameOf(args.shift());
  noMore(args);
  const file = await readRemotes(paths);
  const remote = file.remotes.find((entry) => entry.name === name);
  if (remote === undefined) throw new UsageError(`no remote named ${name}`);
  return await runShores(paths, [remote]);
}

/**
 * `remote start --at-login`: the shore of every remote marked to start at login, each under its
 * own permissions, until all end (decision 0532); none marked is said and is no failure.
 */
async function startAtLogin(paths: InstancePaths, args: string[]): Promise<number> {
  noMore(args);
  const marked = (await readRemotes(paths)).remotes.filter((remote) => remote.atLogin === true);
  if (marked.length === 0) {
    console.log("no remote starts at login ('ghostlight remote at-login NAME on' marks one)");
    return 0;
  }
  console.log(`starting the shores of ${marked.map((remote) => remote.name).join(", ")}`);
  return await runShores(paths, marked);
}

/** Runs one shore per remote in the foreground, each under its own set; the worst exit code. */
async function runShores(paths: InstancePaths, remotes: Remote[]): Promise<number> {
  const plan = currentStartPlan(paths.instance);
  if (plan.install.kind !== "source") {
    console.error(
      "ghostlight: a compiled install cannot yet give the remote shore its one host as a grant " +
        "(its permissions are compiled in); run 'deno task ghostlight remote start' from a checkout",
    );
    return 2;
  }
  const instance = paths.instance === null ? [] : ["--instance", paths.instance];
  const children = remotes.map((remote) => {
    const { command, args: fixed } = startCommand("remote-shore", plan, {
      remote: { name: remote.name, host: hostPort(readRemoteUrl(remote.url)) },
    });
    return new Deno.Command(command, {
      args: [...fixed, "--remote", remote.name, ...instance],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
  });
  // Ctrl-C in a terminal reaches the shores too (one process group); a signal sent to this
  // process alone is passed on, so each shore always ends its tunnel itself.
  const passed: [Deno.Signal, () => void][] = (["SIGINT", "SIGTERM"] as const).map((signal) => [
    signal,
    () => {
      for (const child of children) {
        try {
          child.kill(signal);
        } catch {
          // That shore has ended already.
        }
      }
    },
  ]);
  for (const [signal, pass] of passed) Deno.addSignalListener(signal, pass);
  const codes = await Promise.all(children.map(async (child) => (await child.status).code));
  for (const [signal, pass] of passed) Deno.removeSignalListener(signal, pass);
  return Math.max(...codes);
}
