/**
 * A tab's frames are read page after page, end to end: a tab that navigates from one page with a
 * row of cross-origin frames to the next reads every frame of the page it shows, however many
 * frames the pages it showed before had, and a ref a read gives out stays good.
 */

import { MAX_FRAMES } from "../service/tools/page/frames.ts";
import { assert } from "./support/assert.ts";
import { openFramed } from "./support/framed.ts";
import { startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

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

Deno.test("a page that keeps replacing its frames keeps the refs each read gives out", async () => {
  const s = await startSession({ policy: `{ "default": "allow" }` });
  try {
    const frames = MAX_FRAMES - 4;
    const tabId = await openFramed(
      s,
      s.fixtures.url(`/frame_row.html?frames=${frames}&host=row.localhost&page=0`),
    );
    // Round after round the page swaps its frames for new ones, in the same document: more new
    // frames in all than four times the bound, so the tab's memory of frames fills up.
    const rounds = Math.ceil((MAX_FRAMES * 4) / frames) + 2;
    for (let round = 1; round <= rounds; round++) {
      await s.ok("javascript_tool", {
        action: "javascript_exec",
        tabId,
        text: `(() => {
          document.querySelectorAll("iframe").forEach((frame) => frame.remove());
          // Only this round's frames count: an earlier round's late word is not this one's.
          const mine = new Set();
          let loaded = 0;
          addEventListener("message", (event) => {
            if (event.data !== "row frame loaded" || !mine.has(event.source)) return;
            mine.delete(event.source);
            if (++loaded === ${frames}) document.body.dataset.round = "${round}";
          });
          for (let i = 0; i < ${frames}; i++) {
            const frame = document.createElement("iframe");
            frame.width = "120";
            frame.height = "60";
            frame.src = "http://row.localhost:" + location.port +
              "/frame_row.html?page=${round}&place=" + i;
            document.body.append(frame);
            mine.add(frame.contentWindow);
          }
          return "swapped";
        })()`,
      });
      await pollUntil(
        () =>
          s.ok("javascript_tool", {
            action: "javascript_exec",
            text: "document.body.dataset.round ?? ''",
            tabId,
          }),
        (result) => s.text(result).includes(`${round}`),
        `round ${round}'s frames to load`,
      );
      // Every new frame has posted from its own page, yet this document may still show one as
      // the empty page it started with: the read gets it through the browser (decision 0740).
      const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
      for (let place = 0; place < frames; place++) {
        assert(
          outline.includes(`rowpage${round}frame${place}z`),
          `round ${round}: read_page left out frame ${place}:\n${outline}`,
        );
      }
      const heading = outline.split("\n").find((line) => line.includes("rowpage0top"));
      const ref = heading && /\[(ref_\d+)\]/.exec(heading)?.[1];
      assert(ref, `round ${round}: the heading's ref in:\n${outline}`);
      const under = s.text(await s.ok("read_page", { tabId, ref_id: ref }));
      assert(under.includes("rowpage0top"), `round ${round}: under ${ref}: ${under}`);
    }
  } finally {
    await s.close();
  }
});
