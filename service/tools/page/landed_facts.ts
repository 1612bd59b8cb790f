/**
 * The service's side of a loaded document's report (`landing.ts`, decision 0222): read strictly
 * from the binding's payload, for `navigate`'s answer and a navigating action's receipt (0240).
 *
 * @module
 */

import { z } from "zod";
import { LANDED_BINDING, type LandedFacts, MAX_TITLE_CHARS } from "./landing.ts";
import type { TabEvent } from "../../browser/mod.ts";

/** An element as the report names it (the runtime clips name and value far below these). */
const ReportedElement = z.object({
  role: z.string().max(200),
  name: z.string().max(1_000),
  tag: z.string().max(100),
  disabled: z.literal(true).optional(),
  value: z.string().max(1_000).optional(),
}).strict();

/**
 * A loaded document's URL, redacted title, HTTP status, focused element and window, as its runtime
 * reported them at its load. A report clipped on the way (a URL near the event's string bound)
 * is not JSON and is not used.
 */
export const PageFacts = z.object({
  url: z.string(),
  title: z.string().max(MAX_TITLE_CHARS),
  status: z.number().int().min(0),
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
  const payload = event.params.payload;
  if (typeof payload !== "string") return null;
  try {
    const parsed = PageFacts.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
