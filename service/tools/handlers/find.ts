/**
 * `find`: elements matching a plain-language description, ranked by our own scoring (no model,
 * no network), each with a ref, role, name, box and centre point in screenshot pixels — the
 * coordinate space `computer` takes — so a match's centre can be clicked as it is.
 *
 * @module
 */

import { type Handler, success } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { displayUrl, fence, fencedUrl, originOf } from "../core/safe_text.ts";
import { unreadNote, withheldNote } from "../page/collect.ts";
import { asMatch, locate, MAX_MATCHES } from "../page/locate.ts";
import { provenance } from "../page/provenance.ts";
import { ownedTab } from "../core/target.ts";

/** `find`. */
export const find: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const query = (args.query as string).trim();
  if (query === "") {
    throw new ToolError(
      "tool_failure",
      '"query" is empty.',
      `Describe the element, e.g. {"query": "search box", "tabId": ${target.tabId}}.`,
    );
  }
  // The screenshot scale comes in the walk's round trip (decision 0590).
  const { outline, located, roles, exact, scale } = await locate(context, target, { query });
  const matches = located.slice(0, MAX_MATCHES).map((match, index) => asMatch(match, index, scale));

  const origin = originOf(outline.url);
  const where = `tab ${target.tabId} (${fencedUrl(context.workspace, outline.url)})`;
  const note = withheldNote(outline.withheldFrames);
  // A match inside a frame the read left out could not be found: say which were left out.
  const notes = [unreadNote(outline.unreadFrames), note].filter((line) => line !== null);
  const notesAfter = notes.map((line) => `\n${line}`).join("");
  const withheldFrames = note ? { withheldFrames: outline.withheldFrames } : {};
  if (matches.length === 0) {
    return success(
      `Nothing on ${where} matches "${query}". Try other words (a visible label or button ` +
        'text), or read_page with filter: "interactive" to see every control.' + notesAfter,
      { tabId: target.tabId, url: displayUrl(outline.url), query, matches: [], ...withheldFrames },
    );
  }
  const lines = matches.map((match) => {
    const where = !match.visible ? " hidden" : match.inViewport ? "" : " off-screen";
    const value = match.value !== undefined ? ` value=${JSON.stringify(match.value)}` : "";
    return `${match.role} ${JSON.stringify(match.name)} [${match.ref}]${value} at ` +
      `(${match.x},${match.y}) ${match.box.width}×${match.box.height}${where}`;
  });
  const heading = roles
    ? `No element on ${where} has the words of "${query}"; here are its ${roles} elements ` +
      "instead"
    : exact
    ? `${matches.length} exact match${matches.length === 1 ? "" : "es"} for "${query}" on ` +
      `${where}, best first; elements that only share some of its words are left out`
    : `${matches.length} match${matches.length === 1 ? "" : "es"} for "${query}" on ${where}, ` +
      "best first";
  return success(
    `${heading} (coordinates are screenshot pixels, as computer takes them; better, pass the ` +
      `ref to computer, form_input or read_page ref_id):\n${
        fence(context.workspace, origin, lines.join("\n"))
      }${notesAfter}`,
    {
      tabId: target.tabId,
      url: displayUrl(outline.url),
      query,
      matches,
      exact,
      provenance: provenance(context.workspace, outline.url),
      ...withheldFrames,
    },
  );
};
