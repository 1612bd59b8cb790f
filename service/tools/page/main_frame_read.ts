/**
 * Every read of the main frame goes through here, in one round trip when the frame's Ghostlight
 * world is known and current: the evaluation travels in one `cdp.sequence` followed by a look at
 * the frame tree, with any further commands the caller needs after them. The answer is used only
 * when that look shows the document the world belongs to: the world's execution context is one
 * document's, so the value is that document's, and the look after it says the frame still shows
 * it (decision 0196); a read whose value says so itself (`pageInfo`'s, the settle read that
 * travels after an action's input, and the walk and the page's text through the runtime's `vouch`)
 * sends no look (0218, 0243, 0246). Otherwise the world is forgotten and made again from the tree
 * the sequence just read (`refs.ts`), and the read runs there. Refs in other frames keep
 * `inFrame`, which checks their frame before each evaluation.
 *
 * @module
 */

import type { SequenceCommand } from "../../../shared/browser_protocol.ts";
import { BrowserError } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { runtimeCall, vouchedCall } from "./in_page.ts";
import { reportedWorld } from "./landed_facts.ts";
import type { MainDocument } from "../../browser/mod.ts";
import { MAX_TITLE_CHARS } from "./landing.ts";
import {
  evaluationFailure,
  type Frame,
  FrameGone,
  frameWorld,
  inFrame,
  isLostContext,
  mainFrame,
  type TabPages,
  tabPages,
} from "./refs.ts";

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
  pages.frames.set(key, world);
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
  expression: string,
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
 * evaluation does not wait for it.
 */
export async function readVouched<T>(
  target: TabTarget,
  pages: TabPages,
  expression: string,
): Promise<MainFrameRead<T>> {
  const read = await readMainFrame<{ current: boolean; value: T }>(
    target,
    pages,
    vouchedCall(expression),
    [],
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
  expression: string,
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
  expression: string,
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
  expression: string,
  beside: Command[],
  options: ReadOptions & { quietly?: boolean } = {},
): Promise<MainFrameRead<T> | Missed> {
  if (world.sessionId || world.parent) return { missed: true };
  // A bare read whose value says whether the frame still shows the world's document needs no
  // look after it (decision 0218); commands beside a read are sent only with the look.
  const look = !options.vouched || beside.length > 0;
  let results: Record<string, unknown>[];
  try {
    ({ results } = await target.link.call("cdp.sequence", {
      tab_id: target.native,
      // No look before the evaluation: the context is the world's document's alone (an
      // evaluation in a context that went with its document fails), so only whether the frame
      // still shows that document is open, and the look after answers it (decision 0196).
      commands: look
        ? [evaluation(expression, world.contextId, options), FRAME_TREE, ...beside]
        : [evaluation(expression, world.contextId, options)],
      // Commands beside a synchronous read go out with it (one that names an earlier reply's
      // object waits for that reply): they must do no harm when the read turns out stale.
      ...(options.synchronous ? { pipeline: true } : {}),
    }));
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
    if (quietly || !look || failure instanceof FrameGone) return { missed: true, top: after };
    throw failure;
  }
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
export function leadingRead<T>(world: Frame, expression: string): LeadingRead<T> | null {
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
export function trailingRead<T>(world: Frame, expression: string): TrailingRead<T> | null {
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
  read: { expression: string; beside: Command[]; top?: TopFrame },
): Promise<MainFrameRead<T>> {
  // The frame tree was just read, by the sequence or by mainFrame: inFrame need not look again.
  const once = { loaderJustRead: true };
  let frame = read.top
    ? await frameWorld(target, pages, { frameId: read.top.id, loaderId: read.top.loaderId })
    : await mainFrame(target, pages);
  let value: T;
  try {
    value = await inFrame<T>(target, pages, frame, read.expression, once);
  } catch (error) {
    if (!(error instanceof FrameGone)) throw error;
    frame = await mainFrame(target, pages);
    value = await inFrame<T>(target, pages, frame, read.expression, once);
  }
  const results = read.beside.length === 0 ? [] : (await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: read.beside,
  })).results;
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
  expression: string,
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
  const { url, title, status } = await inMainFrame<
    { url: string; title: string; status: number; current?: boolean }
  >(
    target,
    tabPages(workspace, target.tabId),
    runtimeCall("pageInfo", MAX_TITLE_CHARS),
    { synchronous: true, vouched: true },
  );
  return { url, title, status };
}
