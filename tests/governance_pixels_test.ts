/**
 * Images of a page leave out the frames the policy withholds, end to end through a real MCP
 * client, the three processes and headless Chromium: a pure green page on 127.0.0.1 frames a pure
 * magenta page on `localhost`, which the policy then marks sacred (the browser's filter would stop
 * the frame loading under that policy; a frame loaded before it, or in a tab the agent was given,
 * is what shows). No screenshot, zoom, scroll's
 * screenshot or recorded GIF frame shows a magenta pixel, while the green around the frame shows;
 * the answer says a region was withheld and why, without the frame's host. A refused frame's
 * console messages are withheld too.
 */

import { GifReader } from "omggif";
import jpeg from "jpeg-js";
import { decodeBase64 } from "../shared/base64.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";
import { ghostlight } from "./support/processes.ts";
import { openFramed, usePolicy } from "./support/framed.ts";

const ALLOW = `{ "default": "allow" }`;
/** The service rereads its policy file often, so a test waits little for a change to apply. */
const QUICK_RELOAD = { GHOSTLIGHT_POLICY_RELOAD_MS: "100" };
const SACRED = `{ "default": "allow", "sacred": ["localhost"] }`;
const WHY =
  /Withheld in this image: 1 frame is painted over in grey: it shows a site Ghostlight never touches whatever the policy says \("sacred" in \S*policy\.jsonc names localhost\)/;

/** The magenta page on `localhost`, a site other than the page's. */
function magentaUrl(s: E2ESession): string {
  return s.fixtures.url("/magenta.html").replace("127.0.0.1", "localhost");
}

function colourFrame(s: E2ESession, src: string, place = ""): string {
  return s.fixtures.url(`/colour_frame.html?src=${encodeURIComponent(src)}${place}`);
}

/** Opens `url` under ALLOW, waits until its frames have loaded, then puts `policy` in force. */
async function openThenRefuse(s: E2ESession, url: string, policy = SACRED): Promise<number> {
  await usePolicy(s, ALLOW);
  const tabId = await openFramed(s, url);
  await usePolicy(s, policy);
  return tabId;
}

/** Counts of pure magenta and pure green pixels in RGBA pixels. */
function colours(rgba: Uint8Array): { magenta: number; green: number } {
  let magenta = 0, green = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    const [r, g, b] = [rgba[i], rgba[i + 1], rgba[i + 2]];
    if (r > 180 && g < 100 && b > 180) magenta++;
    if (g > 180 && r < 100 && b < 100) green++;
  }
  return { magenta, green };
}

function imageOf(result: { content: { type: string; data?: string }[] }): Uint8Array {
  const block = result.content.find((b) => b.type === "image");
  assert(block?.data, "an image was returned");
  return decodeBase64(block.data);
}

function jpegColours(result: { content: { type: string; data?: string }[] }) {
  const decoded = jpeg.decode(imageOf(result), { useTArray: true, formatAsRGBA: true });
  return colours(decoded.data);
}

Deno.test("no image or console message shows a withheld frame: one browser, each case from the allowing policy", async (t) => {
  const s = await startSession({ policy: ALLOW, env: QUICK_RELOAD });
  try {
    await t.step(
      "console messages of a refused frame in the page's own process are withheld",
      async () => {
        // Two hosts of one site: Chromium runs the frame in the page's own process, and its messages
        // come with the page's.
        const port = new URL(s.fixtures.origin).port;
        const page = `http://a.site.localhost:${port}`;
        const framed = `http://b.site.localhost:${port}/magenta.html`;
        const tabId = await openThenRefuse(
          s,
          `${page}/colour_frame.html?src=${encodeURIComponent(framed)}`,
          `{ "default": "allow", "sacred": ["b.site.localhost"] }`,
        );
        await s.ok("javascript_tool", {
          action: "javascript_exec",
          text: "console.log('the page says hello'); 'logged'",
          tabId,
        });
        const read = await s.ok("read_console_messages", { tabId });
        const text = s.text(read);
        assertMatch(text, /the page says hello/);
        assert(!/magenta|48,213/.test(text), text);
        assertMatch(
          text,
          /1 console message was withheld, neither shown nor matched: it comes from a frame showing a site Ghostlight never touches/,
        );
        assertEquals(plain(read)?.withheldMessages, 1);
        const probed = s.text(await s.ok("read_console_messages", { tabId, pattern: "magenta" }));
        assertMatch(probed, /^0 console messages matching, of \d+,/);
      },
    );

    await t.step(
      "no image of the page shows a sacred frame: screenshot, zoom, scroll, GIF",
      async () => {
        const tabId = await openThenRefuse(s, colourFrame(s, magentaUrl(s)));

        const shot = await s.ok("computer", { action: "screenshot", tabId });
        const seen = jpegColours(shot);
        assertEquals(seen.magenta, 0, "no magenta pixel in the screenshot");
        assert(seen.green > 10_000, `the page around the frame shows (${seen.green} green)`);
        assertMatch(s.text(shot), WHY);
        assert(!/localhost:\d|magenta/i.test(s.text(shot)), s.text(shot));
        const regions = plain(shot)?.withheldRegions as { x: number; width: number }[];
        assertEquals(regions.length, 1);

        // A zoom on a region across the frame's edge scales the cover with it.
        const zoomed = await s.ok("computer", {
          action: "zoom",
          region: [50, 80, 250, 230],
          tabId,
        });
        const inZoom = jpegColours(zoomed);
        assertEquals(inZoom.magenta, 0, "no magenta pixel in the zoom");
        assert(inZoom.green > 1_000, `green shows in the zoom (${inZoom.green})`);
        assertMatch(s.text(zoomed), WHY);

        // The screenshot a scroll returns, with the frame moved up the viewport.
        const scrolled = await s.ok("computer", {
          action: "scroll",
          scroll_direction: "down",
          scroll_amount: 1,
          coordinate: [600, 500],
          tabId,
        });
        assertEquals(jpegColours(scrolled).magenta, 0, "no magenta pixel after the scroll");
        assertMatch(s.text(scrolled), WHY);

        // A recording's frames.
        await s.ok("gif_creator", {
          action: "start_recording",
          tabId,
          options: { intervalMs: 150 },
        });
        await pollUntil(
          () => s.ok("gif_creator", { action: "status", tabId }).then(plain),
          (state) => (state?.frames as number) >= 1,
          "the recording to take a frame",
        );
        await s.ok("gif_creator", { action: "stop_recording", tabId });
        const exported = await s.ok("gif_creator", { action: "export", tabId });
        assertMatch(
          s.text(exported),
          /Withheld in this GIF: in \d+ of its frames, frames of the page are painted over in grey: they show a site Ghostlight never touches/,
        );
        const gif = new GifReader(imageOf(exported));
        assert(gif.numFrames() >= 1);
        for (let i = 0; i < gif.numFrames(); i++) {
          const pixels = new Uint8Array(gif.width * gif.height * 4);
          gif.decodeAndBlitFrameRGBA(i, pixels);
          const frame = colours(pixels);
          assertEquals(frame.magenta, 0, `no magenta pixel in GIF frame ${i}`);
          assert(frame.green > 1_000, `green shows in GIF frame ${i}`);
        }
      },
    );

    await t.step(
      "a sacred frame nested in a same-origin frame, partly off-screen, is painted over",
      async () => {
        // The outer frame (same origin, walked in place) starts left of the viewport; the sacred
        // frame inside it is cut by the viewport's left edge.
        const inner = colourFrame(s, magentaUrl(s), "&left=20&top=30&w=260&h=160");
        const tabId = await openThenRefuse(
          s,
          colourFrame(s, inner, "&left=-120&top=60&w=420&h=300"),
        );
        const shot = await s.ok("computer", { action: "screenshot", tabId });
        const seen = jpegColours(shot);
        assertEquals(seen.magenta, 0, "no magenta pixel in the screenshot");
        assert(seen.green > 10_000, `the page around the frame shows (${seen.green} green)`);
        assertMatch(s.text(shot), WHY);
      },
    );

    await t.step("a page without withheld frames is shown as it is", async () => {
      await usePolicy(s, ALLOW);
      const tabId = await openFramed(s, colourFrame(s, magentaUrl(s)));
      const shot = await s.ok("computer", { action: "screenshot", tabId });
      assert(jpegColours(shot).magenta > 10_000, "the allowed frame shows");
      assert(!/Withheld/.test(s.text(shot)), s.text(shot));
    });

    await t.step(
      "input refused because of a frame is in the audit with the frame's rule",
      async () => {
        const tabId = await openThenRefuse(s, colourFrame(s, magentaUrl(s)));
        // The frame's box is at (100, 120) to (400, 320) in viewport CSS pixels.
        assertMatch(
          await s.fail("computer", { action: "left_click", coordinate: [250, 220], tabId }),
          /That point is inside a frame Ghostlight withholds/,
        );
        const out = await ghostlight(s.testEnv, ["audit", "tail", "-n", "30", "--json"]);
        assertEquals(out.code, 0, out.stderr);
        const records = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
        const click = records.findLast((r) => r.tool === "computer" && r.action === "left_click");
        const ofClick = records.filter((r) => r.work === click.work);
        const inner = ofClick.find((r) => r.kind === "decision" && r.host === "localhost");
        assert(inner, JSON.stringify(ofClick));
        assertEquals(inner.result, "sacred");
        assertMatch(inner.rule, /^withheld inside the call's page: localhost is a sacred site/);
        assertEquals(ofClick.at(-1).kind, "outcome");
        assertEquals(ofClick.at(-1).result, "denied");
        // People read it in `audit tail` too.
        const tail = await ghostlight(s.testEnv, ["audit", "tail", "-n", "30"]);
        assertMatch(
          tail.stdout,
          /decision sacred: unnamed \(client ghostlight-test\) computer left_click \[[^\]]*\] on localhost — withheld inside the call's page/,
        );
      },
    );

    await t.step("a withheld frame that keeps moving: no image is returned", async () => {
      const tabId = await openThenRefuse(s, colourFrame(s, magentaUrl(s), "&move=1"));
      assertMatch(
        await s.fail("computer", { action: "screenshot", tabId }),
        /^No image was taken: a frame Ghostlight withholds moved or changed while the image was taken/,
      );
    });
  } finally {
    await s.close();
  }
});
