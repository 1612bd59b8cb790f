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
import type {
  MainWorldFunctions,
  PageMethod,
  PageMethods,
  Vouched,
} from "../page_runtime/contract.ts";
import { INSTALL, MAIN_WORLD, RUNTIME_BUILD } from "./runtime_bundle.ts";

export { INSTALL };

/** A method of the page runtime, as the contract names it. */
export type RuntimeMethod = PageMethod;

/** What a runtime method answers once awaited, by the contract. */
export type RuntimeAnswer<M extends RuntimeMethod> = Awaited<ReturnType<PageMethods[M]>>;

declare const answers: unique symbol;

/**
 * An expression that calls into the page runtime, typed with what it answers (decision 0320):
 * the readers (`inFrame`, `readMainFrame`, ...) take their result type from it, so no caller
 * names or casts a runtime result itself. It is the expression's text at run time.
 */
export type RuntimeCall<T> = string & { readonly [answers]: T };

declare const holds: unique symbol;

/** The text of JSON holding a `T`, as a runtime call wrapped in `JSON.stringify` answers. */
export type JsonText<T> = string & { readonly [holds]: T };

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

/** A function that runs in the page's main world, as the contract names it. */
export type MainWorldFunction = keyof MainWorldFunctions;

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
 * The expression calling `method` with `args` (already written out), which answers undefined
 * when the world holds no runtime, or one without that method (decision 0320): no method of the
 * contract answers undefined, so {@linkcode noRuntime} tells that case by the reply's type, not by
 * the words of a ReferenceError.
 */
function methodCall(method: RuntimeMethod, args: string): string {
  return `globalThis.__ghostlight?.${method}?.(${args})`;
}

/**
 * Whether an evaluation's reply (its `result`, a remote object) is undefined: the world it ran in
 * held no runtime to call (see {@linkcode methodCall}).
 */
export function noRuntime(reply: { result?: unknown }): boolean {
  return (reply.result as { type?: unknown } | undefined)?.type === "undefined";
}

/**
 * The expression that calls a runtime method with `args` (as JSON), for evaluation in a world
 * where {@linkcode INSTALL} ran.
 */
export function runtimeCall<M extends RuntimeMethod>(
  method: M,
  ...args: Parameters<PageMethods[M]>
): RuntimeCall<RuntimeAnswer<M>> {
  return methodCall(method, argumentList(args)) as RuntimeCall<RuntimeAnswer<M>>;
}

/** The runtime methods that take an element's number first. */
export type ElementMethod = {
  [M in RuntimeMethod]: Parameters<PageMethods[M]> extends [number, ...unknown[]] ? M : never;
}[RuntimeMethod];

/** What an {@linkcode ElementMethod} takes after the element's number. */
export type ElementArgs<M extends ElementMethod> = Parameters<PageMethods[M]> extends
  [number, ...infer Rest] ? Rest : never;

/** {@linkcode runtimeCall} of a method that takes an element's number (`localId`) first. */
export function elementCall<M extends ElementMethod>(
  method: M,
  localId: number,
  ...args: ElementArgs<M>
): RuntimeCall<RuntimeAnswer<M>> {
  return methodCall(method, argumentList([localId, ...args])) as RuntimeCall<
    RuntimeAnswer<M>
  >;
}

/**
 * A path of property names into a value of type `T` (at most three deep, not into lists), as a
 * step of a page program tests a field of an earlier reply.
 */
export type ValuePath<T, Depth extends unknown[] = []> = Depth["length"] extends 3 ? never
  : T extends readonly unknown[] ? never
  : T extends object ? {
      [K in keyof T & string]-?:
        | [K]
        | [K, ...ValuePath<NonNullable<T[K]>, [...Depth, unknown]>];
    }[keyof T & string]
  : never;

/**
 * Where a field of `method`'s answer is in the reply to its evaluation (`result.value`, then
 * `path`): the path is checked against the contract, so a field renamed in the runtime is a type
 * error where a page program tests it.
 */
export function answerPath<M extends RuntimeMethod>(
  _method: M,
  ...path: ValuePath<RuntimeAnswer<M>>
): string[] {
  return ["result", "value", ...path];
}

/**
 * `call`'s answer as JSON text, made in the page (one string crosses CDP, not an object tree
 * the protocol copies value by value); {@linkcode parseJson} reads it back as the same type.
 */
export function asJsonText<T>(call: RuntimeCall<T>): RuntimeCall<JsonText<T>> {
  return `JSON.stringify(${call})` as RuntimeCall<JsonText<T>>;
}

/** The value of JSON text made by {@linkcode asJsonText}, typed as the call it came from. */
export function parseJson<T>(text: JsonText<T>): T {
  return JSON.parse(text) as T;
}

/**
 * `expression` (evaluated in the world first) wrapped in the runtime's `vouch`: its value beside
 * whether the frame still shows the world's document (decision 0246).
 */
export function vouchedCall<T>(expression: RuntimeCall<T>): RuntimeCall<Vouched<T>> {
  const method: RuntimeMethod = "vouch";
  return methodCall(method, expression) as RuntimeCall<Vouched<T>>;
}

/** The expression that calls a main-world function with `args` (as JSON). */
export function mainWorldCall<N extends MainWorldFunction>(
  name: N,
  ...args: Parameters<MainWorldFunctions[N]>
): RuntimeCall<Awaited<ReturnType<MainWorldFunctions[N]>>> {
  return `(${MAIN_WORLD[name]})(${argumentList(args)})` as RuntimeCall<
    Awaited<ReturnType<MainWorldFunctions[N]>>
  >;
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
export function runtimeFunction<M extends RuntimeMethod>(method: M): RuntimeCall<RuntimeAnswer<M>> {
  return `function (...args) { return __ghostlight.${method}(...args); }` as RuntimeCall<
    RuntimeAnswer<M>
  >;
}

/** The `arguments` of a `Runtime.callFunctionOn` of {@linkcode runtimeFunction}`(method)`. */
export function runtimeArguments<M extends RuntimeMethod>(
  _method: M,
  ...args: Parameters<PageMethods[M]>
): { value: unknown }[] {
  return args.map((value) => ({ value }));
}

/**
 * The value a `Runtime.evaluate` or `Runtime.callFunctionOn` of `call` answered by value (the
 * reply's `result.value`), typed as the call says: the one place a reply becomes a typed answer.
 */
export function valueOf<T>(_call: RuntimeCall<T>, reply: Record<string, unknown>): T {
  return (reply.result as { value?: T } | undefined)?.value as T;
}
