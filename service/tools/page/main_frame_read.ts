/**
 * One round trip into the main frame's world: the check that the world still belongs to the
 * document the frame shows and the evaluation itself travel together in one `cdp.sequence`,
 * with any further commands the caller needs beside them. Actions use it for the reads around
 * their input, where every hop to the page is time the agent waits. When the world is not known
 * yet, or the frame shows another document, it falls back to the ordinary path through
 * `refs.ts`, which makes the world again.
 *
 * @module
 */

import { BrowserError } from "../../browser/mod.ts";
import type { TabTarget } from "../core/target.ts";
import { type Frame, FrameGone, inFrame, mainFrame, type TabPages } from "./refs.ts";

/** A CDP command sent beside the evaluation. */
export interface Command {
  method: string;
  params: Record<string, unknown>;
}

/** What {@linkcode readMainFrame} read. */
export interface MainFrameRead<T> {
  value: T | null;
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

/** The main frame's world this tab's page memory holds: the one frame with no parent or session. */
function knownMain(pages: TabPages): Frame | undefined {
  let found: Frame | undefined;
  for (const frame of pages.frames.values()) {
    if (!frame.sessionId && !frame.parent) found = frame;
  }
  return found;
}

function evaluation(expression: string, contextId: number): Command {
  return {
    method: "Runtime.evaluate",
    params: { expression, contextId, returnByValue: true, awaitPromise: true },
  };
}

/**
 * Evaluates `expression` in the main frame's world and sends `beside` after it, in one round
 * trip when the world is known and current. A dialog that holds the page fails it (as every
 * renderer-bound command does); anything else unexpected takes the ordinary path.
 */
export async function readMainFrame<T>(
  target: TabTarget,
  pages: TabPages,
  expression: string,
  beside: Command[] = [],
): Promise<MainFrameRead<T>> {
  const known = knownMain(pages);
  const quick = known && await readWorld<T>(target, known, expression, beside);
  return quick || await slowRead<T>(target, pages, expression, beside);
}

/**
 * As {@linkcode readMainFrame}, but a known world that is no longer current gives null instead
 * of a new world: for a read that races a navigation, where a world made now could belong to the
 * old document, or be a second one beside the world {@linkcode worldAtCommit} is making.
 */
export async function readKnownWorld<T>(
  target: TabTarget,
  pages: TabPages,
  expression: string,
): Promise<MainFrameRead<T> | null> {
  const known = knownMain(pages);
  return known
    ? await readWorld<T>(target, known, expression)
    : await readMainFrame<T>(target, pages, expression);
}

/**
 * Makes the main frame's world in a new document as soon as it commits (`commit` resolves true),
 * while its subresources still load, so the first read after the load is one round trip instead
 * of three. Never rejects: a read makes the world itself when this could not. Await it before
 * reading: two makers of one frame's world at once would make two.
 */
export function worldAtCommit(
  target: TabTarget,
  pages: TabPages,
  commit: Promise<boolean>,
): Promise<void> {
  return commit.then(async (committed) => {
    if (committed) await mainFrame(target, pages);
  }).catch(() => {});
}

/**
 * The one-round-trip read in `world`, which must be the main frame's: null, having done nothing
 * the caller must undo, when the world is not the main frame's current one (a ref into it is
 * then gone) or the read failed.
 */
export async function readWorld<T>(
  target: TabTarget,
  world: Frame,
  expression: string,
  beside: Command[] = [],
): Promise<MainFrameRead<T> | null> {
  if (world.sessionId || world.parent) return null;
  try {
    const { results } = await target.link.call("cdp.sequence", {
      tab_id: target.native,
      commands: [
        { method: "Page.getFrameTree", params: {} },
        evaluation(expression, world.contextId),
        ...beside,
      ],
    });
    const top = (results[0].frameTree as { frame: TopFrame }).frame;
    const reply = results[1] as { result?: { value?: T }; exceptionDetails?: unknown };
    if (top.id !== world.frameId || top.loaderId !== world.loaderId || reply.exceptionDetails) {
      return null;
    }
    return {
      value: reply.result?.value ?? null,
      frameId: top.id,
      loaderId: top.loaderId,
      beside: results.slice(2),
    };
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "dialog_open") throw error;
    // The world went with its document, or the page refused: the caller takes the ordinary path.
    return null;
  }
}

async function slowRead<T>(
  target: TabTarget,
  pages: TabPages,
  expression: string,
  beside: Command[],
): Promise<MainFrameRead<T>> {
  let frame = await mainFrame(target, pages);
  let value: T;
  try {
    value = await inFrame<T>(target, pages, frame, expression);
  } catch (error) {
    if (!(error instanceof FrameGone)) throw error;
    frame = await mainFrame(target, pages);
    value = await inFrame<T>(target, pages, frame, expression);
  }
  const results = beside.length === 0 ? [] : (await target.link.call("cdp.sequence", {
    tab_id: target.native,
    commands: beside,
  })).results;
  return {
    value: value ?? null,
    frameId: frame.frameId,
    loaderId: frame.loaderId ?? "",
    beside: results,
  };
}
