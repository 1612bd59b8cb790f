/**
 * `ghostlight service`: the service in the foreground.
 *
 * @module
 */

import type { InstancePaths } from "../../shared/instance.ts";
import { startDaemon } from "../daemon/mod.ts";
import type { ServiceSettings } from "../settings.ts";
import { noMore, takeFlag } from "./args.ts";

/**
 * `ghostlight service [--exit-when-idle]`: runs the service in the foreground until a signal,
 * or (demand-started) until it has been idle for the idle setting.
 */
export async function runService(
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
