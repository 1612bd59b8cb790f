/**
 * The `ghostlight` command line: reads the global options, picks the command, and turns every
 * failure into a message and an exit code.
 *
 * @module
 */

import {
  instanceCommand,
  type InstancePaths,
  instancePathsFromEnv,
} from "../../shared/instance.ts";
import { VERSION } from "../../shared/version.ts";
import { AlreadyRunning, describeInstance } from "../endpoint/mod.ts";
import { ADMIN_COMMANDS } from "../privilege/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { noMore, takeFlag, takeOption, UsageError } from "./args.ts";
import { runAudit } from "./audit_command.ts";
import { runDoctor } from "./doctor_command.ts";
import { runInstall, runUninstall } from "./install_command.ts";
import { launchBrowser } from "./launch.ts";
import { runPaths } from "./paths_command.ts";
import { isPersonCommand, runPersonCommand } from "./person_command.ts";
import { runPolicy } from "./policy_command.ts";
import { runRemote } from "./remote_command.ts";
import { runAnswer, runAsks } from "./asks_command.ts";
import { runService } from "./service_command.ts";
import { runStatus } from "./status_command.ts";

const USAGE = `Usage: ghostlight [--instance NAME] <command>

Commands:
  service [--exit-when-idle]     run the service in the foreground
  status [--json]                show the service, browsers and connectors
  browser launch [--headless] [--url URL] [--device-scale-factor N] [--remote-debugging]
                 [--extension DIR]
                                 start an isolated Chromium with Ghostlight in it
                                 (--remote-debugging: DevTools on loopback, for tests;
                                 --extension: another build of the extension, in DIR inside
                                 the instance's cache folder, to try version skew)
  paths [--json]                 every file, folder and socket of the instance
  hold [N]                       pause agent N (see status), or every agent
  resume [N]                     let agent N, or every agent, carry on
  take-over [N]                  pause agent N (or the last one to act); bring its tab forward
  stop [N]                       stop agent N, or every agent: end its workspace, free its tabs
                                 (not the service: Ctrl-C where it runs in the foreground; one
                                 a client started exits by itself after 30 s with no connector,
                                 browser or work)
  asks [--granted] [--revoke N] [--json]
                                 the questions a policy's "ask" puts to you, waiting for your
                                 answer (--granted: the yeses remembered; --revoke forgets one)
  allow N [--site|--persist]     let the call of question N through (--site: this capability on
                                 this site for this agent, until its workspace ends; --persist:
                                 that, saved as a grant in your policy file, comments kept)
  deny N                         refuse the call of question N
  audit verify [FILE]            check the audit's hash chain; exit 1 names the first bad line
  audit tail [-n N] [--json]     the latest audit records
  audit reset                    start a new audit (the service stopped): the old files are
                                 moved aside, and the new audit's first record says so
  policy explain [FILE] [--host HOST] [--principal NAME]
                                 what a policy allows, in words
  policy simulate FILE --replay AUDIT
                                 which calls of an audit FILE would have refused
  policy init [--template NAME]  write a commented policy file (read-only, allowlist, observe,
                                 ask-first, open); never overwrites one
  install [--dry-run] [--client ID|none]... [--browser ID]... [--no-autostart] [--json]
                                 install into your own browsers and MCP clients
  uninstall [--dry-run] [--json] remove exactly what install added
  doctor [--json]                check every hop and name the next action for each problem
  remote add NAME URL --binding acp|openab [--token-file F] [--tools a,b,c] [--at-login]
                                 an agent host elsewhere this browser may serve (wss://, or
                                 ws:// to this machine); it may call no tool until pinned
  remote pin NAME --tools a,b,c  the only tools remote NAME may see and call
  remote list | remote remove NAME
  remote at-login NAME on|off    whether the login entry install writes starts NAME's shore
  remote start NAME              dial remote NAME and serve it in the foreground (Ctrl-C ends
                                 it); docs/remote.md
  remote start --at-login        the shores of every remote marked to start at login
  version                        print the version

--instance NAME (or GHOSTLIGHT_INSTANCE) selects an isolated instance.`;

/**
 * Which entry point runs the command line: the service's (`service/main.ts`, its least
 * privilege) or the installer's (`service/installer.ts`), which runs only the admin commands.
 */
export type CliRole = "service" | "installer";

/**
 * Refuses a command its entry point does not run: the service's runs no admin command, so the
 * entry an MCP connector may start never reaches install, uninstall or doctor; the installer's
 * runs nothing else (decision 0084).
 */
function checkRole(role: CliRole, command: string | undefined): void {
  if (command === undefined || command === "version" || command === "--version") return;
  const admin = ADMIN_COMMANDS.includes(command);
  if (role === "service" && admin) {
    throw new UsageError(
      `'${command}' runs as the installer, with the permissions to edit your clients and ` +
        `browsers: run it through the ghostlight command install put on your PATH, ` +
        `'deno task ghostlight ${command}' from a checkout, or 'sh install.sh'`,
    );
  }
  if (role === "installer" && !admin) {
    throw new UsageError(
      `this entry runs only ${ADMIN_COMMANDS.join(", ")}; '${command}' runs as the service`,
    );
  }
}

/** Runs the command line with the settings `main` read; returns the exit code. */
export async function runCli(
  argv: string[],
  settings: ServiceSettings,
  role: CliRole = "service",
): Promise<number> {
  const args = [...argv];
  let named: InstancePaths | undefined;
  try {
    if (takeFlag(args, "--help") || takeFlag(args, "-h")) {
      console.log(USAGE);
      return 0;
    }
    const instance = takeOption(args, "--instance");
    const command = args.shift();
    checkRole(role, command);
    const paths = instancePathsFromEnv(instance ?? settings.instance);
    if (instance !== undefined) named = paths;
    switch (command) {
      case "service":
        return await runService(paths, settings, args);
      case "status":
        return await runStatus(paths, args);
      case "install":
        return await runInstall(paths, args);
      case "uninstall":
        return await runUninstall(paths, args);
      case "doctor":
        return await runDoctor(paths, args);
      case "paths":
        return runPaths(paths, args);
      case "audit":
        return await runAudit(paths, args);
      case "policy":
        return await runPolicy(paths, args);
      case "browser": {
        const sub = args.shift();
        if (sub !== "launch") throw new UsageError("the browser command is 'browser launch'");
        const headless = takeFlag(args, "--headless");
        const remoteDebugging = takeFlag(args, "--remote-debugging");
        const extensionDir = takeOption(args, "--extension");
        const url = takeOption(args, "--url") ?? null;
        const scale = takeOption(args, "--device-scale-factor");
        const deviceScaleFactor = scale === undefined ? undefined : Number(scale);
        if (
          deviceScaleFactor !== undefined && !(deviceScaleFactor >= 0.5 && deviceScaleFactor <= 4)
        ) {
          throw new UsageError("--device-scale-factor takes a number from 0.5 to 4");
        }
        noMore(args);
        await launchBrowser(paths, settings, {
          headless,
          url,
          deviceScaleFactor,
          remoteDebugging,
          extensionDir,
        });
        return 0;
      }
      case "asks":
        return await runAsks(paths, args);
      case "remote":
        return await runRemote(paths, args);
      case "allow":
      case "deny":
        return await runAnswer(paths, command, args);
      case "version":
      case "--version":
        console.log(`ghostlight ${VERSION}`);
        return 0;
      case undefined:
        throw new UsageError("no command given");
      default:
        if (isPersonCommand(command)) return await runPersonCommand(paths, command, args);
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`ghostlight: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof Deno.errors.NotCapable && named !== undefined) {
      // An installed launcher's permissions name its own instance's folders only.
      console.error(otherInstanceMessage(named));
      return 2;
    }
    if (error instanceof AlreadyRunning) {
      console.error(`ghostlight: ${error.message}`);
      return 4;
    }
    console.error(`ghostlight: ${(error as Error).message}`);
    return 1;
  }
}

/**
 * What a command says when its permissions do not reach `paths`' sockets: an installed
 * `ghostlight[-NAME]` is pinned to its own instance, so `--instance OTHER` cannot reach OTHER's
 * service (which may well be running); "not running" would be a guess.
 */
function otherInstanceMessage(paths: InstancePaths): string {
  const name = instanceCommand(paths.instance);
  const flag = paths.instance === null ? "" : ` --instance ${paths.instance}`;
  return `ghostlight: this command may reach only its own instance's service, not that of ` +
    `${describeInstance(paths)} (an installed launcher serves one instance); run ${name}, ` +
    `which 'ghostlight${flag} install' puts on your PATH, or 'deno task ghostlight${flag} ...' ` +
    `from a checkout`;
}
