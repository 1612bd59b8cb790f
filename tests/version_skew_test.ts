/**
 * Version skew against a real extension (issue 12): this tree's extension code, built to declare
 * an older version and no features, loaded into headless Chromium and driven by the 1.x SDK
 * client through all three processes. The upload bench, which shows every file it receives, is
 * the witness that nothing reached the page.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { UPGRADE_STEP } from "../shared/extension_features.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { buildOlderExtension } from "./support/older_extension.ts";
import { MOVED_TABS_POLICY, movedTabsStayGoverned } from "./support/moved_tabs.ts";
import { ghostlight } from "./support/processes.ts";
import { refOf, startSession } from "./support/session.ts";

const OLDER = "0.0.9";

/** The features acting on a page needs: the minimum an extension declares (decision 0311). */
const MINIMUM = ["after_replies", "reply_values"];

/** A session whose browser runs this tree's extension built as `OLDER` declaring `features`. */
function olderSession(work: string, features: string[], prefix: string) {
  return startSession({
    instancePrefix: prefix,
    policy: MOVED_TABS_POLICY,
    launchArgs: ["--remote-debugging"],
    async beforeLaunch(testEnv) {
      // Where `browser launch`, running as the service, may read it: the instance's cache.
      const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
      const dir = `${paths.cacheDir}/older-extension`;
      await Deno.mkdir(paths.cacheDir, { recursive: true, mode: 0o700 });
      await buildOlderExtension(dir, work, { version: OLDER, features });
      return ["--extension", dir];
    },
  });
}

Deno.test("an older real extension with only the minimum features: uploads give the upgrade step, the rest works and stays governed", async () => {
  const work = await Deno.makeTempDir({ prefix: "ghostlight-older-" });
  const s = await olderSession(work, MINIMUM, "skw");
  try {
    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    const [browser] = (await fetchStatus(paths.controlSocket)).browsers;
    assertEquals(browser.extensionVersion, OLDER);
    assertEquals(browser.features, MINIMUM);
    assertMatch(
      browser.mismatch ?? "",
      new RegExp(`^extension ${OLDER} is older than .* lacks transfers`),
    );
    assert(browser.mismatch?.endsWith(UPGRADE_STEP), browser.mismatch);
    const shown = await ghostlight(s.testEnv, ["status"]);
    assertMatch(shown.stdout, /version mismatch: .*lacks transfers/);

    // The tools that need no missing feature work: open, load, look, read, run.
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/bench_form.html?run=skew"), tabId });
    await s.ok("computer", {
      action: "left_click",
      ref: await refOf(s, tabId, /Full name/),
      tabId,
    });
    const typed = await s.ok("computer", { action: "type", text: "Ada", tabId });
    assertMatch(s.text(typed), /Typed 3 characters[\s\S]*holding "Ada"/);
    await s.ok("navigate", { url: s.fixtures.url("/upload.html"), tabId });
    const shot = await s.ok("computer", { action: "screenshot", tabId });
    const imageId = shot.structuredContent?.imageId as string;
    const attachment = await refOf(s, tabId, /Attachment/);
    const zone = await refOf(s, tabId, /Drop zone/);
    const ran = await s.ok("javascript_tool", {
      action: "javascript_exec",
      text: "document.title",
      tabId,
    });
    assertMatch(s.text(ran), /upload/i);

    for (
      const [tool, args] of [
        ["file_upload", { tabId, ref: attachment, files: [{ name: "a.txt", data: "aGk=" }] }],
        ["upload_image", { tabId, imageId, ref: zone }],
      ] as const
    ) {
      const refused = await s.fail(tool, args);
      assertMatch(refused, /does not support transfers/);
      assertMatch(refused, /nothing was sent/);
      assert(refused.includes(UPGRADE_STEP), refused);
    }
    // The bench shows every file it gets, by input or by drop: none arrived.
    const text = s.text(await s.ok("get_page_text", { tabId }));
    assertMatch(text, /STATE \{\} END/);
    // Its tabs do not report where they stand: the gate asks the browser, and a tab that moves
    // stays governed just the same.
    assertMatch(browser.mismatch ?? "", /lacks transfers, tab_locations/);
    await movedTabsStayGoverned(s, tabId, { filters: false });
  } finally {
    await s.close();
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("an extension below the minimum features: acting answers with the upgrade step and nothing reaches the page", async () => {
  const work = await Deno.makeTempDir({ prefix: "ghostlight-older-" });
  const s = await olderSession(work, [], "skm");
  try {
    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    const [browser] = (await fetchStatus(paths.controlSocket)).browsers;
    assertMatch(
      browser.mismatch ?? "",
      /lacks .*after_replies, reply_values.*\(.*computer, act_on, form_fill/,
    );
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/bench_form.html?run=minimum"), tabId });
    const field = await refOf(s, tabId, /Full name/);
    for (
      const [tool, args] of [
        ["computer", { action: "left_click", ref: field, tabId }],
        ["computer", { action: "type", text: "Ada", tabId }],
        ["act_on", { target: { ref: field }, action: "left_click", tabId }],
        ["form_fill", { fields: { "Full name": "Ada" }, tabId }],
      ] as const
    ) {
      const refused = await s.fail(tool, args);
      assertMatch(refused, /does not support after_replies/);
      assert(refused.includes(UPGRADE_STEP), refused);
    }
    // Nothing was clicked, focused or typed.
    const page = await s.ok("javascript_tool", {
      action: "javascript_exec",
      text: "'focus=' + document.activeElement?.tagName + ';values=' + " +
        "document.getElementById('full-name').value + ';'",
      tabId,
    });
    assertMatch(s.text(page), /focus=BODY;values=;/);
  } finally {
    await s.close();
    await Deno.remove(work, { recursive: true });
  }
});
