/**
 * Refs: the `ref_N` ids read_page and find hand out, and how every ref-taking tool turns one
 * back into an element. Each frame of a tab gets Ghostlight's isolated world (see
 * `page_runtime/`), whose registry gives every element a local id for as long as it lives; this
 * module numbers (frame, registry, local id) triples per tab, so the same element keeps the same
 * ref across reads, and a ref from a page that has since navigated is recognised as gone.
 * Cross-origin iframes are reached through their own CDP session when Chromium runs them out of
 * process.
 *
 * @module
 */

import { dialogOpenError, type TabEvent } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import type { Refusal } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import type { Described } from "../page_runtime/contract.ts";
import {
  type ElementArgs,
  elementCall,
  type ElementMethod,
  INSTALL,
  INSTALLED_TOKEN,
  noRuntime,
  type RuntimeAnswer,
  type RuntimeCall,
  runtimeCall,
  valueOf,
  WORLD_NAME,
} from "./in_page.ts";
import type { Remembered } from "./outline.ts";
import type { TabTarget } from "../core/target.ts";

/** Most refs remembered per tab; beyond it the table starts again (old refs become unknown). */
const MAX_REFS_PER_TAB = 100_000;
/** Most frames followed in one tab. */
export const MAX_FRAMES = 24;

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
}

/** Ghostlight's per-tab memory of a page. */
export interface TabPages {
  frames: Map<string, Frame>;
  /** `frameKey#token#localId` → ref number. */
  numbers: Map<string, number>;
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

/** Sends one CDP command to the tab, or to one of its child sessions (out-of-process frames). */
export function send(
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return target.link.call("cdp", {
    tab_id: target.native,
    method,
    params,
    ...(sessionId ? { session_id: sessionId } : {}),
  });
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
 * as one opens instead of waiting for the timeout.
 */
export async function sendRacingDialogs(
  target: TabTarget,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown>,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  const sent = target.link.call("cdp", {
    tab_id: target.native,
    method,
    params,
    ...(sessionId ? { session_id: sessionId } : {}),
  }, { timeoutMs, ownDialogs: true });
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
  }, { timeoutMs: 5_000 }).catch(() => {});
  return answer;
}

/** Whether a command failed because the world or frame it named is gone. */
export function isLostContext(error: unknown): boolean {
  return /context with specified id|execution context was destroyed|cannot find context|no frame|frame.*not found|session.*not found|no session/i
    .test((error as Error)?.message ?? "");
}

/**
 * Makes (or finds) the frame's Ghostlight world and answers its registry's token (see
 * {@linkcode installedToken}).
 */
async function createWorld(
  target: TabTarget,
  sessionId: string | undefined,
  frameId: string,
): Promise<{ contextId: number; token: string }> {
  const world = await send(target, sessionId, "Page.createIsolatedWorld", {
    frameId,
    worldName: WORLD_NAME,
    grantUniveralAccess: false,
  });
  const contextId = world.executionContextId as number;
  return { contextId, token: await installedToken(target, sessionId, contextId) };
}

/**
 * The registry's token of the runtime in the world `contextId`. The runtime is registered for
 * every new document of an observed tab (`PAGE_ENABLE_COMMANDS`), so it is usually there: a
 * small look, and the 58 kB install only when it is missing (a frame in another session, a
 * document older than the registration).
 */
async function installedToken(
  target: TabTarget,
  sessionId: string | undefined,
  contextId: number,
): Promise<string> {
  const evaluate = async (expression: string) =>
    ((await send(target, sessionId, "Runtime.evaluate", {
      expression,
      contextId,
      returnByValue: true,
    })).result as { value?: unknown } | undefined)?.value;
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

/** A frame as the session's frame tree shows it now, or undefined when it does not hold it. */
async function frameInTree(
  target: TabTarget,
  sessionId: string | undefined,
  frameId: string,
): Promise<TreeFrame | undefined> {
  const reply = await send(target, sessionId, "Page.getFrameTree");
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
): Promise<string | undefined> {
  return (await frameInTree(target, sessionId, frameId))?.loaderId;
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
 * another document (its loader id changed).
 */
export async function frameWorld(
  target: TabTarget,
  pages: TabPages,
  where: { sessionId?: string; frameId: string; parent?: Frame["parent"]; loaderId?: string },
  guard?: FrameGuard,
): Promise<Frame> {
  const key = `${where.sessionId ?? ""}/${where.frameId}`;
  let loaderId = where.loaderId;
  let url: string | undefined;
  if (loaderId === undefined) {
    const seen = await frameInTree(target, where.sessionId, where.frameId);
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
    return known;
  }
  if (pages.frames.size >= MAX_FRAMES * 4) pages.frames.clear();
  const world = await createWorld(target, where.sessionId, where.frameId);
  const frame: Frame = {
    key,
    sessionId: where.sessionId,
    frameId: where.frameId,
    parent: where.parent,
    ...world,
    loaderId,
    ...(url !== undefined ? { url } : {}),
  };
  pages.frames.set(key, frame);
  return frame;
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
    pages.frames.set(key, frame);
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
    }));
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
 * evaluation (the registry's `current()`); `timeoutMs` bounds the wait.
 */
export async function inFrame<T>(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
  expression: RuntimeCall<T>,
  options: { loaderJustRead?: boolean; checkedInPage?: boolean; timeoutMs?: number } = {},
): Promise<T> {
  let reply: Record<string, unknown>;
  try {
    // A world whose document was replaced (even one kept in the back/forward cache) is gone.
    if (
      !options.loaderJustRead && !options.checkedInPage &&
      await currentLoader(target, frame.sessionId, frame.frameId) !== frame.loaderId
    ) {
      pages.frames.delete(frame.key);
      throw new FrameGone();
    }
    reply = await sendRacingDialogs(target, frame.sessionId, "Runtime.evaluate", {
      expression,
      contextId: frame.contextId,
      returnByValue: true,
      awaitPromise: true,
    }, options.timeoutMs);
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

/** The frame's world went away (navigation); refs into it are gone. */
export class FrameGone extends Error {
  constructor() {
    super("the frame's world is gone");
  }
}

/** The number behind a frame-local element id, minted on first sight. */
export function refFor(pages: TabPages, frame: Frame, localId: number): string {
  const key = `${frame.key}#${frame.token}#${localId}`;
  let number = pages.numbers.get(key);
  if (number === undefined) {
    if (pages.entries.size >= MAX_REFS_PER_TAB) {
      pages.numbers.clear();
      pages.entries.clear();
    }
    number = pages.next++;
    pages.numbers.set(key, number);
    pages.entries.set(number, { frameKey: frame.key, token: frame.token, localId });
  }
  return `ref_${number}`;
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

/** The offset of a frame's viewport inside the top-level viewport. */
export async function frameOrigin(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
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
  /** Calls a runtime method on the element (its number first, then `args`). */
  call<M extends ElementMethod>(method: M, ...args: ElementArgs<M>): Promise<RuntimeAnswer<M>>;
}

/**
 * Turns a ref into its element's current box and centre in top-level viewport CSS pixels, for
 * clicks, hovers and scroll_to. `scroll: true` scrolls it into view (centred) first. Throws the
 * model-facing error when the ref is malformed or its element is gone.
 *
 * Signature for other tools: `resolveRef(workspace, target, ref, { scroll?, field? })`.
 */
export async function resolveRef(
  workspace: Workspace,
  target: TabTarget,
  ref: string,
  options: { scroll?: boolean; field?: string } = {},
): Promise<ResolvedRef> {
  const pages = tabPages(workspace, target.tabId);
  const { frame, localId } = lookupRef(pages, ref, { field: options.field, tabId: target.tabId });
  let described: Described | null;
  try {
    if (options.scroll) {
      await inFrame(target, pages, frame, runtimeCall("scrollTo", localId));
    }
    described = await inFrame(target, pages, frame, runtimeCall("describe", localId));
  } catch (error) {
    if (error instanceof FrameGone) throw refGone(ref);
    throw error;
  }
  if (!described || !described.box) throw refGone(ref);
  const origin = await frameOrigin(target, pages, frame);
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
    call: async <M extends ElementMethod>(method: M, ...args: ElementArgs<M>) => {
      try {
        return await inFrame<RuntimeAnswer<M>>(
          target,
          pages,
          frame,
          elementCall(method, localId, ...args),
        );
      } catch (error) {
        if (error instanceof FrameGone) throw refGone(ref);
        throw error;
      }
    },
  };
}
