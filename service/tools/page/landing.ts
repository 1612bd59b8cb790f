/**
 * What the page runtime and the service share about a new document: the binding the runtime calls
 * in the main frame (`Runtime.addBinding`, exposed only to Ghostlight's isolated world) as it is
 * installed, naming its world (decision 0244), and once the document is shown and once it has
 * loaded, with its facts (decisions 0222, 0245); and how long a title may be. Used on both sides,
 * so it imports nothing.
 *
 * @module
 */

/**
 * How the binding's name begins: the service names it for the runtime's build (`LANDED_BINDING`
 * in `landed_facts.ts`), and it is exposed only in the world of that build, so the runtime finds the
 * one binding of its world by this prefix (decision 0244).
 */
export const LANDED_BINDING_PREFIX = "__ghostlightLanded";

/** Longest page title passed on; a page sets its own title. */
export const MAX_TITLE_CHARS = 300;

/**
 * What the report holds, and nothing more: `navigate` reads it strictly, so the page builds it
 * as this type's literal (an extra field fails the type check, not every landing at run time).
 */
export interface LandedFacts {
  url: string;
  title: string;
  status: number;
  /**
   * When the report was made (decision 0245): "complete" at the load; "interactive" at the first
   * frame after the document was parsed (at once when the page is hidden and renders no frames)
   * while the load had not come yet. A navigating action's receipt takes the first report;
   * `navigate` waits for the load's.
   */
  ready: "interactive" | "complete";
  /**
   * The element focused when the report was made, as a receipt names it (decision 0240): a click
   * that navigated answers with the new page's facts from the first report.
   */
  focus?: { role: string; name: string; tag: string; disabled?: boolean; value?: string };
  /**
   * The window's size in CSS pixels and its device pixel ratio when the report was made (decision
   * 0242): the tab's first screenshot can then be one message.
   */
  view?: { width: number; height: number; ratio: number };
}

/**
 * What the runtime says through the same binding as soon as it is installed in a main frame's new
 * document (decision 0244): its registry's token. The call's execution context is the world, so
 * the service knows the new document's world from the commit on, without asking for it.
 */
export interface WorldNote {
  world: string;
}
