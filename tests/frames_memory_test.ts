/**
 * A tab's frames are read page after page, end to end: a tab that navigates from one page with a
 * row of cross-origin frames to the next reads every frame of the page it shows, however many
 * frames the pages it showed before had, and a ref a read gives out stays good.
 */

import { MAX_FRAMES } from "../service/tools/page/frames.ts";
import { assert } from "./support/assert.ts";
import { openFramed } from "./support/framed.ts";
import { startSession } from "./support/session.ts";

Deno.test("every frame of the page a tab shows is read, however many frames its earlier pages had", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    // Fewer frames than the bound on each page, more than four times the bound across them.
    const frames = MAX_FRAMES - 4;
    const pages = Math.ceil((MAX_FRAMES * 4) / frames) + 1;
    for (let page = 1; page <= pages; page++) {
      const tabId = await openFramed(
        s,
        s.fixtures.url(`/frame_row.html?frames=${frames}&host=row.localhost&page=${page}`),
      );
      const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
      for (let place = 0; place < frames; place++) {
        assert(
          outline.includes(`rowpage${page}frame${place}z`),
          `page ${page}: read_page left out frame ${place}:\n${outline}`,
        );
      }
      assert(!/Frames not read/.test(outline), `page ${page}: ${outline}`);
      // The top page's heading, by the ref this read gave it: still this page's.
      const heading = outline.split("\n").find((line) => line.includes(`rowpage${page}top`));
      const ref = heading && /\[(ref_\d+)\]/.exec(heading)?.[1];
      assert(ref, `page ${page}: the heading's ref in:\n${outline}`);
      const under = s.text(await s.ok("read_page", { tabId, ref_id: ref }));
      assert(under.includes(`rowpage${page}top`), `page ${page}: under ${ref}: ${under}`);
      const found = s.text(
        await s.ok("find", { tabId, query: `rowpage${page}frame${frames - 1}z` }),
      );
      assert(found.includes(`rowpage${page}frame${frames - 1}z`), `page ${page}: find: ${found}`);
    }
  } finally {
    await s.close();
  }
});
