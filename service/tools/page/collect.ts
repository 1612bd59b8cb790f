/**
 * Collects the outline of a whole tab: the main frame's walk, with every iframe the walk could
 * not enter itself (cross-origin ones) read through its own world and spliced in beneath it.
 *
 * @module
 */

import type { Capability } from "../../catalog/mod.ts";
import { BrowserError } from "../../browser/mod.ts";
import type { ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import {
  asPackedWalk,
  type Command,
  type Frame,
  FrameGone,
  type FrameGuard,
  FrameHeld,
  FrameWithheld,
  frameWorld,
  HELD_PAGE,
  inFrame,
  type JsonText,
  lookupRef,
  MAX_FRAMES,
  MAX_NESTING,
  pageChanged,
  parseJson,
  readIn,
  readVouched,
  refFor,
  refGone,
  refHeld,
  type RuntimeCall,
  runtimeCall,
  send,
  type TabPages,
} from "./frames.ts";
import { sentFor, type TabTarget } from "../core/target.ts";
import type {
  FrameUnder,
  PackedNode,
  PackedSnapshot,
  Snapshot,
  SnapshotNode,
} from "../page_runtime/contract.ts";
import type { OutlineNode } from "./outline.ts";
import type { FindSpec } from "./rank.ts";

/** Most nodes one frame's walk returns; the walk counts the rest as omitted. */
export const MAX_NODES = 20_000;

/** A frame's walk as the runtime answers it, its root still there. */
type Walk = Extract<Snapshot, { token: string }>;

/** A collected node, with where its element lives (for boxes). */
export interface CollectedNode extends OutlineNode {
  at?: { frame: Frame; localId: number };
}

/** The outline of a tab. */
export interface Collected {
  url: string;
  /** The page's title, redacted; "" for a collection with `find`, whose callers show none. */
  title: string;
  nodes: CollectedNode[];
  omitted: number;
  cutByDepth: number;
  /**
   * Cross-origin frames that could not be read: the ref of each one's iframe element and why, in
   * Ghostlight's words only (see {@linkcode UNREAD}), as they are shown outside the fence.
   */
  unreadFrames: string[];
  /**
   * Frames the policy refuses, by the ref of their iframe element, with why (in words free of
   * the page's: see {@linkcode Refusal}). Nothing inside them was read or given a ref.
   */
  withheldFrames: { ref: string; why: string }[];
  /**
   * Set when the main frame's walk was cut in the page (decision 0441): the display lines, nodes
   * and elements it left out, and the biggest sections of the outline walked, with refs.
   * `walkedToEnd` false: the walk stopped once the cut was certain (decision 0680), so these
   * count only the part walked and the page holds more.
   */
  rest?: {
    lines: number;
    nodes: number;
    elements: number;
    sections: CollectedNode[];
    walkedToEnd: boolean;
  };
  /** The replies of {@linkcode WalkOptions.beside}, in order. */
  beside: Record<string, unknown>[];
}

/** What to walk. */
export interface WalkOptions {
  filter: "interactive" | "all";
  depth?: number;
  /** A ref whose subtree is read instead of the whole page. */
  root?: string;
  /** Also return hint words and text runs' owners (for find). */
  hints?: boolean;
  /**
   * Only the nodes that may rank among the best `keep` for `query` (of `role`), ranked in each
   * document, and the frame nodes; `filter` "all" with hints (decision 0234).
   */
  find?: FindSpec;
  /** The policy's word on each frame inside the page, before it is entered. */
  guard: FrameGuard;
  /**
   * Cut the first frame's walk in the page to the lines `maxChars` can show (`flat` for the
   * interactive filter), unless it meets a frame the service must read (decision 0441).
   */
  cut?: { maxChars: number; flat: boolean };
  /**
   * Questions for the tab that travel in the main frame walk's round trip (decision 0590); they
   * must do no harm on a stale page. A walk from a ref sends them on their own.
   */
  beside?: Command[];
}

/**
 * The walk's expression, answering its outline as one JSON string: Chrome hands a string on as it
 * is, where an object of thousands of nodes is converted value by value on its way out of the
 * renderer (about 800 kB on the 3,000-row page: 330–1,200 ms as an object, 170–250 as text,
 * measured side by side; decision 0235). Its nodes are packed (decision 0620).
 */
function snapshotCall(
  options: WalkOptions & { localRoot?: number },
): RuntimeCall<JsonText<PackedSnapshot>> {
  const call = options.find && options.localRoot === undefined
    ? runtimeCall("findNodes", { ...options.find, limit: MAX_NODES })
    : runtimeCall("snapshot", {
      filter: options.filter,
      ...(options.depth !== undefined ? { depth: options.depth } : {}),
      ...(options.localRoot !== undefined ? { root: options.localRoot } : {}),
      hints: options.hints ?? false,
      limit: MAX_NODES,
      ...(options.cut ? { cut: options.cut } : {}),
    });
  return asPackedWalk(call);
}

/** A walk's answer from its packed form (see `page_runtime/pack.ts`). */
export function unpackWalk(packed: PackedSnapshot): Snapshot {
  if ("gone" in packed) return packed;
  const { roles, nodes, rest, ...head } = packed;
  const unpack = ([id, depth, place, name, more]: PackedNode): SnapshotNode => {
    const role = roles[place];
    if (role === undefined) throw new Error(`the walk named no role ${place}`);
    return more ? { id, depth, role, name, ...more } : { id, depth, role, name };
  };
  return {
    ...head,
    nodes: nodes.map(unpack),
    ...(rest ? { rest: { ...rest, sections: rest.sections.map(unpack) } } : {}),
  };
}

/**
 * A walk's world must be the frame's: a registry with another token is another document's. `text`
 * is the walk as {@linkcode snapshotCall} answers it. A walk whose root element is gone (or that
 * did not answer) throws {@linkcode FrameGone}, which a walk from a ref reports as the ref gone.
 */
function checkedWalk(
  pages: TabPages,
  frame: Frame,
  text: JsonText<PackedSnapshot> | null,
): Walk {
  const walk = text === null ? null : unpackWalk(parseJson(text));
  if (walk === null || "gone" in walk) throw new FrameGone();
  if (walk.token !== frame.token) {
    pages.frames.delete(frame.key);
    throw new FrameGone();
  }
  return walk;
}

async function walkFrame(
  target: TabTarget,
  pages: TabPages,
  frame: Frame,
  options: WalkOptions & { localRoot?: number },
): Promise<Walk> {
  const text = await inFrame(target, pages, frame, snapshotCall(options), { read: true });
  return checkedWalk(pages, frame, text);
}

/** The main frame's walk, in one round trip when its world is current. */
async function walkMainFrame(
  target: TabTarget,
  pages: TabPages,
  options: WalkOptions,
): Promise<{ frame: Frame; walk: Walk; beside: Record<string, unknown>[] }> {
  for (let tries = 0;; tries++) {
    // The walk answers at once (no promise) and is vouched for: one evaluation.
    const read = await readVouched(target, pages, snapshotCall(options), options.beside);
    try {
      const walk = checkedWalk(pages, read.frame, read.value);
      return { frame: read.frame, walk, beside: read.beside };
    } catch (error) {
      if (tries > 0) throw error instanceof FrameGone ? pageChanged() : error;
    }
  }
}

/**
 * The frame an iframe element shows: in the same renderer when Chromium keeps it there, else in
 * the out-of-process frame's own session. `read`: it is found for a read, whose commands in a
 * frame's own session are bounded, and a frame that does not answer is held (decision 0710).
 */
export async function childFrame(
  target: TabTarget,
  pages: TabPages,
  parent: Frame,
  iframeId: number,
  guard: FrameGuard,
  options: { read?: boolean } = {},
): Promise<Frame> {
  // Only questions, in the parent's world: for a read, bounded where the parent is a frame's.
  const ask = options.read ? readIn : send;
  const handle = await ask(target, parent.sessionId, "Runtime.evaluate", {
    expression: runtimeCall("element", iframeId),
    contextId: parent.contextId,
    returnByValue: false,
  });
  const objectId = (handle.result as { objectId?: string } | undefined)?.objectId;
  if (!objectId) throw new Error("the iframe is gone");
  const described = await ask(target, parent.sessionId, "DOM.describeNode", { objectId });
  await ask(target, parent.sessionId, "Runtime.releaseObject", { objectId }).catch(() => {});
  const frameId = (described.node as { frameId?: string } | undefined)?.frameId;
  if (!frameId) throw new Error("the iframe has no document yet");
  const link = { frameKey: parent.key, localId: iframeId };
  try {
    return await frameWorld(
      target,
      pages,
      {
        sessionId: parent.sessionId,
        frameId,
        parent: link,
      },
      guard,
      options,
    );
  } catch (error) {
    // A parent that did not answer holds what is in its renderer: nothing more is asked of it.
    if (error instanceof FrameWithheld || error instanceof FrameHeld) throw error;
    const sessionId = await outOfProcessSession(target, frameId);
    return await frameWorld(target, pages, { sessionId, frameId, parent: link }, guard, options);
  }
}

/** The CDP session of an out-of-process frame (its target id is its frame id). */
async function outOfProcessSession(target: TabTarget, frameId: string): Promise<string> {
  // Chrome reports sessions as events right after auto-attach is on: look a few times.
  for (let attempt = 0; attempt < 5; attempt++) {
    const { sessions } = await target.link.call("tab.frames", {
      tab_id: target.native,
      // An extension without the mark lists a held frame unmarked: its first look is then held.
      ...(target.link.details.features.includes("frame_holds") ? { held: true } : {}),
    }, sentFor(target));
    const found = sessions.find((session) => session.target_id === frameId);
    // Nothing is sent to a held frame: it would answer only once free, if ever.
    if (found?.held) throw new FrameHeld();
    if (found) return found.session_id;
    await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
  }
  // No session after the looks: the frame went away while it was looked for.
  throw new BrowserError(
    "context_lost",
    "Chromium reported no session for this out-of-process frame",
  );
}

/**
 * Why a read left a frame out, in Ghostlight's words only, the same in every read: they are told
 * outside the fence, so no error's words go with them (a dialog's, Chrome's, an exception's may
 * be the page's).
 */
export const UNREAD = {
  /** The frame is nested deeper than reads follow. */
  deep: `frames nest more than ${MAX_NESTING} deep`,
  /** The read tried as many frames as it may already. */
  many: `the page has more than ${MAX_FRAMES} frames`,
  /** The frame's renderer did not answer: its page runs a script on, or a dialog holds it. */
  held: `its page is ${HELD_PAGE}`,
  /** Reading the frame failed. */
  failed: "reading it failed",
} as const;

/** Walks the tab (or the subtree under `options.root`) across frames. */
export async function collect(
  target: TabTarget,
  pages: TabPages,
  options: WalkOptions,
): Promise<Collected> {
  let start: Frame;
  let walk: Walk;
  let beside: Record<string, unknown>[] = [];
  if (options.root !== undefined) {
    const found = lookupRef(pages, options.root, { field: "ref_id", tabId: target.tabId });
    start = found.frame;
    // A frame entered when the policy allowed it is asked again (the policy may have changed).
    const refusal = start.url === undefined ? null : options.guard(start.url);
    if (refusal !== null) throw withheldRef(options.root, refusal.why);
    try {
      walk = await walkFrame(target, pages, start, { ...options, localRoot: found.localId });
    } catch (error) {
      if (error instanceof FrameGone) throw refGone(options.root);
      if (error instanceof FrameHeld) throw refHeld(options.root);
      throw error;
    }
    if (options.beside?.length) {
      const commands = options.beside;
      ({ results: beside } = await target.link.call("cdp.sequence", {
        tab_id: target.native,
        commands,
      }, sentFor(target)));
    }
  } else {
    ({ frame: start, walk, beside } = await walkMainFrame(target, pages, options));
  }
  const result: Collected = {
    url: walk.url,
    title: walk.title,
    nodes: [],
    omitted: walk.omitted,
    cutByDepth: walk.cutByDepth,
    unreadFrames: [],
    withheldFrames: [],
    beside,
  };
  const run = { target, pages, options, into: result, tried: 0 };
  await splice(run, { frame: start, walk, baseDepth: 0 }, 0);
  if (walk.rest) {
    const sections = walk.rest.sections.map(({ id, frame: _, ...node }) => ({
      ...node,
      ref: refFor(pages, start, id),
      at: { frame: start, localId: id },
    }));
    result.rest = { ...walk.rest, sections };
  }
  return result;
}

/** One collection in progress. */
interface Collecting {
  target: TabTarget;
  pages: TabPages;
  options: WalkOptions;
  into: Collected;
  /**
   * Frames this collection tried to enter so far: the bound on them is the read's, not the
   * tab's memory (which keeps frames of documents the tab showed before).
   */
  tried: number;
}

/**
 * Adds one frame's walk to the collection, numbering refs, and reads each iframe it could not
 * enter into the lines beneath that iframe.
 */
async function splice(
  run: Collecting,
  part: { frame: Frame; walk: Walk; baseDepth: number },
  nesting: number,
): Promise<void> {
  const { target, pages, options, into } = run;
  for (const node of part.walk.nodes) {
    const { id, frame: isFrame, ...rest } = node;
    const depth = node.depth + part.baseDepth;
    const collected: CollectedNode = { ...rest, depth };
    if (id) {
      if (node.role !== "text") {
        collected.ref = refFor(pages, part.frame, id, { role: node.role, name: node.name });
      }
      collected.at = { frame: part.frame, localId: id };
    }
    into.nodes.push(collected);
    if (!isFrame) continue;
    const childDepth = options.depth === undefined ? undefined : options.depth - depth - 1;
    if (childDepth !== undefined && childDepth < 0) {
      into.cutByDepth++;
      continue;
    }
    if (nesting >= MAX_NESTING) {
      into.unreadFrames.push(`${collected.ref}: ${UNREAD.deep}`);
      continue;
    }
    if (run.tried >= MAX_FRAMES) {
      into.unreadFrames.push(`${collected.ref}: ${UNREAD.many}`);
      continue;
    }
    run.tried++;
    try {
      const child = await childFrame(target, pages, part.frame, id, options.guard, { read: true });
      const walk = await walkFrame(target, pages, child, {
        ...options,
        depth: childDepth,
        cut: undefined,
      });
      into.omitted += walk.omitted;
      into.cutByDepth += walk.cutByDepth;
      await splice(run, { frame: child, walk, baseDepth: depth + 1 }, nesting + 1);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (error instanceof FrameWithheld) {
        into.withheldFrames.push({ ref: collected.ref!, why: error.refusal.why });
        continue;
      }
      const why = error instanceof FrameHeld ? UNREAD.held : UNREAD.failed;
      into.unreadFrames.push(`${collected.ref}: ${why}`);
    }
  }
}

/** What a read needs of a frame. */
export const READ: readonly Capability[] = ["read"];

/**
 * The call's guard for the frames of a page: the policy's decision for each frame's own host,
 * for what the call does there (`["read"]` for a read, the action's capabilities for input).
 */
export function frameGuard(
  context: ToolContext,
  capabilities: readonly Capability[],
): FrameGuard {
  return (url) => context.policy.refusal(url, capabilities);
}

/**
 * Refuses `ref` when its frame, or a frame around it, shows a document the guard refuses: a ref
 * given out while the policy allowed the frame is asked again where it is used.
 */
export function checkRefFrame(pages: TabPages, frame: Frame, ref: string, guard: FrameGuard) {
  let current: Frame | undefined = frame;
  for (let hops = 0; current && hops <= MAX_FRAMES; hops++) {
    const refusal = current.url === undefined ? null : guard(current.url);
    if (refusal !== null) throw withheldRef(ref, refusal.why);
    current = current.parent ? pages.frames.get(current.parent.frameKey) : undefined;
  }
}

/** The refusal of a ref inside a frame the policy refuses (its host is not named: the page's). */
export function withheldRef(ref: string, why: string): ToolError {
  return new ToolError(
    "denied",
    `${ref} is inside a frame Ghostlight withholds: it shows ${why}. Nothing inside it is read ` +
      "or acted on.",
    "Work with the rest of the page, or ask the person to do this part themselves.",
  );
}

/**
 * The note on frames a read left out an answer gives outside its fence (the first five, each by
 * its iframe's ref and why, in {@linkcode UNREAD}'s words), or null when it read them all.
 */
export function unreadNote(unread: string[]): string | null {
  return unread.length ? `Frames not read: ${unread.slice(0, 5).join("; ")}.` : null;
}

/** The note on withheld frames an answer gives outside its fence, or null when there are none. */
export function withheldNote(withheld: { ref: string; why: string }[]): string | null {
  if (withheld.length === 0) return null;
  const each = withheld.slice(0, 5).map(({ ref, why }) => `${ref} shows ${why}`).join("; ");
  const more = withheld.length > 5 ? ` (and ${withheld.length - 5} more)` : "";
  const [them, their] = withheld.length === 1 ? ["it", "its"] : ["them", "their"];
  return `Frames withheld: ${each}${more}. Nothing inside ${them} is shown, and none of ` +
    `${their} elements can be clicked, typed into or filled.`;
}

/**
 * Refuses input that would go into a frame the guard refuses, before any is sent: pointer input
 * at `point` (top-level viewport CSS pixels), or keys (`point` null) where the focus is. Each
 * frame the input would pass into is decided on its own host, however deeply nested; one that
 * cannot be checked refuses the input (fail closed). Every command is a look sent before any
 * input, bounded in a frame's own session as a read's: a frame whose renderer does not answer
 * refuses the input as one not checked, its tab not quarantined (decision 0750).
 */
export async function checkInputFrames(
  target: TabTarget,
  pages: TabPages,
  point: { x: number; y: number } | null,
  guard: FrameGuard,
): Promise<void> {
  let frame: Frame | undefined;
  let at = point;
  for (let nesting = 0; nesting <= MAX_NESTING; nesting++) {
    const call = at === null ? runtimeCall("focusedFrame") : runtimeCall("frameAt", at.x, at.y);
    let under: FrameUnder | null;
    try {
      if (frame === undefined) {
        // The main frame's look answers at once: one round trip where its world is known.
        const read = await readVouched(target, pages, call);
        frame = read.frame;
        under = read.value;
      } else under = await inFrame(target, pages, frame, call, { read: true });
    } catch (error) {
      throw uncheckable(point, error);
    }
    if (under === null) return;
    try {
      frame = await childFrame(target, pages, frame, under.id, guard, { read: true });
    } catch (error) {
      if (error instanceof FrameWithheld) throw withheldInput(point, error.refusal.why);
      throw uncheckable(point, error);
    }
    if (at !== null) at = { x: under.x, y: under.y };
  }
  throw uncheckedFrame(point, `frames nest more than ${MAX_NESTING} deep there`);
}

function inputPlace(point: { x: number; y: number } | null): string {
  return point === null ? "The focused element" : "That point";
}

/** The refusal of input into a frame the policy refuses; its host is not named (the page's). */
function withheldInput(point: { x: number; y: number } | null, why: string): ToolError {
  return new ToolError(
    "denied",
    `${inputPlace(point)} is inside a frame Ghostlight withholds: it shows ${why}. Nothing was ` +
      "sent to the page.",
    point === null
      ? "Click a field outside that frame first, or ask the person to do this part themselves."
      : "Act on the rest of the page, or ask the person to do this part themselves.",
  );
}

/**
 * Why the frame under the input could not be checked. A tool's or the browser's own error goes on
 * as it is: its answer tells it, fencing what of it is the page's (a dialog's text). Any other
 * is said in Ghostlight's words only, as a read says why it left a frame out (0690): its message
 * may hold the page's words, and this refusal is told outside the fence.
 */
function uncheckable(point: { x: number; y: number } | null, error: unknown): Error {
  if (error instanceof ToolError || error instanceof BrowserError) return error;
  return uncheckedFrame(point, error instanceof FrameHeld ? UNREAD.held : UNREAD.failed);
}

function uncheckedFrame(point: { x: number; y: number } | null, why: string): ToolError {
  return new ToolError(
    "tool_failure",
    `${inputPlace(point)} is inside a frame whose site Ghostlight could not check (${why}), so ` +
      "nothing was sent to the page.",
    "Wait a moment for the page to settle and try again.",
  );
}
