/**
 * Ghostlight's world in each frame of a tab, and every way the service reaches into it: the page
 * runtime's install script and the typed calls into it (all made from `../page_runtime/` by
 * `deno task build:page`, so no page logic is written here as a string), the `ref_N` table that
 * turns an element back into a frame and a local id, and the main frame's reads, sent in one
 * round trip when its world is known and current. One module, because a ref click needs all three
 * at once (decision 0450): a reader follows it here from the call to the evaluation it sends.
 * The sections below keep what each part guarantees.
 *
 * @module
 */

import type { EnableCommand, SequenceCommand } from "../../../shared/browser_protocol.ts";
import { MAX_TITLE_CHARS } from "./landing.ts";
import type {
  Described,
  MainWorldFunctions,
  PackedSnapshot,
  PageMethod,
  PageMethods,
  Snapshot,
  Vouched,
} from "../page_runtime/contract.ts";
import { INSTALL, MAIN_WORLD, RUNTIME_BUILD } from "./runtime_bundle.ts";
import { shownRole } from "../page_runtime/contract.ts";
import { redactSecrets } from "../core/safe_text.ts";
import {
  BrowserError,
  dialogOpenError,
  type MainDocument,
  type TabEvent,
} from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import type { Refusal } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import type { Remembered } from "./outline.ts";
import { cdp, sentFor, type TabTarget } from "../core/target.ts";
import { LANDED_BINDING, reportedWorld } from "./landed_facts.ts";

// What the service sends into pages, all of it made from the page runtime's TypeScript
// (`../page_runtime/`) by `deno task build:page`: the script that installs the runtime in
// Ghostlight's isolated world of a frame, calls into that runtime, and the few self-contained
// functions that run in the page's main world. No page logic is written here as a string.

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
 * A walk's answer (`snapshot`, `findNodes`) as JSON text of its packed form, made in the page
 * (decision 0620): a third of the object form's size on a large page.
 */
export function asPackedWalk(call: RuntimeCall<Snapshot>): RuntimeCall<JsonText<PackedSnapshot>> {
  const method: RuntimeMethod = "packWalk";
  return methodCall(method, call) as RuntimeCall<JsonText<PackedSnapshot>>;
}

/** The value of JSON text made by {@linkcode asPackedWalk}, typed as the call it came from. */
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
 * Runs a main-world call (see {@linkcode mainWorldCall}) in the page's main world and answers its
 * JSON value, typed by the contract. Evaluation goes through CDP, so a page's
 * Content-Security-Policy does not block it.
 */
export async function inMainWorld<T>(target: TabTarget, call: RuntimeCall<T>): Promise<T> {
  const reply = await cdp(target, "Runtime.evaluate", {
    expression: call,
    returnByValue: true,
    awaitPromise: true,
  });
  if (reply.exceptionDetails) {
    // The exception's text is the page's to choose: it is not passed on unfenced.
    throw new ToolError(
      "tool_failure",
      "The page threw an exception while Ghostlight read it.",
      "Check the page's state (read_page) and try again.",
    );
  }
  return valueOf(call, reply);
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

// Refs: the `ref_N` ids read_page and find hand out, and how every ref-taking tool turns one
// back into an element. Each frame of a tab gets Ghostlight's isolated world (see
// `page_runtime/`), whose registry gives every element a local id for as long as it lives; this
// module numbers (frame, registry, local id) triples per tab, so the same element keeps the same
// ref across reads, and a ref from a page that has since navigated is recognised as gone.
// Cross-origin iframes are reached through their own CDP session when Chromium runs them out of
// process.

/** Most refs remembered per tab; beyond it the table starts again (old refs become unknown). */
const MAX_REFS_PER_TAB = 100_000;
/** Most frames followed in one tab. */
export const MAX_FRAMES = 24;
/**
 * How many cross-origin iframes deep, each inside the one before, a page is followed: the same
 * for every read, image and check of a frame, so a frame one of them reaches the others reach too.
 */
export const MAX_NESTING = 4;

/** One frame's isolated world. */
export interface Frame {
  /** `session/frameId`; the session is empty for frames in the tab's own renderer. */
  key: string;
  sessionId?: string;
  frameId: string;
  contextId: number;
  /** The registry's token: a new world (after a navigation) has a new one. */
  token: string;
  /** The document the world belongs to. */
  loaderId?: string;
  /** For a frame reached through a cross-origin iframe: that iframe in its parent frame. */
  parent?: { frameKey: string; localId: number };
  /** The address the policy decides a child frame's document by (see {@linkcode addressOf}). */
  url?: string;
}

/**
 * The policy's word on a frame's document, by its address: null when the call may touch it, else
 * why not. Given by the call (its capabilities, its client and restrictions); each frame inside a
 * page is decided on its own host, not the tab's (decision 0270).
 */
export type FrameGuard = (url: string) => Refusal | null;

/** A frame the policy refuses: nothing of it is read, and none of its elements get refs. */
export class FrameWithheld extends Error {
  constructor(readonly refusal: Refusal) {
    super(`withheld: it shows ${refusal.why}`);
  }
}

interface RefEntry {
  frameKey: string;
  token: string;
  localId: number;
  /**
   * The element's role and name as the latest read that gave the ref out saw them, the name cut:
   * made a label (the role as shown, the name redacted) only when a question asks for it, not
   * for each of the thousands of refs a read may give out (decision 0620).
   */
  read?: { role: string; name: string };
}

/** An element as a read named it: its role and accessible name (page text). */
export interface ElementLabel {
  role: string;
  name: string;
}

/** Ghostlight's per-tab memory of a page. */
export interface TabPages {
  /**
   * The worlds of the frames of the main frame's document {@linkcode TabPages.document}: a world
   * for another document of the main frame takes the place of them all (see
   * {@linkcode rememberMain}).
   */
  frames: Map<string, Frame>;
  /** The main frame's document (`frameId#loaderId`) whose frames `frames` holds. */
  document?: string;
  /**
   * `frameKey#token` (one frame's document) → its element's local id → ref number: a read numbers
   * a thousand elements of one document, looked up by number, not by a string made for each.
   */
  numbers: Map<string, Map<number, number>>;
  entries: Map<number, RefEntry>;
  next: number;
  /** The latest read_page of this tab per scope (filter, depth, ref_id), for `diff`. */
  reads: Map<string, Remembered>;
}

const state = new WeakMap<Workspace, Map<number, TabPages>>();

/** The page memory for one of the workspace's tabs (made on first use, dropped with the tab). */
export function tabPages(workspace: Workspace, tabId: number): TabPages {
  let tabs = state.get(workspace);
  if (!tabs) state.set(workspace, tabs = new Map());
  for (const known of tabs.keys()) if (!workspace.tabs.has(known)) tabs.delete(known);
  let pages = tabs.get(tabId);
  if (!pages) {
    pages = {
      frames: new Map(),
      numbers: new Map(),
      entries: new Map(),
      next: 1,
      reads: new Map(),
    };
    tabs.set(tabId, pages);
  }
  return pages;
}

/**
 * Sends one CDP command to the tab, or to one of its child sessions (out-of-process frames);
 * `options` as `BrowserLink.call` takes them.
 */
export function send(
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  options: { timeoutMs?: number; noEffect?: boolean } = {},
): Promise<Record<string, unknown>> {
  return target.link.call("cdp", {
    tab_id: target.native,
    method,
    params,
    ...(sessionId ? { session_id: sessionId } : {}),
  }, sentFor(target, options));
}

/**
 * How long a read waits for an out-of-process frame's renderer to answer a look that runs no
 * script (its frame tree, Ghostlight's world in it): about what the extension waits for it to
 * take auto-attach (decision 0700), with room for the way there and back. A renderer that does
 * not answer so little is held by its page (decision 0710).
 */
export const FRAME_LOOK_MS = 3_000;

/**
 * How long a read waits for an evaluation in an out-of-process frame (the walk of one frame, its
 * text, Ghostlight's runtime installed): a frame's walk is bounded by its node count and takes a
 * second or two at most on a large page, so one that has not answered in this time waits behind
 * its page's own script (decision 0710).
 */
export const FRAME_READ_MS = 10_000;

/**
 * Sends a command of a read (one that changes nothing on the page) to one of the tab's sessions.
 * In an out-of-process frame's own session it waits at most `ms`, and a renderer that does not
 * answer is held ({@linkcode FrameHeld}): the command leaves nothing of the tab unknown, so the
 * tab is not quarantined for it (decision 0710). The tab's own session is waited for as any
 * command: a renderer held there holds the whole tab, which quarantine is for.
 */
export async function readIn(
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  ms = FRAME_LOOK_MS,
): Promise<Record<string, unknown>> {
  if (!sessionId) return await send(target, undefined, method, params);
  return await send(target, sessionId, method, params, { timeoutMs: ms, noEffect: true })
    .catch((error) => {
      throw heldWhenUnanswered(error);
    });
}

/** A frame read's failure as the read tells it: unanswered is {@linkcode FrameHeld}. */
function heldWhenUnanswered(error: unknown): unknown {
  return error instanceof BrowserError && error.kind === "unanswered" ? new FrameHeld() : error;
}

/** {@linkcode readIn} for a read (`read`, waiting at most `ms`), else {@linkcode send}. */
function readOrSend(
  read: boolean,
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  ms = FRAME_LOOK_MS,
): Promise<Record<string, unknown>> {
  return read
    ? readIn(target, sessionId, method, params, ms)
    : send(target, sessionId, method, params);
}

/** The page opened a JavaScript dialog while a command ran; the page is frozen until answered. */
export class DialogOpened extends Error {
  constructor(readonly type: string, readonly text: string) {
    super(`the page opened a JavaScript ${type} dialog`);
  }
}

/**
 * Sends a command that runs page script. A dialog the script opens (alert, confirm, prompt)
 * holds the command until someone answers it, so this throws {@linkcode DialogOpened} as soon
 * as one opens instead of waiting for the timeout. `noEffect` says the script changes nothing on
 * the page (see `BrowserLink.call`).
 */
export async function sendRacingDialogs(
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown>,
  options: { timeoutMs?: number; noEffect?: boolean } = {},
): Promise<Record<string, unknown>> {
  const sent = target.link.call(
    "cdp",
    {
      tab_id: target.native,
      method,
      params,
      ...(sessionId ? { session_id: sessionId } : {}),
    },
    sentFor(target, {
      timeoutMs: options.timeoutMs ?? 30_000,
      ownDialogs: true,
      ...(options.noEffect ? { noEffect: true } : {}),
    }),
  );
  sent.catch(() => {});
  // No bound of its own: the command always settles (answered, cut off or timed out).
  const opened = target.link.tab(target.native).watch(
    (event) => event.method === "Page.javascriptDialogOpening",
  );
  try {
    const first = await Promise.race<{ done: Record<string, unknown> } | { dialog: TabEvent }>([
      sent.then((done) => ({ done })),
      opened.event.then((event) => event ? { dialog: event } : sent.then((done) => ({ done }))),
    ]);
    if ("dialog" in first) {
      const done = await answeredBefore(target, sent);
      if (done) return done.value;
      const opened = first.dialog.params as { type?: string; message?: string };
      throw new DialogOpened(opened.type ?? "alert", opened.message ?? "");
    }
    return first.done;
  } finally {
    opened.stop();
  }
}

/**
 * Whether `sent` was answered before the dialog opened, its answer only overtaken on the way:
 * a timer the script set can open a dialog right after the script's answer left the page.
 * A command the browser answers itself, sent now, comes back after any answer already on its
 * way, so once it is back an unanswered `sent` is held by the dialog.
 */
async function answeredBefore(
  target: TabTarget,
  sent: Promise<Record<string, unknown>>,
): Promise<{ value: Record<string, unknown> } | null> {
  let answer: { value: Record<string, unknown> } | null = null;
  sent.then((value) => answer = { value }, () => {});
  await target.link.call("cdp", {
    tab_id: target.native,
    method: "Page.getNavigationHistory",
    params: {},
  }, sentFor(target, { timeoutMs: 5_000 })).catch(() => {});
  return answer;
}

/** Whether a command failed because the world or frame it named is gone. */
export function isLostContext(error: unknown): boolean {
  return error instanceof BrowserError && error.kind === "context_lost";
}

/**
 * Makes (or finds) the frame's Ghostlight world of document `loaderId` and answers its registry's
 * token (see {@linkcode installedToken}). `Page.createIsolatedWorld` answers the world of the
 * document the frame shows when it runs, which is not `loaderId`'s when the frame moved on since
 * the look that named it (or, that look's answer being late, long before): a look after it says
 * which, and a world of another document is {@linkcode FrameGone} rather than kept as this one's.
 * Nothing of it changes the page: for a read (`read`) it is sent as one ({@linkcode readIn}).
 */
async function createWorld(
  target: TabTarget,
  sessionId: string | undefined,
  frame: { frameId: string; loaderId?: string },
  read: boolean,
): Promise<{ contextId: number; token: string }> {
  const world = await readOrSend(read, target, sessionId, "Page.createIsolatedWorld", {
    frameId: frame.frameId,
    worldName: WORLD_NAME,
    grantUniveralAccess: false,
  });
  const contextId = world.executionContextId as number;
  if (
    frame.loaderId !== undefined &&
    await currentLoader(target, sessionId, frame.frameId, read) !== frame.loaderId
  ) {
    throw new FrameGone();
  }
  return { contextId, token: await installedToken(target, sessionId, contextId, read) };
}

/**
 * The registry's token of the runtime in the world `contextId`. The runtime is registered for
 * every new document of an observed tab (`PAGE_ENABLE_COMMANDS`), so it is usually there: a
 * small look, and the 58 kB install only when it is missing (a frame in another session, a
 * document older than the registration). For a read (`read`), each evaluation is sent as one
 * ({@linkcode readIn}): the runtime lives in Ghostlight's own world.
 */
async function installedToken(
  target: TabTarget,
  sessionId: string | undefined,
  contextId: number,
  read = false,
): Promise<string> {
  const params = (expression: string) => ({ expression, contextId, returnByValue: true });
  const evaluate = async (expression: string) =>
    ((await readOrSend(
      read,
      target,
      sessionId,
      "Runtime.evaluate",
      params(expression),
      FRAME_READ_MS,
    )).result as { value?: unknown } | undefined)?.value;
  let token = await evaluate(INSTALLED_TOKEN);
  if (typeof token !== "string") token = await evaluate(INSTALL);
  if (typeof token !== "string") {
    throw new ToolError(
      "tool_failure",
      "Ghostlight could not start its reader in this page.",
      "Wait for the page to finish loading (computer wait 1), then try again.",
    );
  }
  return token;
}

interface TreeFrame {
  id: string;
  loaderId: string;
  url?: string;
  securityOrigin?: string;
}

interface FrameTree {
  frame: TreeFrame;
  childFrames?: FrameTree[];
}

/**
 * A frame as the session's frame tree shows it now, or undefined when it does not hold it; for a
 * read (`read`), asked as one ({@linkcode readIn}).
 */
async function frameInTree(
  target: TabTarget,
  sessionId: string | undefined,
  frameId: string,
  read = false,
): Promise<TreeFrame | undefined> {
  const reply = await readOrSend(read, target, sessionId, "Page.getFrameTree");
  const stack = [reply.frameTree as FrameTree];
  while (stack.length) {
    const tree = stack.pop()!;
    if (tree.frame.id === frameId) return tree.frame;
    stack.push(...(tree.childFrames ?? []));
  }
  return undefined;
}

/** The loader (document) a frame shows now, or undefined when the session does not hold it. */
async function currentLoader(
  target: TabTarget,
  sessionId: string | undefined,
  frameId: string,
  read: boolean,
): Promise<string | undefined> {
  return (await frameInTree(target, sessionId, frameId, read))?.loaderId;
}

/**
 * The address a frame's document is decided by: its URL, or for a document with no address of
 * its own (`about:blank`, `about:srcdoc`, whose content its maker writes) the origin it
 * inherited from that maker, so a blank frame written by a refused site is that site's.
 */
function addressOf(frame: TreeFrame): string {
  const url = frame.url ?? "";
  const blank = url === "" || /^about:/i.test(url);
  return blank && /^https?:/i.test(frame.securityOrigin ?? "") ? frame.securityOrigin! : url;
}

/**
 * The world of a frame's current document, made when first needed or after the frame loaded
 * another document (its loader id changed). `read`: it is found for a read, whose commands in
 * a frame's own session are bounded ({@linkcode readIn}).
 */
export async function frameWorld(
  target: TabTarget,
  pages: TabPages,
  where: { sessionId?: string; frameId: string; parent?: Frame["parent"]; loaderId?: string },
  guard?: FrameGuard,
  options: { read?: boolean } = {},
): Promise<Frame> {
  const read = options.read ?? false;
  const key = `${where.sessionId ?? ""}/${where.frameId}`;
  let loaderId = where.loaderId;
  let url: string | undefined;
  if (loaderId === undefined) {
    const seen = await frameInTree(target, where.sessionId, where.frameId, read);
    loaderId = seen?.loaderId;
    url = seen && addressOf(seen);
  }
  if (guard) {
    // Decided before Ghostlight's world is made in it: a refused frame is not touched at all.
    // One whose address this session cannot tell is not entered (fail closed).
    if (url === undefined) throw new Error("the frame's address is not known in this session");
    const refusal = guard(url);
    if (refusal !== null) throw new FrameWithheld(refusal);
  }
  const known = pages.frames.get(key);
  if (known && known.loaderId === loaderId) {
    // The iframe element showing the frame may have been replaced: keep the link current.
    if (where.parent) known.parent = where.parent;
    remember(pages, known);
    return known;
  }
  const world = await createWorld(
    target,
    where.sessionId,
    { frameId: where.frameId, loaderId },
    read,
  );
  const frame: Frame = {
    key,
    sessionId: where.sessionId,
    frameId: where.frameId,
    parent: where.parent,
    ...world,
    loaderId,
    ...(url !== undefined ? { url } : {}),
  };
  if (!where.sessionId && !where.parent) rememberMain(pages, frame);
  else remember(pages, frame);
  return frame;
}

/** Most frame worlds a tab's memory keeps. */
const MAX_REMEMBERED_FRAMES = MAX_FRAMES * 4;

/**
 * Keeps `frame` as the tab's most recently used world. Past {@linkcode MAX_REMEMBERED_FRAMES},
 * the least recently used frames are forgotten, never the main frame's world: a page that
 * replaces its frames without navigating (rotating ads, a feed) would otherwise fill the memory,
 * and emptying it whole in the middle of a read dropped the worlds of the refs that read had just
 * given out. A read enters at most {@linkcode MAX_FRAMES} frames, so its own are the newest.
 */
function remember(pages: TabPages, frame: Frame): void {
  pages.frames.delete(frame.key);
  pages.frames.set(frame.key, frame);
  for (const [key, kept] of pages.frames) {
    if (pages.frames.size <= MAX_REMEMBERED_FRAMES) return;
    if (kept.sessionId || kept.parent) pages.frames.delete(key);
  }
}

/**
 * Keeps `frame`, a world of the tab's main frame. A world of another document than the one the
 * memory holds frames of takes the place of every frame: the frames inside the main frame went
 * with its document, and kept, they would count against a read's bounds and fill the memory
 * until it is cleared in the middle of a read (dropping the worlds of refs that read just gave).
 */
function rememberMain(pages: TabPages, frame: Frame): void {
  const document = `${frame.frameId}#${frame.loaderId}`;
  if (pages.document !== document) {
    pages.frames.clear();
    pages.document = document;
  }
  remember(pages, frame);
}

/**
 * The tab's main frame. When its id is known (a world of an earlier document of the main frame;
 * the id stays with the tab), the world is asked for between two looks at the frame tree in one
 * round trip: when both show the same document, the world is that document's.
 */
export async function mainFrame(target: TabTarget, pages: TabPages): Promise<Frame> {
  const frameId = [...pages.frames.values()].find((frame) => !frame.sessionId && !frame.parent)
    ?.frameId;
  const bracketed = frameId === undefined ? null : await worldBetweenLooks(target, frameId);
  if (bracketed && "contextId" in bracketed) {
    const key = `/${frameId}`;
    const known = pages.frames.get(key);
    if (known?.loaderId === bracketed.loaderId && known.contextId === bracketed.contextId) {
      return known;
    }
    const token = await installedToken(target, undefined, bracketed.contextId);
    const frame: Frame = { key, frameId: frameId!, ...bracketed, token };
    rememberMain(pages, frame);
    return frame;
  }
  const top = bracketed?.top ??
    ((await send(target, undefined, "Page.getFrameTree")).frameTree as FrameTree).frame;
  return await frameWorld(target, pages, { frameId: top.id, loaderId: top.loaderId });
}

/**
 * `Page.createIsolatedWorld` for the main frame `frameId` between two looks at the frame tree:
 * its context and document when both looks show that frame with one document, else what the
 * second look showed; null when the sequence failed (the frame is not the main one any more).
 */
async function worldBetweenLooks(
  target: TabTarget,
  frameId: string,
): Promise<
  { contextId: number; loaderId: string } | { top: FrameTree["frame"] } | null
> {
  const look = { method: "Page.getFrameTree", params: {} };
  let results: Record<string, unknown>[];
  try {
    ({ results } = await target.link.call("cdp.sequence", {
      tab_id: target.native,
      commands: [look, {
        method: "Page.createIsolatedWorld",
        params: { frameId, worldName: WORLD_NAME, grantUniveralAccess: false },
      }, look],
      // None of the three awaits the page, so they go out at once (Chrome runs one session's
      // commands in order): a renderer busy loading answers them in one pause, not three.
      pipeline: true,
    }, sentFor(target)));
  } catch (error) {
    if (isLostContext(error)) return null;
    throw error;
  }
  const before = (results[0].frameTree as FrameTree).frame;
  const after = (results[2].frameTree as FrameTree).frame;
  if (before.id !== frameId || after.id !== frameId || before.loaderId !== after.loaderId) {
    return { top: after };
  }
  return { contextId: results[1].executionContextId as number, loaderId: after.loaderId };
}

/**
 * Evaluates `expression` in the frame's world and returns its JSON value. A world whose frame
 * navigated is gone: {@linkcode FrameGone} is thrown (and the world forgotten) so the caller can
 * make a new one. `loaderJustRead` skips the check of the frame's document when the caller read
 * it from the frame tree just before (as {@linkcode mainFrame} does): one round trip fewer.
 * `checkedInPage` skips it for a runtime method that asks the page itself in the same
 * evaluation (the registry's `current()`); `timeoutMs` bounds the wait. `read` says the
 * expression changes nothing on the page: in an out-of-process frame's own session, the look and
 * the evaluation are then bounded ({@linkcode FRAME_LOOK_MS}, {@linkcode FRAME_READ_MS}), and a
 * renderer that does not answer is {@linkcode FrameHeld}, its tab not quarantined (decision 0710).
 * `lookFirst` says nothing of the call has reached the frame yet (an action's first command in
 * it): in an out-of-process frame's own session the look at the frame's document is then
 * made even where `checkedInPage` would skip it, bounded as a read's, and a renderer that does not
 * answer it is {@linkcode FrameHeld} with the expression not sent; the evaluation keeps its own
 * bound (decisions 0750, 0780).
 */
export async function inFrame<T>(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
  expression: RuntimeCall<T>,
  options: {
    loaderJustRead?: boolean;
    checkedInPage?: boolean;
    timeoutMs?: number;
    read?: boolean;
    lookFirst?: boolean;
  } = {},
): Promise<T> {
  const read = options.read ?? false;
  // A held renderer holds the evaluation too, and an action's would then run once it is free:
  // the bounded look finds it held before the evaluation is sent (decision 0750).
  const lookFirst = (options.lookFirst ?? false) && frame.sessionId !== undefined;
  let reply: Record<string, unknown>;
  try {
    // A world whose document was replaced (even one kept in the back/forward cache) is gone.
    if (
      !options.loaderJustRead && (!options.checkedInPage || lookFirst) &&
      await currentLoader(target, frame.sessionId, frame.frameId, read || lookFirst) !==
        frame.loaderId
    ) {
      pages.frames.delete(frame.key);
      throw new FrameGone();
    }
    const bounded = read && frame.sessionId !== undefined;
    reply = await sendRacingDialogs(target, frame.sessionId, "Runtime.evaluate", {
      expression,
      contextId: frame.contextId,
      returnByValue: true,
      awaitPromise: true,
    }, bounded ? { timeoutMs: FRAME_READ_MS, noEffect: true } : { timeoutMs: options.timeoutMs })
      .catch((error) => {
        throw heldWhenUnanswered(error);
      });
  } catch (error) {
    // The same refusal as for a dialog already open: its words are fenced where it is told.
    if (error instanceof DialogOpened) {
      throw dialogOpenError({ type: error.type, message: error.text });
    }
    if (error instanceof FrameGone) throw error;
    if (!isLostContext(error)) throw error;
    pages.frames.delete(frame.key);
    throw new FrameGone();
  }
  if (reply.exceptionDetails) throw evaluationFailure(reply.exceptionDetails);
  if (noRuntime(reply)) {
    pages.frames.delete(frame.key);
    throw new FrameGone();
  }
  return valueOf(expression, reply);
}

/**
 * What an evaluation that threw means: the model-facing failure with the exception's first line.
 * (A world without the runtime does not throw: its calls answer undefined, see `noRuntime`.)
 */
export function evaluationFailure(exceptionDetails: unknown): ToolError {
  const details = exceptionDetails as { text?: string; exception?: { description?: string } };
  const why = details.exception?.description ?? details.text ?? "unknown exception";
  return new ToolError(
    "tool_failure",
    `Reading the page failed: ${why.split("\n")[0]}`,
    "Wait a moment for the page to settle and try again.",
  );
}

/**
 * What a page whose renderer is held is, in the words every answer says it with (a read's note,
 * a ref's error, a wait's, a fill's): "its page is …".
 */
export const HELD_PAGE = "busy running a script or held by a dialog";

/**
 * A frame whose renderer is held (a script that runs on, a dialog nobody answered): the browser
 * said so before anything was sent to it, which would have waited as long (decision 0700), or a
 * read's bounded command there went unanswered (decision 0710).
 */
export class FrameHeld extends Error {
  constructor() {
    super(`the frame's page is ${HELD_PAGE}`);
  }
}

/** The frame's world went away (navigation); refs into it are gone. */
export class FrameGone extends Error {
  constructor() {
    super("the frame's world is gone");
  }
}

/**
 * The number behind a frame-local element id, minted on first sight. `read` is the element's
 * role and name as the read that gives the ref out saw them: kept (the latest), so a question to
 * the person can say which element a call aims at without reaching the page (decision 0481).
 */
export function refFor(
  pages: TabPages,
  frame: Frame,
  localId: number,
  read?: { role: string; name: string },
): string {
  const document = `${frame.key}#${frame.token}`;
  let numbers = pages.numbers.get(document);
  let number = numbers?.get(localId);
  if (number === undefined) {
    if (pages.entries.size >= MAX_REFS_PER_TAB) {
      pages.numbers.clear();
      pages.entries.clear();
      numbers = undefined;
    }
    if (numbers === undefined) pages.numbers.set(document, numbers = new Map());
    number = pages.next++;
    numbers.set(localId, number);
    pages.entries.set(number, { frameKey: frame.key, token: frame.token, localId });
  }
  if (read) pages.entries.get(number)!.read = { role: read.role, name: cutName(read.name) };
  return `ref_${number}`;
}

/** Longest name a ref's label keeps: the question shows it, the agent had it already. */
const MAX_LABEL_NAME = 150;

/** A name as a ref keeps it: cut to {@linkcode MAX_LABEL_NAME}. */
function cutName(name: string): string {
  return name.length > MAX_LABEL_NAME ? `${name.slice(0, MAX_LABEL_NAME - 1)}…` : name;
}

/** A kept read as a label: the role as shown, the name redacted. */
function labelOf(read: { role: string; name: string }): ElementLabel {
  return { role: shownRole(read.role).slice(0, 40), name: redactSecrets(read.name) };
}

/**
 * The role and name a ref's element had when a read gave the ref out, or null (no such ref in
 * the tab's memory, or one no read named): page text, for the person's question (decision 0481).
 * Never reaches the page, and never a value.
 */
export function refLabel(workspace: Workspace, tabId: number, ref: string): ElementLabel | null {
  const pages = state.get(workspace)?.get(tabId);
  return pages ? labelIn(pages, ref) : null;
}

/** {@linkcode refLabel} in one tab's memory. */
export function labelIn(pages: TabPages, ref: string): ElementLabel | null {
  const match = /^ref_(\d+)$/.exec(ref.trim());
  const read = match ? pages.entries.get(Number(match[1]))?.read : undefined;
  return read ? labelOf(read) : null;
}

/**
 * The error for a read whose page replaced its document again while it was read a second time:
 * a fact about the page, said as one, rather than an internal error.
 */
export function pageChanged(): ToolError {
  return new ToolError(
    "tool_failure",
    "The page changed while it was being read: its document was replaced again as it was read a second time.",
    "Read it again; if the page keeps changing, wait_for what it is loading first.",
  );
}

/**
 * The error for a read from a ref inside a frame whose renderer is held (decision 0710): in
 * Ghostlight's words, as {@linkcode FrameHeld} says it.
 */
export function refHeld(ref: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} is inside a frame whose page is ${HELD_PAGE}, so it could not be read now; the ` +
      "rest of the tab answers as before.",
    "Read the rest of the page meanwhile (read_page without ref_id), and try the ref again " +
      "later; if the tab shows a dialog, answer it (dialog).",
  );
}

/**
 * The error for an action on a ref inside a frame whose renderer is held, found so before the
 * action's input was sent (decision 0750): in Ghostlight's words, as {@linkcode refHeld}. With
 * `scrolled`, the frame answered the scroll to the element and was held only after it.
 */
export function refHeldForAction(ref: string, how: { scrolled?: boolean } = {}): ToolError {
  const done = how.scrolled
    ? "it was scrolled to, but where it is now could not be read"
    : "nothing was sent to it";
  return new ToolError(
    "tool_failure",
    `${ref} is inside a frame whose page is ${HELD_PAGE}, so it could not be reached now: ` +
      `${done}, and the rest of the tab answers as before.`,
    "If the tab shows a dialog, answer it (dialog); otherwise work with the rest of the page " +
      "meanwhile and try the ref again later.",
  );
}

/** The error for a ref that names no element of the page as it is now. */
export function refGone(ref: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} is not on this page any more (the page changed or navigated).`,
    "Call read_page or find again to get current refs.",
  );
}

/**
 * The error for a ref this tab's page memory never gave out: from another tab, made up, or from
 * before the service restarted. Saying the page changed would send the agent looking for a change.
 */
function refUnknown(ref: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${ref} was never given out for this tab: refs come from read_page or find on the same tab ` +
      "(and do not survive a restart of Ghostlight).",
    "Call read_page or find on this tab to get its refs.",
  );
}

/** Where a ref points: the frame's world and the element's id inside it. */
export function lookupRef(
  pages: TabPages,
  ref: string,
  options: { field?: string; tabId?: number } = {},
): { frame: Frame; localId: number } {
  const match = /^ref_(\d+)$/.exec(ref.trim());
  if (!match) {
    throw new ToolError(
      "tool_failure",
      `"${options.field ?? "ref"}" must look like "ref_12" (a ref from read_page or find), ` +
        `not ${JSON.stringify(ref)}.`,
      `Get refs first, e.g. find with {"query": "search box", "tabId": ${
        options.tabId ?? 123
      }}, then pass one of its refs.`,
    );
  }
  const number = Number(match[1]);
  if (number < 1 || number >= pages.next) throw refUnknown(ref);
  const entry = pages.entries.get(number);
  const frame = entry && pages.frames.get(entry.frameKey);
  if (!entry || !frame || frame.token !== entry.token) throw refGone(ref);
  return { frame, localId: entry.localId };
}

/** An element's box in viewport CSS pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The size of the tab's top-level viewport in CSS pixels. */
export async function topViewport(target: TabTarget): Promise<{ width: number; height: number }> {
  const metrics = await send(target, undefined, "Page.getLayoutMetrics");
  const view = metrics.cssLayoutViewport as { clientWidth: number; clientHeight: number };
  return { width: view.clientWidth, height: view.clientHeight };
}

/** Whether a box in top-level viewport pixels shows any part inside the viewport. */
export function intersects(box: Box, viewport: { width: number; height: number }): boolean {
  return box.x + box.width > 0 && box.y + box.height > 0 && box.x < viewport.width &&
    box.y < viewport.height;
}

/**
 * The offset of a frame's viewport inside the top-level viewport. `read`: each parent is asked as
 * a read ({@linkcode inFrame}), bounded in an out-of-process frame's own session.
 */
export async function frameOrigin(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
  options: { read?: boolean } = {},
): Promise<{ x: number; y: number }> {
  let x = 0, y = 0;
  let current: Frame | undefined = frame;
  for (let hops = 0; current?.parent && hops < MAX_FRAMES; hops++) {
    const parent = pages.frames.get(current.parent.frameKey);
    if (!parent) break;
    const origin = await inFrame(
      target,
      pages,
      parent,
      runtimeCall("contentOrigin", current.parent.localId),
      options,
    );
    if (!origin) break;
    x += origin.x;
    y += origin.y;
    current = parent;
  }
  return { x, y };
}

/** What {@linkcode resolveRef} found. */
export interface ResolvedRef {
  ref: string;
  role: string;
  name: string;
  value?: string;
  states?: string[];
  enabled: boolean;
  /** Border box in top-level viewport CSS pixels (what Input.dispatchMouseEvent takes). */
  box: Box;
  /** The box's centre, where a click should land. */
  centre: { x: number; y: number };
  visible: boolean;
  /** Whether any part of the box is inside the viewport now. */
  inViewport: boolean;
  /**
   * Calls a runtime method on the element (its number first, then `args`) that may change the
   * page: in an out-of-process frame a bounded look goes first, and a frame held before the
   * method is sent fails the call with {@linkcode refHeldForAction}; the method keeps its bound.
   */
  call<M extends ElementMethod>(method: M, ...args: ElementArgs<M>): Promise<RuntimeAnswer<M>>;
  /**
   * Calls a runtime method on the element that changes nothing on the page, as a read: bounded in
   * an out-of-process frame, a held frame failing it with {@linkcode refHeldForAction}, the tab
   * not quarantined (decision 0780).
   */
  read<M extends ElementMethod>(method: M, ...args: ElementArgs<M>): Promise<RuntimeAnswer<M>>;
}

/**
 * Turns a ref into its element's current box and centre in top-level viewport CSS pixels, for
 * clicks, hovers and scroll_to. `scroll: true` scrolls it into view (centred) first. Throws the
 * model-facing error when the ref is malformed or its element is gone, or is inside a frame whose
 * renderer is held: finding the element changes nothing on the page, so in an out-of-process
 * frame it is bounded as a read's commands are, and the scroll is sent only once a bounded look
 * found the frame answering (decision 0750). What the caller sends after keeps its own bound.
 * `scrolled` says the call scrolled the element already (a held frame is then told so).
 *
 * Signature for other tools: `resolveRef(workspace, target, ref, { scroll?, field?, scrolled? })`.
 */
export async function resolveRef(
  workspace: Workspace,
  target: TabTarget,
  ref: string,
  options: { scroll?: boolean; field?: string; scrolled?: boolean } = {},
): Promise<ResolvedRef> {
  const pages = tabPages(workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { field: options.field, tabId: target.tabId });
  let described: Described | null;
  let scrolled = options.scrolled ?? false;
  let origin: { x: number; y: number };
  try {
    if (options.scroll) {
      await inFrame(target, pages, frame, runtimeCall("scrollTo", localId), { lookFirst: true });
      scrolled = true;
    }
    described = await inFrame(target, pages, frame, runtimeCall("describe", localId), {
      read: true,
    });
    if (!described || !described.box) throw refGone(ref);
    origin = await frameOrigin(target, pages, frame, { read: true });
  } catch (error) {
    if (error instanceof FrameGone) throw refGone(ref);
    if (error instanceof FrameHeld) throw refHeldForAction(ref, { scrolled });
    throw error;
  }
  const box = {
    x: described.box.x + origin.x,
    y: described.box.y + origin.y,
    width: described.box.width,
    height: described.box.height,
  };
  // A frame in another origin only knows its own viewport: check the tab's too.
  const inViewport = described.box.inViewport &&
    (!frame.parent || intersects(box, await topViewport(target)));
  return {
    ref,
    role: described.role,
    name: described.name,
    ...(described.value !== undefined ? { value: described.value } : {}),
    ...(described.states ? { states: described.states } : {}),
    enabled: described.enabled,
    box,
    centre: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
    visible: described.box.visible,
    inViewport,
    call: <M extends ElementMethod>(method: M, ...args: ElementArgs<M>) =>
      onElement(elementCall(method, localId, ...args), { lookFirst: true }),
    read: <M extends ElementMethod>(method: M, ...args: ElementArgs<M>) =>
      onElement(elementCall(method, localId, ...args), { read: true }),
  };

  async function onElement<T>(
    call: RuntimeCall<T>,
    how: { lookFirst?: boolean; read?: boolean },
  ): Promise<T> {
    try {
      return await inFrame<T>(target, pages, frame, call, how);
    } catch (error) {
      if (error instanceof FrameGone) throw refGone(ref);
      if (error instanceof FrameHeld) throw refHeldForAction(ref, { scrolled });
      throw error;
    }
  }
}

// Every read of the main frame goes through here, in one round trip when the frame's Ghostlight
// world is known and current: the evaluation travels in one `cdp.sequence` followed by a look at
// the frame tree, with any further commands the caller needs after them. The answer is used only
// when that look shows the document the world belongs to: the world's execution context is one
// document's, so the value is that document's, and the look after it says the frame still shows
// it (decision 0196); a read whose value says so itself (`pageInfo`'s, the settle read that
// travels after an action's input, and the walk and the page's text through the runtime's `vouch`)
// sends no look (0218, 0243, 0246). Otherwise the world is forgotten and made again from the tree
// the sequence just read (the refs section above), and the read runs there. Refs in other frames keep
// `inFrame`, which checks their frame before each evaluation.

/** A CDP command sent beside the evaluation (it may ask about an object an earlier one found). */
export type Command = SequenceCommand;

/** What {@linkcode readMainFrame} read. */
export interface MainFrameRead<T> {
  value: T | null;
  /** The main frame's world the value came from. */
  frame: Frame;
  /** The main frame and the document it showed when read. */
  frameId: string;
  loaderId: string;
  /** The replies of the commands sent beside it, in order. */
  beside: Record<string, unknown>[];
}

interface TopFrame {
  id: string;
  loaderId: string;
}

/** Per tab's page memory: the main document whose named world it took last. */
const adopted = new WeakMap<TabPages, MainDocument>();

/**
 * The main frame's world: the one frame with no parent or session in this tab's page memory, or,
 * when the tab's events say the main frame committed a document since and that document's
 * runtime named its world (decision 0244), that world, kept in the page memory from now on. A
 * navigation's new document is then read in one trip, its world never asked for. Every read in
 * it still checks the frame shows that document.
 */
export function knownMain(target: TabTarget, pages: TabPages): Frame | undefined {
  let found: Frame | undefined;
  for (const frame of pages.frames.values()) {
    if (!frame.sessionId && !frame.parent) found = frame;
  }
  // Each note is taken once: a read that finds its world gone (the tab moved on in a way its
  // events did not tell) leaves the ordinary path to find the world, and a stale note must not
  // displace the world that path made. Once taken, nothing is parsed again on this hot path.
  const document = target.link.tab(target.native).mainDocument;
  if (!document || adopted.get(pages) === document) return found;
  const reported = reportedWorld(document);
  if (!reported) return found;
  adopted.set(pages, document);
  if (
    found?.frameId === reported.frameId && found.loaderId === reported.loaderId &&
    found.contextId === reported.contextId
  ) return found;
  if (found) pages.frames.delete(found.key);
  const key = `/${reported.frameId}`;
  const world: Frame = {
    key,
    frameId: reported.frameId,
    contextId: reported.contextId,
    token: reported.token,
    loaderId: reported.loaderId,
  };
  rememberMain(pages, world);
  return world;
}

/** How a read is made. */
export interface ReadOptions {
  /**
   * The expression answers at once, never with a promise (`pageInfo`, the walk, the page's text,
   * the state before an action): a bare read's commands then go out together instead of each
   * after the last one's answer. Chrome runs one session's commands in order, and an evaluation
   * that does not await a promise is over when the next command starts, so the look still comes
   * after it. Commands beside such a read go out with it too, before the read is known to be
   * current: only questions that do no harm on a stale page may travel beside it (type's
   * listener questions, decision 0205), never an action.
   */
  synchronous?: boolean;
  /**
   * The expression's value says itself whether its world's document is the one the frame shows
   * (`current`, the runtime's own knowledge: that document, not hidden in the back/forward
   * cache), as `pageInfo`'s does. A bare read in the main frame's known world is then the
   * evaluation alone, without the look after it (decision 0218); a value that does not say
   * `current: true` is read again the ordinary way.
   */
  vouched?: boolean;
}

function evaluation(expression: string, contextId: number, options: ReadOptions = {}): Command {
  return {
    method: "Runtime.evaluate",
    params: { expression, contextId, returnByValue: true, awaitPromise: !options.synchronous },
  };
}

const FRAME_TREE: Command = { method: "Page.getFrameTree", params: {} };

/** Why the one-round-trip read could not be used, and what the frame showed when known. */
interface Missed {
  missed: true;
  /** The main frame's document as the sequence saw it last, when it got that far. */
  top?: TopFrame;
}

/**
 * Evaluates `expression` in the main frame's world and sends `beside` after it, in one round
 * trip when the world is known and current. A dialog that holds the page fails it (as every
 * renderer-bound command does); an exception thrown by the expression itself is the caller's
 * failure, as in `inFrame`.
 */
export async function readMainFrame<T>(
  target: TabTarget,
  pages: TabPages,
  expression: RuntimeCall<T>,
  beside: Command[] = [],
  options: ReadOptions = {},
): Promise<MainFrameRead<T>> {
  const known = knownMain(target, pages);
  let top: TopFrame | undefined;
  if (known) {
    const quick = await readCurrent<T>(target, known, expression, beside, options);
    if (!("missed" in quick)) return quick;
    pages.frames.delete(known.key);
    top = quick.top;
  }
  return await slowRead<T>(target, pages, { expression, beside, top });
}

/**
 * {@linkcode readMainFrame} for an expression that answers at once and whose value does not say
 * itself whether its document is shown (the walk, the page's text): the runtime's `vouch` says it
 * beside the value, so the read in a known, current world is the evaluation alone (decision 0246).
 * A freshly loaded page answers a look at the frame tree only after its first frame; the
 * evaluation does not wait for it. `beside` travels in the same round trip and must do no harm
 * on a stale page (decision 0590).
 */
export async function readVouched<T>(
  target: TabTarget,
  pages: TabPages,
  expression: RuntimeCall<T>,
  beside: Command[] = [],
): Promise<MainFrameRead<T>> {
  const read = await readMainFrame(
    target,
    pages,
    vouchedCall(expression),
    beside,
    { synchronous: true, vouched: true },
  );
  return { ...read, value: read.value?.value ?? null };
}

/**
 * As {@linkcode readMainFrame}, but a known world that is no longer current gives null instead
 * of a new world: for a read that races a navigation, where a world made now could belong to the
 * old document.
 */
export async function readKnownWorld<T>(
  target: TabTarget,
  pages: TabPages,
  expression: RuntimeCall<T>,
): Promise<MainFrameRead<T> | null> {
  const known = knownMain(target, pages);
  return known
    ? await readWorld<T>(target, known, expression)
    : await readMainFrame<T>(target, pages, expression);
}

/**
 * The one-round-trip read in `world`, which must be the main frame's: null, having used nothing
 * it read, when the world is not the main frame's current one (a ref into it is then gone) or
 * the read failed.
 */
export async function readWorld<T>(
  target: TabTarget,
  world: Frame,
  expression: RuntimeCall<T>,
  beside: Command[] = [],
  options: ReadOptions = {},
): Promise<MainFrameRead<T> | null> {
  const read = await readCurrent<T>(target, world, expression, beside, {
    ...options,
    quietly: true,
  });
  return "missed" in read ? null : read;
}

async function readCurrent<T>(
  target: TabTarget,
  world: Frame,
  expression: RuntimeCall<T>,
  beside: Command[],
  options: ReadOptions & { quietly?: boolean } = {},
): Promise<MainFrameRead<T> | Missed> {
  if (world.sessionId || world.parent) return { missed: true };
  // A read whose value says whether the frame still shows the world's document needs no look
  // after it (decision 0218), with or without questions beside it: their replies are used only
  // when the value says so (decision 0590).
  const look = !options.vouched;
  let results: Record<string, unknown>[];
  try {
    ({ results } = await target.link.call("cdp.sequence", {
      tab_id: target.native,
      // No look before the evaluation: the context is the world's document's alone (an
      // evaluation in a context that went with its document fails), so only whether the frame
      // still shows that document is open, and the look after answers it (decision 0196).
      commands: [
        evaluation(expression, world.contextId, options),
        ...look ? [FRAME_TREE] : [],
        ...beside,
      ],
      // Commands beside a synchronous read go out with it (one that names an earlier reply's
      // object waits for that reply): they must do no harm when the read turns out stale.
      ...(options.synchronous ? { pipeline: true } : {}),
    }, sentFor(target)));
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "dialog_open") throw error;
    // The world went with its document: read again in the current one.
    if (options.quietly || isLostContext(error)) return { missed: true };
    throw error;
  }
  return answerOf<T>(world, results, { quietly: options.quietly ?? false, look });
}

/**
 * The read's answer from its sequence's replies (the evaluation, then, with `look`, the look at
 * the frame tree and the commands beside it): used only when the frame shows the world's
 * document, as the look or the value itself says.
 */
function answerOf<T>(
  world: Frame,
  results: Record<string, unknown>[],
  how: { quietly: boolean; look: boolean },
): MainFrameRead<T> | Missed {
  const { quietly, look } = how;
  // Without a look the frame's document is the world's, as its value says (checked below).
  const after = look ? (results[1].frameTree as { frame: TopFrame }).frame : undefined;
  if (after && (after.id !== world.frameId || after.loaderId !== world.loaderId)) {
    return { missed: true, top: after };
  }
  const reply = results[0] as { result?: { value?: T }; exceptionDetails?: unknown };
  if (reply.exceptionDetails) {
    const failure = evaluationFailure(reply.exceptionDetails);
    // Without a look nothing says the world's document is still shown (one kept in the
    // back/forward cache still answers): the slow path reads again, and fails if it fails there.
    if (quietly || !look) return { missed: true, top: after };
    throw failure;
  }
  // The world holds no runtime (it answered undefined): read again where one is made.
  if (noRuntime(reply)) return { missed: true, top: after };
  const value = reply.result?.value ?? null;
  if (!look && (value as { current?: unknown } | null)?.current !== true) return { missed: true };
  return {
    value,
    frame: world,
    frameId: world.frameId,
    loaderId: after?.loaderId ?? world.loaderId ?? "",
    beside: results.slice(look ? 2 : 1),
  };
}

/**
 * {@linkcode readWorld} as the two steps that open a page program (decision 0239): the
 * evaluation, which must answer at once, and the look at the frame tree go out together, and the
 * steps after them may be aimed by their replies (the program names them `lookup` and `look`).
 * Null for a world outside the main frame, or one whose document is not known.
 */
export function leadingRead<T>(world: Frame, expression: RuntimeCall<T>): LeadingRead<T> | null {
  if (world.sessionId || world.parent || !world.loaderId) return null;
  return {
    evaluate: evaluation(expression, world.contextId, { synchronous: true }),
    look: FRAME_TREE,
    frame: { id: world.frameId, loaderId: world.loaderId },
    answer(lookup, look) {
      const read = answerOf<T>(world, [lookup, look], { quietly: true, look: true });
      return "missed" in read ? null : { ...read, beside: [] };
    },
  };
}

/** A read that opens a page program: its two commands, and its answer from their replies. */
export interface LeadingRead<T> {
  evaluate: Command;
  look: Command;
  /** The document the world belongs to: later steps go out only while the look shows it. */
  frame: { id: string; loaderId: string };
  /** The read's answer: null when the world was not current. */
  answer(lookup: Record<string, unknown>, look: Record<string, unknown>): MainFrameRead<T> | null;
}

/** Where in a leading evaluation's reply its value is. */
export const VALUE_PATH = ["result", "value"];

/** A read that travels at the end of another sequence (decision 0212). */
export interface TrailingRead<T> {
  /** The command to append: it goes out only after every earlier command replied. */
  command: Command;
  /** The answer from the command's reply, as {@linkcode readWorld}'s: null on a miss. */
  answer(reply: Record<string, unknown>): MainFrameRead<T> | null;
}

/**
 * {@linkcode readWorld} as a command another sequence carries after its own (an action's input),
 * so the read costs no round trip of its own: the evaluation goes out once every earlier command
 * replied (it sees their effects). Its value must say whether its document is still the one shown
 * (`current`, as a vouched read's, decision 0218), so no look at the frame tree waits behind it
 * (decision 0243). A failure, which the extension answers as a reply, and a value that does not
 * say `current: true` are misses.
 */
export function trailingRead<T>(
  world: Frame,
  expression: RuntimeCall<T>,
): TrailingRead<T> | null {
  if (world.sessionId || world.parent) return null;
  return {
    command: { ...evaluation(expression, world.contextId), afterReplies: true as const },
    answer(reply) {
      if (!reply || "failed" in reply) return null;
      const read = answerOf<T>(world, [reply], { quietly: true, look: false });
      return "missed" in read ? null : read;
    },
  };
}

/** The ordinary path: the world made again where needed, then the read in it. */
async function slowRead<T>(
  target: TabTarget,
  pages: TabPages,
  read: { expression: RuntimeCall<T>; beside: Command[]; top?: TopFrame },
): Promise<MainFrameRead<T>> {
  // The frame tree was just read, by the sequence or by mainFrame: inFrame need not look again.
  const once = { loaderJustRead: true };
  // A world is made for the document a look showed; gone when the frame moved on since.
  const readAt = async (top: TopFrame | undefined) => {
    const frame = top
      ? await frameWorld(target, pages, { frameId: top.id, loaderId: top.loaderId })
      : await mainFrame(target, pages);
    return { frame, value: await inFrame<T>(target, pages, frame, read.expression, once) };
  };
  let frame: Frame;
  let value: T;
  try {
    ({ frame, value } = await readAt(read.top));
  } catch (error) {
    if (!(error instanceof FrameGone)) throw error;
    // Gone twice in a row: the page is still changing, which the caller is told as such.
    ({ frame, value } = await readAt(undefined).catch((again) => {
      throw again instanceof FrameGone ? pageChanged() : again;
    }));
  }
  const results = read.beside.length === 0 ? [] : (await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: read.beside,
  }, sentFor(target))).results;
  return {
    value: value ?? null,
    frame,
    frameId: frame.frameId,
    loaderId: frame.loaderId ?? "",
    beside: results,
  };
}

/** Evaluates in the main frame's world and returns its JSON value (see the module's note). */
export async function inMainFrame<T>(
  target: TabTarget,
  pages: TabPages,
  expression: RuntimeCall<T>,
  options: ReadOptions = {},
): Promise<T> {
  return (await readMainFrame<T>(target, pages, expression, [], options)).value as T;
}

/**
 * The URL and title of the page a tab shows now, and the HTTP status of its document (0 when
 * unknown), read in Ghostlight's isolated world: the page's scripts can redefine
 * `document.title` or `location` in their own world, not in this one.
 */
export async function pageInfo(
  workspace: Workspace,
  target: TabTarget,
): Promise<{ url: string; title: string; status: number }> {
  const { url, title, status } = await inMainFrame(
    target,
    tabPages(workspace, target.tabId),
    runtimeCall("pageInfo", MAX_TITLE_CHARS),
    { synchronous: true, vouched: true },
  );
  return { url, title, status };
}
