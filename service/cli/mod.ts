/**
 * The `ghostlight` command line: `service`, `status`, `browser launch`.
 *
 * @module
 */

import { type InstancePaths, instancePathsFromEnv } from "../../shared/instance.ts";
import { VERSION } from "../../shared/version.ts";
import { fetchStatus } from "../control/mod.ts";
import { startDaemon } from "../daemon/mod.ts";
import { AlreadyRunning, describeInstance } from "../endpoint/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { launchBrowser } from "./launch.ts";

const USAGE = `Usage: ghostlight [--instance NAME] <command>

Commands:
  service [--exit-when-idle]     run the service in the foreground
  status [--json]                show the service, browsers and connectors
  browser launch [--headless] [--url URL] [--device-scale-factor N]
                                 start an isolated Chromium with Ghostlight in it
  version                        print the version

--instance NAME (or GHOSTLIGHT_INSTANCE) selects an isolated instance.`;

/** A command-line mistake: printed with the usage, exit code 2. */
class UsageError extends Error {}

function takeFlag(args: string[], name: string): boolean {
  const index = args.indexOf(name);
  if (index < 0) return false;
  args.splice(index, 1);
  return true;
}

function takeOption(args: string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index < 0) return undefined;
  const arg = args[index];
  if (arg.includes("=")) {
    args.splice(index, 1);
    return arg.slice(name.length + 1);
  }
  const value = args[index + 1];
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  args.splice(index, 2);
  return value;
}

function noMore(args: string[]): void {
  if (args.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args[0])}`);
}

async function runService(
  paths: InstancePaths,
  settings: ServiceSettings,
  args: string[],
): Promise<number> {
  const demand = takeFlag(args, "--exit-when-idle");
  noMore(args);
  const daemon = await startDaemon(paths, {
    settings,
    exitWhenIdle: demand,
    logToStderr: !demand,
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => daemon.stop());
  }
  await daemon.finished;
  return 0;
}

async function runStatus(paths: InstancePaths, args: string[]): Promise<number> {
  const json = takeFlag(args, "--json");
  noMore(args);
  let status;
  try {
    status = await fetchStatus(paths.controlSocket);
  } catch {
    if (json) console.log(JSON.stringify({ service: null }));
    else console.log(`The service for ${describeInstance(paths)} is not running.`);
    return 3;
  }
  if (json) {
    console.log(JSON.stringify(status));
    return 0;
  }
  console.log(
    `Service ${status.service.version}, pid ${status.service.pid}, ` +
      `${describeInstance(paths)}, up since ${status.service.startedAt}`,
  );
  console.log(`Browsers: ${status.browsers.length}`);
  for (const browser of status.browsers) {
    console.log(
      `  slot ${browser.slot}: extension ${browser.extensionVersion}, ${browser.userAgent}`,
    );
  }
  console.log(`MCP connectors: ${status.connectors.length}`);
  for (const connector of status.connectors) {
    console.log(`  ${connector.client}, ${connector.activeWorks} calls running`);
  }
  console.log(`Workspaces: ${status.workspaces}`);
  for (const plan of status.plans ?? []) {
    console.log(`  plan of ${plan.client} (${plan.at}): ${plan.domains.join(", ") || "no domain"}`);
    plan.approach.forEach((step, index) => console.log(`    ${index + 1}. ${step}`));
  }
  return 0;
}

/** Runs the command line with the settings `main` read; returns the exit code. */
export async function runCli(argv: string[], settings: ServiceSettings): Promise<number> {
  const args = [...argv];
  try {
    if (takeFlag(args, "--help") || takeFlag(args, "-h")) {
      console.log(USAGE);
      return 0;
    }
    const instance = takeOption(args, "--instance");
    const paths = instancePathsFromEnv(instance ?? settings.instance);
    const command = args.shift();
    switch (command) {
      case "service":
        return await runService(paths, settings, args);
      case "status":
        return await runStatus(paths, args);
      case "browser": {
        const sub = args.shift();
        if (sub !== "launch") throw new UsageError("the browser command is 'browser launch'");
        const headless = takeFlag(args, "--headless");
        const url = takeOption(args, "--url") ?? null;
        const scale = takeOption(args, "--device-scale-factor");
        const deviceScaleFactor = scale === undefined ? undefined : Number(scale);
        if (
          deviceScaleFactor !== undefined && !(deviceScaleFactor >= 0.5 && deviceScaleFactor <= 4)
        ) {
          throw new UsageError("--device-scale-factor takes a number from 0.5 to 4");
        }
        noMore(args);
        await launchBrowser(paths, settings, { headless, url, deviceScaleFactor });
        return 0;
      }
      case "version":
      case "--version":
        console.log(`ghostlight ${VERSION}`);
        return 0;
      case undefined:
        throw new UsageError("no command given");
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`ghostlight: ${error.message}\n\n${USAGE}`);
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
