/**
 * `file_upload` and `upload_image` end to end: a real MCP client, all three processes, headless
 * Chromium, on the upload bench, which reads every file it receives back from its bytes
 * (SHA-256, and image size for drops) and shows what it got.
 */

import { encodeBase64 } from "../shared/base64.ts";
import {
  MAX_TRANSFERS,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FILES,
  sha256Hex,
} from "../shared/transfer.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { type E2ESession, freshPage, refOf, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

interface Received {
  name: string;
  size: number;
  type: string;
  sha256: string;
  image?: [number, number] | null;
}

type BenchState = Record<string, Received[] | boolean>;

async function benchState(s: E2ESession, tabId: number): Promise<BenchState> {
  const text = s.text(await s.ok("get_page_text", { tabId }));
  const match = /STATE (\{.*\}) END/.exec(text);
  assert(match !== null, `the bench shows its state: ${text.slice(0, 500)}`);
  return JSON.parse(match[1]);
}

/** Reads the bench until it holds what `key` names: the page hashes files after the event. */
async function received(s: E2ESession, tabId: number, key: string): Promise<Received[]> {
  const state = await pollUntil(
    () => benchState(s, tabId),
    (state) => Array.isArray(state[key]),
    `the bench to record ${key}`,
  );
  return state[key] as Received[];
}

/** The SHA-256 as the bench shows it: hex in groups of 16. */
async function shown(data: Uint8Array): Promise<string> {
  return (await sha256Hex(data)).match(/.{16}/g)!.join(" ");
}

function bytes(count: number, seed: number): Uint8Array {
  const out = new Uint8Array(count);
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

Deno.test("file_upload and upload_image put files into the page whole", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/upload.html"), tabId });

    await t.step("a 3 MiB file arrives whole: the page's SHA-256 matches", async () => {
      await freshPage(s, tabId, "/upload.html");
      const ref = await refOf(s, tabId, /Attachment/);
      const file = bytes(3 * 1024 * 1024, 7);
      const result = await s.ok("file_upload", {
        tabId,
        ref,
        files: [{ name: "big.bin", data: encodeBase64(file), mimeType: "application/x-test" }],
      });
      assertMatch(s.text(result), /fired input and change/);
      assertEquals(result.structuredContent?.delivery, "input");
      const [got] = await received(s, tabId, "attachment");
      assertEquals(got, {
        name: "big.bin",
        size: file.length,
        type: "application/x-test",
        sha256: await shown(file),
      });
      assertEquals((await benchState(s, tabId)).attachmentInput, true, "input fired too");
    });

    await t.step("several small files in one call, types guessed from names", async () => {
      await freshPage(s, tabId, "/upload.html");
      const ref = await refOf(s, tabId, /Attachment/);
      const one = new TextEncoder().encode("hello");
      const two = bytes(1000, 3);
      await s.ok("file_upload", {
        tabId,
        ref,
        files: [
          { name: "a.txt", data: encodeBase64(one) },
          { name: "dir/b.png", data: `data:image/png;base64,${encodeBase64(two)}` },
        ],
      });
      const got = await received(s, tabId, "attachment");
      assertEquals(got.map((file) => [file.name, file.type, file.size]), [
        ["a.txt", "text/plain", 5],
        ["b.png", "image/png", 1000],
      ]);
      assertEquals(got[1].sha256, await shown(two));
    });

    await t.step("bad calls are refused with the limit or the fix", async () => {
      await freshPage(s, tabId, "/upload.html");
      const avatar = await refOf(s, tabId, /Avatar/);
      const file = { name: "a.txt", data: "aGVsbG8=" };
      assertMatch(
        await s.fail("file_upload", { tabId, ref: avatar, files: [file, file] }),
        /takes one file; nothing was put into it/,
      );
      assertMatch(
        await s.fail("file_upload", { tabId, ref: avatar, paths: ["/etc/passwd"] }),
        /paths is not supported/,
      );
      assertMatch(
        await s.fail("file_upload", { tabId, ref: avatar, files: [{ name: "x", data: "%%%" }] }),
        /files\[0\]\.data is not base64/,
      );
      const tooBig = encodeBase64(new Uint8Array(MAX_UPLOAD_BYTES + 3));
      assertMatch(
        await s.fail("file_upload", { tabId, ref: avatar, files: [{ name: "x", data: tooBig }] }),
        /at most 8388608 bytes \(8 MiB\)/,
      );
      const warned = await s.ok("file_upload", { tabId, ref: avatar, files: [file] });
      assertMatch(s.text(warned), /accepts \\?"image\/\*\\?", which a\.txt does not match/);
    });

    await t.step("the most files one call takes all arrive", async () => {
      // The extension once held fewer transfers at once than one upload may carry, so every
      // upload of 9 to 16 files was refused.
      assert(MAX_TRANSFERS >= MAX_UPLOAD_FILES, "the extension holds a whole upload's transfers");
      await freshPage(s, tabId, "/upload.html");
      const ref = await refOf(s, tabId, /Attachment/);
      const files = Array.from({ length: MAX_UPLOAD_FILES }, (_, i) => ({
        name: `f${i}.txt`,
        data: encodeBase64(new Uint8Array([i])),
      }));
      await s.ok("file_upload", { tabId, ref, files });
      const got = await received(s, tabId, "attachment");
      assertEquals(got.map((file) => file.name), files.map((file) => file.name));
    });

    await t.step("upload_image drops a screenshot onto a drop zone as an image file", async () => {
      await freshPage(s, tabId, "/upload.html");
      const shot = await s.ok("computer", { action: "screenshot", tabId });
      const imageId = shot.structuredContent?.imageId as string;
      const zone = await refOf(s, tabId, /Drop zone/);
      const result = await s.ok("upload_image", { tabId, imageId, ref: zone });
      assertEquals(result.structuredContent?.delivery, "drop");
      assertEquals(result.structuredContent?.dropAccepted, true);
      const [dropped] = await received(s, tabId, "drop");
      assertEquals(dropped.type, "image/jpeg");
      assertMatch(dropped.name, /\.jpg$/);
      assertEquals(dropped.image, [
        shot.structuredContent?.width as number,
        shot.structuredContent?.height as number,
      ]);
    });

    await t.step("upload_image by coordinate, and into a file input with a file name", async () => {
      await freshPage(s, tabId, "/upload.html");
      const shot = await s.ok("computer", { action: "screenshot", tabId });
      const imageId = shot.structuredContent?.imageId as string;
      const found = await s.ok("find", { tabId, query: "Drop zone" });
      const zone = (found.structuredContent?.matches as { x: number; y: number }[])[0];
      const dropped = await s.ok("upload_image", { tabId, imageId, coordinate: [zone.x, zone.y] });
      assertEquals(dropped.structuredContent?.targetAssurance, "coordinate");
      assertEquals((await received(s, tabId, "drop")).length, 1);
      const avatar = await refOf(s, tabId, /Avatar/);
      await s.ok("upload_image", { tabId, imageId, ref: avatar, filename: "me.jpg" });
      const [got] = await received(s, tabId, "avatar");
      assertEquals([got.name, got.type], ["me.jpg", "image/jpeg"]);
      assertMatch(
        await s.fail("upload_image", { tabId, imageId: "img_999", ref: avatar }),
        /No screenshot "img_999" is kept/,
      );
    });
  } finally {
    await s.close();
  }
});
