/**
 * The service's side of a new document's reports (`landing.ts`, decisions 0222, 0244, 0245): read
 * strictly from the binding's payload, for `navigate`'s answer, a navigating action's receipt
 * (0240) and the world a new document's runtime named.
 *
 * @module
 */

import { z } from "zod";
import {
  LANDED_BINDING_PREFIX,
  type LandedFacts,
  MAX_TITLE_CHARS,
  type WorldNote,
} from "./landing.ts";
import { RUNTIME_BUILD } from "./runtime_bundle.ts";
import type { MainDocument, TabEvent } from "../../browser/mod.ts";

/**
 * The binding a new document's runtime reports its facts through (decisions 0222, 0245), named for
 * the build as its world is: a report under this name comes from this build's world alone, so its
 * execution context is that world's, which the service then reads in without making it again
 * (decision 0244). A runtime of another build, left registered by an older service, reports
 * through its own build's binding.
 */
export const LANDED_BINDING = `${LANDED_BINDING_PREFIX}_${RUNTIME_BUILD}`;

/** An element as the report names it (the runtime clips name and value far below these). */
const ReportedElement = z.object({
  role: z.string().max(200),
  name: z.string().max(1_000),
  tag: z.string().max(100),
  disabled: z.literal(true).optional(),
  value: z.string().max(1_000).optional(),
}).strict();

/**
 * A document's URL, redacted title, HTTP status, focused element and window, as its runtime
 * reported them at its first frame or at its load (`ready` says which). A report clipped on the
 * way (a URL near the event's string bound) is not JSON and is not used.
 */
export const PageFacts = z.object({
  url: z.string(),
  title: z.string().max(MAX_TITLE_CHARS),
  status: z.number().int().min(0),
  ready: z.enum(["interactive", "complete"]),
  focus: ReportedElement.optional(),
  view: z.object({
    width: z.number().min(0).max(100_000),
    height: z.number().min(0).max(100_000),
    ratio: z.number().min(0).max(100),
  }).strict().optional(),
}).strict() satisfies z.ZodType<LandedFacts>;
export type PageFacts = z.infer<typeof PageFacts>;

/** The facts a `Runtime.bindingCalled` event carries, when it is a well-formed landing report. */
export function factsOf(event: TabEvent): PageFacts | null {
  if (event.method !== "Runtime.bindingCalled" || event.params.name !== LANDED_BINDING) {
    return null;
  }
  return parsed(event.params.payload, PageFacts);
}

/** What the runtime says of its world as it is installed (`WorldNote`). */
const WorldNote = z.object({ world: z.string().min(1).max(32) }).strict() satisfies z.ZodType<
  WorldNote
>;

/**
 * Whether the event is a call of this build's landing binding other than the world note: a
 * report of the document's facts, well formed or not (cut on the way, a URL near the event's
 * string bound).
 */
export function landingReport(event: TabEvent): boolean {
  if (event.method !== "Runtime.bindingCalled" || event.params.name !== LANDED_BINDING) {
    return false;
  }
  return parsed(event.params.payload, WorldNote) === null;
}

/**
 * The main frame's world in its current document as that document's runtime said it (decision
 * 0244): the execution context of its first call of this build's binding after the main frame's
 * last commit, and the registry's token it gave. Null when the tab's events do not say it: no
 * commit seen, no note since, events dropped since the commit (the note might be a later
 * document's), or a note not well formed. The binding is exposed only in this build's world, so
 * the context is that world; the tab's own events come in order, so the note is the committed
 * document's. Reads in it still check the frame shows that document.
 */
export function reportedWorld(
  document: MainDocument | null,
): { frameId: string; loaderId: string; contextId: number; token: string } | null {
  if (!document || document.lossy) return null;
  const call = document.calls.find((call) => call.name === LANDED_BINDING);
  const note = call && parsed(call.payload, WorldNote);
  if (!call || !note) return null;
  return {
    frameId: document.frameId,
    loaderId: document.loaderId,
    contextId: call.contextId,
    token: note.world,
  };
}

/** `payload` as JSON that `schema` accepts, else null. */
function parsed<T>(payload: unknown, schema: z.ZodType<T>): T | null {
  if (typeof payload !== "string") return null;
  try {
    const result = schema.safeParse(JSON.parse(payload));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}
