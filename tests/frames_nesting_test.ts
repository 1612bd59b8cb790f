/**
 * How deeply a page's frames are followed, end to end: a chain of frames, each of another origin
 * than the one around it (so each is read in its own world, not by the walk of its parent), one
 * frame deeper than Ghostlight follows. `get_page_text` and `read_page` read the same frames, as
 * deep as each other, and each says it left the deepest out rather than leaving it out silently.
 * (The fuzzing of frame trees in tests/fuzz_frames_test.ts waited on get_page_text for a frame four
 * deep, which it followed one frame less deep than read_page and left out without a word.)
 */

import { MAX_NESTING } from "../service/tools/page/frames.ts";
import { assert, assertMatch } from "./support/assert.ts";
import { openFramed } from "./support/framed.ts";
import { startSession } from "./support/session.ts";

/** The words of the document at `depth` of the chain (0 the top page). */
const words = (depth: number) => `nestedword${depth}z`;

Deno.test("get_page_text and read_page follow cross-origin frames equally deep, and say what they left out", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    // One host a frame, each another origin than the one around it: one frame too deep.
    const hosts = Array.from({ length: MAX_NESTING + 1 }, (_, i) => `n${i + 1}.localhost`);
    const tabId = await openFramed(s, s.fixtures.url(`/nested_frames.html?hosts=${hosts}`));
    const text = s.text(await s.ok("get_page_text", { tabId }));
    const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
    for (const [tool, said] of [["get_page_text", text], ["read_page", outline]]) {
      for (let depth = 0; depth <= MAX_NESTING; depth++) {
        assert(said.includes(words(depth)), `${tool} left out frame ${depth}: ${said}`);
      }
      assert(!said.includes(words(MAX_NESTING + 1)), `${tool} read too deep: ${said}`);
    }
    assertMatch(
      text,
      new RegExp(`\\[1 frame was not read \\(frames nest more than ${MAX_NESTING} deep\\)`),
    );
    assertMatch(
      outline,
      new RegExp(`Frames not read: ref_\\d+: frames nest more than ${MAX_NESTING} deep`),
    );
    // A field in a frame not read is unmatched for that reason, and form_fill says so.
    const filled = s.text(await s.call("form_fill", { tabId, fields: { "Harbour name": "x" } }));
    assertMatch(
      filled,
      new RegExp(`Frames not read: ref_\\d+: frames nest more than ${MAX_NESTING} deep`),
    );
  } finally {
    await s.close();
  }
});
