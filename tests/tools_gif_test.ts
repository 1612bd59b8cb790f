/**
 * `gif_creator` end to end: a real MCP client, all three processes, headless Chromium. A
 * recording of a short interaction exports a GIF that a decoder reads back; a recording stops on
 * its own at its frame limit and says so in its status; an export can be dropped into a page.
 */

import { GifReader } from "omggif";
import { decodeBase64 } from "../shared/base64.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type E2ESession, freshPage, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

async function status(s: E2ESession, tabId: number): Promise<Record<string, unknown>> {
  return plain(await s.ok("gif_creator", { action: "status", tabId }))!;
}

/** How many strongly red pixels frame `index` shows. */
function redPixels(gif: GifReader, index: number): number {
  const pixels = new Uint8Array(gif.width * gif.height * 4);
  gif.decodeAndBlitFrameRGBA(index, pixels);
  let count = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i] > 180 && pixels[i + 1] < 90 && pixels[i + 2] < 120) count++;
  }
  return count;
}

Deno.test("gif_creator records, stops at its bounds and exports a GIF that decodes", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/animate.html"), tabId });

    await t.step(
      "a recording stops by itself at its frame limit, the reason in status",
      async () => {
        await freshPage(s, tabId, "/animate.html");
        await s.ok("gif_creator", {
          action: "start_recording",
          tabId,
          options: { maxFrames: 4, intervalMs: 150 },
        });
        const stopped = await pollUntil(
          () => status(s, tabId),
          (state) => state.state === "stopped",
          "the recording to stop at its frame limit",
        );
        assertEquals([stopped.reason, stopped.frames], ["frame_limit", 4]);
        const text = s.text(await s.ok("gif_creator", { action: "status", tabId }));
        assertMatch(text, /Stopped \(frame_limit: it reached its frame limit/);
      },
    );

    await t.step("a short interaction exports as a GIF with the expected frames", async () => {
      await freshPage(s, tabId, "/animate.html");
      await s.ok("gif_creator", { action: "start_recording", tabId, options: { intervalMs: 200 } });
      for (let i = 0; i < 3; i++) {
        await s.ok("computer", { action: "left_click", coordinate: [40, 160], tabId });
      }
      await pollUntil(
        () => status(s, tabId),
        (state) => (state.frames as number) >= 3,
        "the recording to gather a few frames",
      );
      const stopped = await s.ok("gif_creator", { action: "stop_recording", tabId });
      const frames = plain(stopped)?.frames as number;
      assertEquals(plain(stopped)?.reason, "stopped");
      const exported = await s.ok("gif_creator", { action: "export", tabId });
      const block = exported.content.find((b) => b.type === "image");
      assertEquals(block?.mimeType, "image/gif");
      const gif = new GifReader(decodeBase64(block!.data!));
      assert(gif.numFrames() >= 3 && gif.numFrames() <= frames, `${gif.numFrames()} frames`);
      assertEquals(gif.numFrames(), frames);
      assertEquals([gif.width, gif.height], [
        plain(exported)?.width,
        plain(exported)?.height,
      ]);
      assert(gif.width > 200 && gif.width <= 800, `width ${gif.width} within maxSide`);
      // The page has no red: red pixels are the rings marking the clicks.
      const ringed = Array.from({ length: gif.numFrames() }, (_, i) => redPixels(gif, i));
      assert(ringed.some((count) => count >= 20), `a frame rings a click: ${ringed}`);
    });

    await t.step("the export can be dropped into the page as a GIF file", async () => {
      await freshPage(s, tabId, "/upload.html");
      const found = await s.ok("find", { tabId, query: "Drop zone" });
      const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
      const placed = await s.ok("gif_creator", { action: "export", tabId, ref, filename: "x.gif" });
      assertEquals(plain(placed)?.delivery, "drop");
      assert(placed.content.some((b) => b.mimeType === "image/gif"), "the GIF comes back too");
      const state = await pollUntil(
        async () => s.text(await s.ok("get_page_text", { tabId })),
        (text) => text.includes('"drop"'),
        "the page to record the drop",
      );
      assertMatch(state, /"name":"x\.gif","size":\d+,"type":"image\/gif"/);
    });

    await t.step("bad calls say what to do", async () => {
      assertMatch(
        await s.fail("gif_creator", { action: "export", tabId, download: true }),
        /download is not supported/,
      );
      assertMatch(
        await s.fail("gif_creator", {
          action: "start_recording",
          tabId,
          options: { fps: 10 },
        }),
        /options has no "fps"; it takes maxFrames, intervalMs/,
      );
      await s.ok("gif_creator", { action: "clear", tabId });
      assertMatch(await s.fail("gif_creator", { action: "status", tabId }), /has no recording/);
    });
  } finally {
    await s.close();
  }
});
