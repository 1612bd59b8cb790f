/**
 * What the service sends into pages, all of it made from the page runtime's TypeScript
 * (`../page_runtime/`) by `deno task build:page`: the script that installs the runtime in
 * Ghostlight's isolated world of a frame, calls into that runtime, and the few self-contained
 * functions that run in the page's main world. No page logic is written here as a string.
 *
 * @module
 */

import { INSTALL, MAIN_WORLD, type RuntimeMethod } from "./runtime_bundle.ts";

export { INSTALL, type RuntimeMethod };

/** Name of the isolated world the runtime lives in. */
export const WORLD_NAME = "ghostlight";

/** A function that runs in the page's main world. */
export type MainWorldFunction = keyof typeof MAIN_WORLD;

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
