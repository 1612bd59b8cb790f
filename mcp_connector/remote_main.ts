/**
 * `ghostlight-remote`: the remote shore's entry (decision 0400). `ghostlight remote start NAME`
 * starts it under the `remote-shore` permission set, whose only network grants are the bridge
 * socket and the one host and port of remote NAME's URL; it reads the remotes file and NAME's
 * token, dials the agent host and serves until the tunnel closes or Ctrl-C. It writes no file,
 * and nothing it prints names the token.
 *
 * @module
 */

import { instancePathsFromEnv } from "../shared/instance.ts";
import { findRemote, readRemoteUrl, readTokenFile } from "../shared/remotes.ts";
import { starterGone } from "./main.ts";
import { runShore } from "./remote_shore.ts";
import { readConnectorSettings } from "./settings.ts";

const USAGE = "usage: --remote NAME [--instance NAME] [--service-entry PATH]";

function report(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`ghostlight-remote: ${message}\n`));
  } catch {
    // stderr closed.
  }
}

/** The shore's arguments. */
export function parseShoreArgs(
  args: string[],
): { remote: string; instance?: string; serviceEntry?: string } {
  let remote: string | undefined;
  let instance: string | undefined;
  let serviceEntry: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--remote") remote = args[++i];
    else if (args[i] === "--instance") instance = args[++i];
    else if (args[i] === "--service-entry") serviceEntry = args[++i];
    else throw new Error(`unknown argument ${JSON.stringify(args[i].slice(0, 100))}; ${USAGE}`);
  }
  if (remote === undefined) throw new Error(`which remote? ${USAGE}`);
  return { remote, instance, serviceEntry };
}

async function main(): Promise<number> {
  const settings = readConnectorSettings((key) => Deno.env.get(key));
  const args = parseShoreArgs(Deno.args);
  const paths = instancePathsFromEnv(args.instance ?? settings.instance);
  const remote = await findRemote(paths, args.remote);
  if (remote === null) {
    report(`no remote named ${args.remote}; 'ghostlight remote add' configures one`);
    return 2;
  }
  const url = readRemoteUrl(remote.url);
  const token = remote.token ? await readTokenFile(paths, remote.name) : null;
  const stop = new AbortController();
  // The service ended it (the person's Stop, or a newer shore): not a failure to restart after.
  let ended = false;
  const interrupted = () => stop.abort();
  // The command that started it is gone (killed): the tunnel ends with it, never left behind.
  starterGone().addEventListener("abort", interrupted);
  Deno.addSignalListener("SIGINT", interrupted);
  Deno.addSignalListener("SIGTERM", interrupted);
  try {
    const why = await runShore(paths, settings, {
      name: remote.name,
      url,
      binding: remote.binding,
      token,
      serviceEntry: args.serviceEntry ?? null,
      stop: stop.signal,
      onReady: (serverId) =>
        report(`remote ${remote.name}: connected to ${url.host}, serving as ${serverId}`),
      say: report,
      onEnded: () => ended = true,
    });
    report(`remote ${remote.name}: ended: ${why}`);
    return stop.signal.aborted || ended ? 0 : 1;
  } catch (error) {
    report(`remote ${remote.name}: degraded: ${(error as Error).message}`);
    return 1;
  } finally {
    Deno.removeSignalListener("SIGINT", interrupted);
    Deno.removeSignalListener("SIGTERM", interrupted);
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main();
  } catch (error) {
    report((error as Error).message);
    code = 2;
  }
  Deno.exit(code);
}
