/**
 * What the service sends into pages, all of it made from the page runtime's TypeScript
 * (`../page_runtime/`) by `deno task build:page`: the script that installs the runtime in
 * Ghostlight's isolated world of a frame, calls into that runtime, and the few self-contained
 * functions that run in the page's main world. No page logic is written here as a string.
 *
 * @module
 */

import type { EnableCommand } from "../../../shared/browser_protocol.ts";
import { LANDED_BINDING_PREFIX } from "./landing.ts";
import { INSTALL, MAIN_WORLD, RUNTIME_BUILD, type RuntimeMethod } from "./runtime_bundle.ts";

export { INSTALL, type RuntimeMethod };

/**
 * Name of the isolated world the runtime lives in, one per build of the runtime (decision 0237):
 * a browser that outlives a service keeps the old service's registration on the tabs it had
 * attached, and a world keeps the first runtime installed in it, so a shared name would give an
 * upgraded service the old runtime in every new document of those tabs.
 */
export const WORLD_NAME = `ghostlight-${RUNTIME_BUILD}`;

/**
 * The binding a new document's runtime reports its facts through (decisions 0222, 0245), named for
 * the build as its world is: a report under this name comes from this build's world alone, so its
 * execution context is that world's, which the service then reads in without making it again
 * (decision 0244). A runtime of another build, left registered by an older service, reports
 * through its own build's binding.
 */
export const LANDED_BINDING = `${LANDED_BINDING_PREFIX}_${RUNTIME_BUILD}`;

/** A function that runs in the page's main world. */
export type MainWorldFunction = keyof typeof MAIN_WORLD;

/**
 * Registered on every attach to an observed tab: each new document of the tab's own renderer
 * gets Ghostlight's world with the runtime installed before the page's scripts run (and the
 * document shown now at once), so a world is there to find (`Page.createIsolatedWorld` answers
 * the existing world of that name) instead of sending and compiling the 58 kB install. The world
 * is isolated: the page's scripts neither see nor fake it. The binding through which the runtime
 * names its world in a new document and hands on the document's facts at its first frame and its
 * load is exposed in that world alone (decisions 0222, 0244, 0245).
 */
export const PAGE_ENABLE_COMMANDS: EnableCommand[] = [
  {
    method: "Runtime.addBinding",
    params: { name: LANDED_BINDING, executionContextName: WORLD_NAME },
  },
  {
    method: "Page.addScriptToEvaluateOnNewDocument",
    params: { source: INSTALL, worldName: WORLD_NAME, runImmediately: true },
  },
];

/** The registry's token where the runtime is installed already, else undefined. */
export const INSTALLED_TOKEN = "globalThis.__ghostlight?.token";

function argumentList(args: unknown[]): string {
  return args.map((arg) => JSON.stringify(arg) ?? "undefined").join(", ");
}

/**
 * The expression that calls a runtime method with `args` (as JSON), for evaluation in a world
 * where {@linkcode INSTALL} ran.
 */
export function runtimeCall(method: RuntimeMethod, ...args: unknown[]): string {
  return `__ghostlight.${method}(${argumentList(args)})`;
}

/**
 * `expression` (evaluated in the world first) wrapped in the runtime's `vouch`: its value beside
 * whether the frame still shows the world's document (decision 0246).
 */
export function vouchedCall(expression: string): string {
  const method: RuntimeMethod = "vouch";
  return `__ghostlight.${method}(${expression})`;
}

/** The expression that calls a main-world function with `args` (as JSON). */
export function mainWorldCall(name: MainWorldFunction, ...args: unknown[]): string {
  return `(${MAIN_WORLD[name]})(${argumentList(args)})`;
}

/**
 * The declaration of the function that copies the value of an agent's script into JSON, for
 * `Runtime.callFunctionOn` on that value.
 */
export const SERIALIZE: string = MAIN_WORLD.serialize;

/**
 * The function declaration that calls a runtime method with the arguments of a
 * `Runtime.callFunctionOn` in a world where {@linkcode INSTALL} ran: for arguments too large to
 * write into an expression, or filled in on the way (transfers).
 */
export function runtimeFunction(method: RuntimeMethod): string {
  return `function (...args) { return __ghostlight.${method}(...args); }`;
}
