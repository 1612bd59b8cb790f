/**
 * navigate, read_console_messages, read_network_requests, resize_window and update_plan end to
 * end, in a headless Chromium with device scale factor 2; and the screenshot coordinate model
 * on a viewport wider than 1568 px, so the screenshot really is downscaled.
 */

import { decodeBase64 } from "../shared/base64.ts";
import { jpegSize } from "../service/tools/page/jpeg.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain as structuredOf } from "./support/fence.ts";
import { executable } from "./support/env.ts";
import { type E2ESession, freshPage, settledRequests, startSession } from "./support/session.ts";
import { pollUntil, waitFor } from "./support/wait.ts";

async function benchState(s: E2ESession, tabId: number) {
  const text = s.text(await s.ok("get_page_text", { tabId }));
  const match = /STATE (\{.*\}) END/.exec(text);
  assert(match !== null, `the bench shows its state: ${text.slice(0, 300)}`);
  return JSON.parse(match[1]) as {
    events: { type: string; x: number; y: number }[];
    dpr: number;
    width: number;
  };
}

Deno.test("navigate, console, network, resize and plan in a HiDPI browser", async (t) => {
  const s = await startSession({ launchArgs: ["--device-scale-factor", "2"] });
  try {
    const tabId = await s.firstTab();

    await t.step("console messages are buffered from the first touch", async () => {
      const loaded = await s.ok("navigate", { url: s.fixtures.url("/logs.html"), tabId });
      assertMatch(s.text(loaded), /logged \d+ console errors? \(read_console_messages/);
      let text = "";
      await waitFor(async () => {
        text = s.text(await s.ok("read_console_messages", { tabId }));
        return /late failure/.test(text) && /data says lit/.test(text);
      }, "the page's console output");
      assertMatch(text, /\[log\] boot ok 42/);
      assertMatch(text, /\[warning\] careful: low fog/);
      assertMatch(text, /\[error\] broken thing in the lighthouse/);
      assertMatch(text, /\[error exception\] .*late failure/);
      assertMatch(text, /trust="untrusted"/);
      assertMatch(text, /deploy key \[redacted\]/);
      assert(!text.includes("abcdefghijklmnopqrstuvwxyz0123"), "the token is not shown");
      await waitFor(async () => {
        text = s.text(await s.ok("read_console_messages", { tabId, pattern: "absent" }));
        return /access_token=\[redacted\]/.test(text);
      }, "the failed load of /absent");
      assert(!text.includes("s3cr3t"), `the credential is not shown: ${text}`);
      // Patterns match the redacted text: the count is no oracle for a hidden secret.
      const probe = await s.ok("read_console_messages", { tabId, pattern: "s3cr3t|ghp_abcdef" });
      assertEquals(structuredOf(probe)?.total, 0);
      const probeNet = await s.ok("read_network_requests", { tabId, urlPattern: "s3cr3t" });
      assertEquals(structuredOf(probeNet)?.total, 0);
      assertMatch(
        await s.fail("read_console_messages", { tabId, pattern: "(a+)+$" }),
        /without a quantified group that holds a quantifier/,
      );

      const errors = await s.ok("read_console_messages", { tabId, onlyErrors: true });
      const levels = (structuredOf(errors)?.messages as { level: string }[]).map((m) => m.level);
      assert(levels.length >= 2 && levels.every((level) => level === "error"), String(levels));

      const fog = await s.ok("read_console_messages", { tabId, pattern: "FOG|nothing" });
      assertEquals(structuredOf(fog)?.total, 1);
      const last = await s.ok("read_console_messages", { tabId, limit: 1 });
      assertEquals((structuredOf(last)?.messages as unknown[]).length, 1);

      assertMatch(
        await s.fail("read_console_messages", { tabId, pattern: "(" }),
        /pattern is not a valid regular expression/,
      );
      await s.ok("read_console_messages", { tabId, clear: true });
      const cleared = await s.ok("read_console_messages", { tabId });
      assertEquals(structuredOf(cleared)?.total, 0);
    });

    await t.step("network requests with status, method and type", async () => {
      const all = await settledRequests(s, tabId);
      const requests = structuredOf(all)?.requests as {
        method: string;
        url: string;
        status?: number;
        type?: string;
      }[];
      const page = requests.find((r) => r.url.endsWith("/logs.html"));
      assertEquals([page?.method, page?.status, page?.type], ["GET", 200, "Document"]);
      const missing = requests.find((r) => r.url.endsWith("/api/missing.json"));
      assertEquals([missing?.method, missing?.status], ["POST", 404]);
      assertMatch(s.text(all), /POST 404 http:\/\/127\.0\.0\.1:\d+\/api\/missing\.json/);
      assertMatch(s.text(all), /\/absent\?access_token=\[redacted\]/);
      assert(!JSON.stringify(all).includes("s3cr3t"), "the credential is not shown");

      const data = await s.ok("read_network_requests", { tabId, urlPattern: "data.json" });
      assertEquals(structuredOf(data)?.total, 1);
      await s.ok("read_network_requests", { tabId, clear: true });
      assertEquals(
        structuredOf(await s.ok("read_network_requests", { tabId }))?.total,
        0,
      );
    });

    await t.step("events after an action land in the buffers", async () => {
      await s.ok("computer", { action: "screenshot", tabId });
      await s.ok("computer", { action: "left_click", coordinate: [70, 75], tabId });
      const net = await settledRequests(s, tabId, "click=1");
      assertEquals(structuredOf(net)?.total, 1);
      const logs = await pollUntil(
        () => s.ok("read_console_messages", { tabId, pattern: "^clicked" }),
        (read) => structuredOf(read)?.total !== 0,
        "the click's console message",
      );
      assertMatch(s.text(logs), /clicked 1/);
    });

    await t.step("a page flooding the console stays bounded and the tab stays usable", async () => {
      const tab = structuredOf(await s.ok("tabs_create_mcp", {})) as {
        tabs: { tabId: number }[];
      };
      const flooded = tab.tabs.at(-1)!.tabId;
      await s.ok("navigate", { url: s.fixtures.url("/flood.html"), tabId: flooded });
      // The page's messages may still be on their way when navigate returns.
      const read = await pollUntil(
        () => s.ok("read_console_messages", { tabId: flooded, limit: 3 }),
        (result) => /were not recorded|older ones were dropped/.test(s.text(result)),
        "the flood to overflow the console buffer",
      );
      const total = structuredOf(read)?.total as number;
      assert(total > 0 && total <= 500, `kept ${total}`);
      await s.ok("computer", { action: "screenshot", tabId: flooded });
    });

    await t.step("navigate: scheme default, redirects, history", async () => {
      const bare = s.fixtures.url("/index.html").replace("http://", "");
      const plain = await s.ok("navigate", { url: bare, tabId });
      assertEquals(structuredOf(plain)?.url, s.fixtures.url("/index.html"));
      assertMatch(s.text(plain), /Ghostlight fixture home/);

      const redirected = await s.ok("navigate", {
        url: s.fixtures.url("/redirect?to=/actions.html"),
        tabId,
      });
      assertEquals(structuredOf(redirected)?.url, s.fixtures.url("/actions.html"));
      assertMatch(s.text(redirected), /redirected from [^\n]*\n\/redirect\?to=/);

      const secret = await s.ok("navigate", {
        url: s.fixtures.url("/index.html?session_id=zzz123&page=2"),
        tabId,
      });
      assertEquals(
        structuredOf(secret)?.url,
        s.fixtures.url("/index.html?session_id=[redacted]&page=2"),
      );
      assert(!s.text(secret).includes("zzz123"), "the session id is not shown");
      await s.ok("navigate", { url: "back", tabId });

      const back = await s.ok("navigate", { url: "back", tabId });
      assertEquals(structuredOf(back)?.url, s.fixtures.url("/index.html"));
      const forward = await s.ok("navigate", { url: "forward", tabId });
      assertEquals(structuredOf(forward)?.url, s.fixtures.url("/actions.html"));
    });

    await t.step("navigate returns a ready document without waiting for a slow image", async () => {
      const result = await s.ok("navigate", { url: s.fixtures.url("/slow.html"), tabId });
      assertEquals(structuredOf(result)?.readyState, "interactive");
      assertMatch(s.text(result), /document is ready; some resources are still loading/);
    });

    await t.step(
      "a click that leads to another page answers with that page, without waiting for its images",
      async () => {
        type Led = {
          observedAfter: {
            urlChanged?: string;
            mutations: number;
            focus?: { name: string };
            stillLoading?: boolean;
          };
          page: { title: string };
        };
        const click = async (name: string) => {
          await s.ok("navigate", { url: s.fixtures.url("/leads.html"), tabId });
          const found = await s.ok("find", { query: `${name} link`, tabId });
          const ref = (structuredOf(found)?.matches as { ref: string }[])[0].ref;
          const started = performance.now();
          const result = await s.ok("computer", { action: "left_click", ref, tabId });
          return {
            receipt: structuredOf(result)?.receipt as Led,
            text: s.text(result),
            ms: performance.now() - started,
          };
        };
        // Its title and the field it focuses as it loads come with the receipt (decision 0240).
        const signIn = await click("Sign in");
        assertEquals(signIn.receipt.observedAfter.urlChanged, s.fixtures.url("/focused.html"));
        assertEquals(signIn.receipt.page.title, "Sign in here");
        assertEquals(signIn.receipt.observedAfter.focus?.name, "Email");
        assertEquals(signIn.receipt.observedAfter.mutations, 0);
        assertMatch(signIn.text, /Now at [^\n]*\n\/focused\.html[\s\S]*focused: textbox "Email"/);
        // The image takes ten seconds: the page is answered once its document is ready, from
        // its runtime's report at its first frame (decision 0245), which the page cannot keep
        // from hearing DOMContentLoaded. Without that report the receipt would wait for the
        // navigation's bound (5 s) and then read the page; a click and a local page take well
        // under a second even on a loaded machine.
        const slow = await click("Slow page");
        assertEquals(slow.receipt.observedAfter.urlChanged, s.fixtures.url("/slow.html"));
        assertEquals(slow.receipt.page.title, "Slow image");
        assertEquals(slow.receipt.observedAfter.stillLoading, true);
        assertMatch(
          slow.text,
          /Now at [^\n]*\n\/slow\.html\n<\/page-content-[\w-]+>\. Its document is ready; some resources are still/,
        );
        assert(slow.ms < 4_500, `answered after ${Math.round(slow.ms)} ms, not at the image`);
      },
    );

    await t.step("navigate: a leave-page prompt stops it unless forced", async () => {
      try {
        await s.ok("navigate", { url: s.fixtures.url("/leave.html"), tabId });
        await s.ok("computer", { action: "left_click", coordinate: [100, 80], tabId });
        await s.ok("computer", { action: "type", text: "draft", tabId });
        const refused = await s.fail("navigate", {
          url: s.fixtures.url("/index.html"),
          tabId,
        });
        assertMatch(refused, /asked to stay[\s\S]*force: true/);
        // A tab has 32 event waiters; a refused navigation must not keep one until its timeout,
        // or after 32 refusals the next prompt would go unanswered.
        const started = Date.now();
        for (let i = 0; i < 34; i++) {
          assertMatch(
            await s.fail("navigate", { url: s.fixtures.url("/index.html"), tabId }),
            /asked to stay/,
            `refusal ${i + 2}`,
          );
        }
        // An unanswered prompt would fail its call only at the load timeout (20 s), with
        // another message; this bound is just "none hung", generous for a loaded machine.
        assert(Date.now() - started < 60_000, "the refusals hung");
        // Chrome answers a move back before a busy page asks to stay: the prompt is still
        // answered, never left open (a browser that drops the move outright says that instead).
        for (let i = 0; i < 3; i++) {
          assertMatch(
            await s.fail("navigate", { url: "back", tabId }),
            /asked to stay|stopped the move back before the tab left its page/,
            `move back ${i + 1}`,
          );
        }
        const still = s.text(await s.ok("get_page_text", { tabId }));
        assertMatch(still, /asks before you leave/);
        const forced = await s.ok("navigate", {
          url: s.fixtures.url("/index.html"),
          force: true,
          tabId,
        });
        assertEquals(structuredOf(forced)?.url, s.fixtures.url("/index.html"));
      } finally {
        // However this step ends, the next one must not meet the prompt.
        await freshPage(s, tabId, "/index.html");
      }
    });

    await t.step("navigate returns when the page opens a dialog while loading", async () => {
      try {
        const result = await s.ok("navigate", { url: s.fixtures.url("/greet.html"), tabId });
        assertEquals(structuredOf(result)?.readyState, "blocked");
        assertMatch(s.text(result), /alert dialog opened while it loaded[\s\S]*"Welcome aboard"/);
        await s.ok("computer", { action: "key", text: "Return", tabId });
        await waitFor(
          async () =>
            /Loaded after the greeting/.test(s.text(await s.ok("get_page_text", { tabId }))),
          "the rest of the page",
        );
      } finally {
        await freshPage(s, tabId, "/index.html");
      }
    });

    await t.step("navigate: clear errors", async () => {
      assertMatch(
        await s.fail("navigate", { url: "javascript:alert(1)", tabId }),
        /only opens http and https/,
      );
      assertMatch(
        await s.fail("navigate", { url: "http://127.0.0.1:9/", tabId }),
        /Could not load http:\/\/127\.0\.0\.1:9\/: net::ERR_UNSAFE_PORT[\s\S]*list of unsafe ports/,
      );
      assertMatch(
        await s.fail("navigate", { url: "https://example.com", tabId: 42 }),
        /Tab 42 is not one of your tabs/,
      );
      // A missing page loads the server's error page: said plainly, with the status.
      const missing = await s.ok("navigate", { url: s.fixtures.url("/no-such-page.html"), tabId });
      assertMatch(s.text(missing), /The server answered HTTP 404/);
      assertEquals((structuredOf(missing) as { status?: number }).status, 404);
      const found = await s.ok("navigate", { url: s.fixtures.url("/index.html"), tabId });
      assertEquals((structuredOf(found) as { status?: number }).status, 200);
      // A request answered with no content is aborted after it went out: sent once, and the
      // tab is said to stay, not the site to be down.
      assertMatch(
        await s.fail("navigate", { url: s.fixtures.url("/no-content"), tabId }),
        /stopped before a new page arrived \(net::ERR_ABORTED\), so the tab stayed on its page/,
      );
      const sent = await settledRequests(s, tabId, "/no-content");
      assertEquals(structuredOf(sent)?.total, 1, "the navigation was sent once");
      const tabs = await s.ok("tabs_context_mcp", {});
      const here = (structuredOf(tabs)?.tabs as { tabId: number; url: string }[])
        .find((tab) => tab.tabId === tabId);
      assertEquals(here?.url, s.fixtures.url("/index.html"));
    });

    await t.step("navigate: the title a page sets as it loads, redacted", async () => {
      const landed = await s.ok("navigate", { url: s.fixtures.url("/onload_title.html"), tabId });
      const facts = structuredOf(landed) as { title?: string; status?: number; loaded?: boolean };
      // The title the page's own load handler set, with the one-time code it copied hidden.
      assertEquals(facts.title, "Welcome back, code [redacted]");
      assertEquals([facts.status, facts.loaded], [200, true]);
      assert(!s.text(landed).includes("483920"), "the code never leaves the page");
      // The report's binding lives in Ghostlight's world alone: the page cannot call it.
      const seen = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "Object.getOwnPropertyNames(globalThis).filter((name) => " +
          "name.startsWith('__ghostlight')).length + ' bindings'",
        tabId,
      });
      assertMatch(s.text(seen), /\b0 bindings/);
    });

    await t.step(
      "coordinates land exactly on a downscaled screenshot at scale factor 2",
      async () => {
        const resized = await s.ok("resize_window", { width: 1900, height: 1000, tabId });
        assertMatch(s.text(resized), /1900×1000/);
        await s.ok("navigate", { url: s.fixtures.url("/actions.html"), tabId });
        const shot = await s.ok("computer", { action: "screenshot", tabId });
        const block = shot.content.find((b) => b.type === "image")!;
        const size = jpegSize(decodeBase64(block.data!))!;
        assertEquals(size.width, 1568, "the screenshot is downscaled to 1568 px wide");
        assertMatch(s.text(shot), /the page's viewport is \d+×\d+ CSS px: divide page coordinates/);
        const before = await benchState(s, tabId);
        assertEquals(before.dpr, 2);
        assert(before.width > 1568, `viewport ${before.width}`);
        for (const [x, y] of [[784, 200], [1500, 50], [13, 330]]) {
          await s.ok("computer", { action: "left_click", coordinate: [x, y], tabId });
          const click = (await benchState(s, tabId)).events.at(-1)!;
          const scale = before.width / size.width;
          assert(Math.abs(click.x - x * scale) <= 1, `x ${x} → ${click.x}, expected ${x * scale}`);
          assert(Math.abs(click.y - y * scale) <= 1, `y ${y} → ${click.y}, expected ${y * scale}`);
        }
        assertMatch(
          s.text(resized),
          /viewport is emulated at 1900×\d+ instead, what such a window/,
        );

        // find speaks the same coordinates: its centre, clicked as it is, hits the element.
        const found = await s.ok("find", { query: "click pad", tabId });
        const pad = (structuredOf(found) as { matches: { x: number; y: number }[] }).matches[0];
        const clicksBefore = (await benchState(s, tabId)).events.filter((e) => e.type === "click");
        await s.ok("computer", { action: "left_click", coordinate: [pad.x, pad.y], tabId });
        const clicks = (await benchState(s, tabId)).events.filter((e) => e.type === "click");
        assertEquals(clicks.length, clicksBefore.length + 1, "the click landed on the pad");
        const rect = await s.ok("javascript_tool", {
          action: "javascript_exec",
          text: "const r = document.getElementById('pad').getBoundingClientRect(); " +
            "[r.left + r.width / 2, r.top + r.height / 2]",
          tabId,
        });
        const [cx, cy] = JSON.parse(/\[[\d., -]+\]/.exec(s.text(rect))![0]) as number[];
        assert(Math.abs(clicks.at(-1)!.x - cx) <= 2, `x ${clicks.at(-1)!.x}, centre ${cx}`);
        assert(Math.abs(clicks.at(-1)!.y - cy) <= 2, `y ${clicks.at(-1)!.y}, centre ${cy}`);

        assertMatch(
          await s.fail("resize_window", { width: 50, height: 800, tabId }),
          /width must be between 200 and 8192/,
        );
      },
    );

    await t.step("update_plan is recorded and shown in ghostlight status", async () => {
      const plan = await s.ok("update_plan", {
        domains: ["https://example.com/path", "docs.example.org"],
        approach: ["Open the docs", "Read the install page"],
      });
      assertMatch(s.text(plan), /2 steps on example\.com, docs\.example\.org/);
      assertEquals(structuredOf(plan)?.kept, true);
      const { command, args } = executable(s.testEnv, "service", [
        "--instance",
        s.testEnv.instance,
        "status",
        "--json",
      ]);
      const output = await new Deno.Command(command, {
        args,
        env: s.testEnv.env,
        clearEnv: true,
        stdout: "piped",
        stderr: "null",
      }).output();
      const status = JSON.parse(new TextDecoder().decode(output.stdout));
      assertEquals(status.plans[0].approach, ["Open the docs", "Read the install page"]);
      assertMatch(
        await s.fail("update_plan", { domains: [], approach: [] }),
        /approach must list at least one step/,
      );
      // The plan's text is the model's: a newline in it must not forge a service log line.
      await s.ok("update_plan", {
        domains: [],
        approach: ["Read it\n2026-01-01T00:00:00.000Z error forged line"],
      });
      let log = "";
      for await (const entry of Deno.readDir(`${s.testEnv.home}/state`)) {
        log += await Deno.readTextFile(`${s.testEnv.home}/state/${entry.name}/service.log`)
          .catch(() => "");
      }
      assertMatch(log, /plan kept for "ghostlight-test": 0 domain\(s\), 1 step\(s\)/);
      assert(!log.includes("forged"), "the plan's text is not logged");
      assert(!/ws_[A-Za-z0-9_-]{8,}/.test(log), "no workspace id is ever logged");
    });
  } finally {
    await s.close();
  }
});
