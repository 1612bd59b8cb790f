/**
 * Every `computer` action end to end: a real MCP client, all three processes, headless
 * Chromium, on the action bench fixture, which records what it received. Each step reads the
 * page's own record back (get_page_text) and checks it.
 */

import { decodeBase64 } from "../shared/base64.ts";
import { jpegSize } from "../service/tools/page/jpeg.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import {
  type CallResult,
  type E2ESession,
  freshPage,
  settledRequests,
  startSession,
} from "./support/session.ts";
import { pollUntil, waitFor } from "./support/wait.ts";

interface BenchState {
  events: {
    type: string;
    x: number;
    y: number;
    button: number;
    detail: number;
    ctrl: boolean;
    shift: boolean;
  }[];
  keys: string[];
  value: string;
  hovered: boolean;
  drag: { from: number[]; to: number[] } | null;
  scrollY: number;
}

async function benchState(s: E2ESession, tabId: number): Promise<BenchState> {
  const text = s.text(await s.ok("get_page_text", { tabId }));
  const match = /STATE (\{.*\}) END/.exec(text);
  assert(match !== null, `the bench shows its state: ${text.slice(0, 500)}`);
  return JSON.parse(match[1]);
}

/**
 * Reads the bench until `done` holds: the page records scrolls, resizes and hovers in handlers
 * that run on a later frame than the input, and an action's answer may come first.
 */
async function benchUntil(
  s: E2ESession,
  tabId: number,
  done: (state: BenchState) => boolean,
  what: string,
): Promise<BenchState> {
  return await pollUntil(() => benchState(s, tabId), done, what);
}

function image(result: CallResult): { width: number; height: number } {
  const block = result.content.find((b) => b.type === "image");
  assert(block?.data, "an image block");
  assertEquals(block.mimeType, "image/jpeg");
  const size = jpegSize(decodeBase64(block.data));
  assert(size !== null, "the image decodes as JPEG");
  return size;
}

function near(actual: number, expected: number, what: string): void {
  assert(Math.abs(actual - expected) <= 1, `${what}: expected ${expected}, got ${actual}`);
}

/** The tab's `document.visibilityState`, as the page's script answers it. */
async function visibilityOf(s: E2ESession, tabId: number): Promise<string> {
  return s.text(
    await s.ok("javascript_tool", {
      action: "javascript_exec",
      text: "document.visibilityState",
      tabId,
    }),
  );
}

function failure(s: E2ESession, args: Record<string, unknown>): Promise<string> {
  return s.fail("computer", args);
}

Deno.test("computer: every action lands on the page as real input", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/actions.html"), tabId });
    /** A step on a freshly loaded bench: what an earlier step left must not fail this one. */
    const onBench = (name: string, fn: () => Promise<void>) =>
      t.step(name, async () => {
        await freshPage(s, tabId, "/actions.html");
        await fn();
      });

    await t.step("screenshot keeps an id and sets the coordinate space", async () => {
      const shot = await s.ok("computer", { action: "screenshot", tabId });
      const size = image(shot);
      assertEquals(plain(shot)?.width, size.width);
      assertMatch(String(plain(shot)?.imageId), /^img_\d+_\d+$/);
    });

    await t.step(
      "a scrolled tab's screenshot in one message is the one two trips take",
      async () => {
        // A fresh tab sent to its page by the page itself (not navigate, whose landing report
        // tells the scale ahead): its first screenshot is made the ordinary way, the next in one
        // message at the scale the first had (decision 0242). The page stands still: one image.
        const made = await s.ok("tabs_create_mcp", {});
        const fresh = Number(s.text(made).match(/Opened tab (\d+)/)?.[1]);
        const script = (text: string) =>
          s.ok("javascript_tool", { action: "javascript_exec", text, tabId: fresh });
        await script(`location.href = ${JSON.stringify(s.fixtures.url("/rows.html"))}; 1`);
        await pollUntil(
          async () => s.text(await script("document.readyState + ' ' + location.pathname")),
          (text) => /complete \/rows\.html/.test(text),
          "the page to load",
        );
        await script("scrollTo(0, 1500); scrollY");
        const data = async () => {
          const shot = await s.ok("computer", { action: "screenshot", tabId: fresh });
          return shot.content.find((block) => block.type === "image")!.data!;
        };
        const first = await data();
        const second = await data();
        assert(first.length > 1_000, "an image");
        assertEquals(second, first, "the same viewport at the same scale");
        await s.ok("tab_control", { tabId: fresh, action: "close" });
      },
    );

    await t.step("a screenshot of a background tab brings it to the front first", async () => {
      const made = await s.ok("tabs_create_mcp", {});
      const other = Number(s.text(made).match(/Opened tab (\d+)/)?.[1]);
      assert(Number.isInteger(other), s.text(made));
      const visibility = () => visibilityOf(s, tabId);
      await pollUntil(visibility, (text) => /hidden/.test(text), "the tab to go to the background");
      await s.ok("computer", { action: "screenshot", tabId });
      await pollUntil(
        visibility,
        (text) => /\bvisible\b/.test(text),
        "the screenshot to bring the tab to the front",
      );
      await s.ok("tab_control", { tabId: other, action: "close" });
    });

    await onBench(
      "a click by ref in a background tab brings it to the front and lands",
      async () => {
        const made = await s.ok("tabs_create_mcp", {});
        const other = Number(s.text(made).match(/Opened tab (\d+)/)?.[1]);
        const hidden = () => visibilityOf(s, tabId);
        await pollUntil(hidden, (text) => /hidden/.test(text), "the tab to go to the background");
        const found = await s.ok("find", { query: "click pad", tabId });
        const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
        // The one-message click is not sent to a page in the background (decision 0239): the tab
        // comes to the front first, and the click lands.
        const result = await s.ok("computer", { action: "left_click", ref, tabId });
        assertEquals((plain(result)?.receipt as { target: { ref: string } }).target.ref, ref);
        await benchUntil(
          s,
          tabId,
          (state) => state.events.some((event) => event.type === "click"),
          "the click on the pad",
        );
        assertMatch(await hidden(), /\bvisible\b/);
        await s.ok("tab_control", { tabId: other, action: "close" });
      },
    );

    await onBench("left_click at a coordinate, with a receipt", async () => {
      const result = await s.ok("computer", {
        action: "left_click",
        coordinate: [200, 100],
        tabId,
      });
      const receipt = plain(result)?.receipt as Record<string, unknown>;
      assertEquals(receipt.targetAssurance, "coordinate");
      assertMatch(s.text(result), /click pad/);
      assertMatch(s.text(result), /trust="untrusted"/);
      const state = await benchState(s, tabId);
      const click = state.events.at(-1)!;
      assertEquals([click.type, click.button, click.detail], ["click", 0, 1]);
      near(click.x, 200, "x");
      near(click.y, 100, "y");
    });

    await onBench(
      "a receipt names what changed, and typing with nothing focused is flagged",
      async () => {
        const result = await s.ok("computer", {
          action: "left_click",
          coordinate: [220, 90],
          tabId,
        });
        const after = (plain(result)?.receipt as {
          observedAfter: { changedElements?: { name: string }[] };
        }).observedAfter;
        assertMatch(after.changedElements?.[0]?.name ?? "", /^STATE /);
        assertMatch(s.text(result), /changed: pre "STATE/);
        // The page redraws its state on its own (a resize just after it loaded): let that pass,
        // so the only cause left in the typing's window is the typing.
        await s.ok("wait_for", { tabId, state: "settled" });
        const typed = await s.ok("computer", { action: "type", text: "zz", tabId });
        const blockers = (plain(typed)?.receipt as { blockers: { kind: string }[] })
          .blockers;
        assertEquals(blockers.map((b) => b.kind), ["no_focus"], s.text(typed));
      },
    );

    await onBench("modifiers reach the click", async () => {
      await s.ok("computer", {
        action: "left_click",
        coordinate: [300, 150],
        modifiers: "ctrl+shift",
        tabId,
      });
      const click = (await benchState(s, tabId)).events.at(-1)!;
      assertEquals([click.ctrl, click.shift], [true, true]);
    });

    await onBench("double_click and triple_click", async () => {
      await s.ok("computer", { action: "double_click", coordinate: [250, 120], tabId });
      let events = (await benchState(s, tabId)).events;
      assertEquals(events.at(-1)!.type, "dblclick");
      await s.ok("computer", { action: "triple_click", coordinate: [250, 120], tabId });
      events = (await benchState(s, tabId)).events;
      assertEquals(events.filter((e) => e.type === "click").at(-1)!.detail, 3);
    });

    await onBench("right_click opens the context menu event", async () => {
      await s.ok("computer", { action: "right_click", coordinate: [210, 110], tabId });
      const last = (await benchState(s, tabId)).events.at(-1)!;
      assertEquals([last.type, last.button], ["contextmenu", 2]);
    });

    await onBench("hover moves the mouse over an element", async () => {
      await s.ok("computer", { action: "hover", coordinate: [450, 435], tabId });
      await benchUntil(s, tabId, (state) => state.hovered, "the hover to be recorded");
    });

    await onBench("type sends real key events into the focused field", async () => {
      await s.ok("computer", { action: "left_click", coordinate: [100, 435], tabId });
      const typed = await s.ok("computer", { action: "type", text: "Hi there", tabId });
      assertMatch(s.text(typed), /Hi there/);
      const state = await benchState(s, tabId);
      assertEquals(state.value, "Hi there");
      assertEquals(state.keys.slice(-8).join(""), "Hi there");
      const long = "0123456789".repeat(200);
      await s.ok("computer", { action: "key", text: "ctrl+a Delete", tabId });
      await s.ok("computer", { action: "type", text: long, tabId });
      assertEquals((await benchState(s, tabId)).value, long);
    });

    await onBench("key chords, shift+Tab and repeat", async () => {
      await s.ok("computer", { action: "left_click", coordinate: [100, 435], tabId });
      await s.ok("computer", { action: "type", text: "some text", tabId });
      await s.ok("computer", { action: "key", text: "ctrl+a Delete", tabId });
      let state = await benchState(s, tabId);
      assertEquals(state.value, "");
      assert(state.keys.includes("a+ctrl"), JSON.stringify(state.keys));
      await s.ok("computer", { action: "type", text: "again", tabId });
      await s.ok("computer", { action: "key", text: "cmd+a BackSpace", tabId });
      assertEquals((await benchState(s, tabId)).value, "", "cmd+a selects all here too");
      await s.ok("computer", { action: "key", text: "Return", repeat: 3, tabId });
      state = await benchState(s, tabId);
      assertEquals(state.keys.slice(-3), ["Enter", "Enter", "Enter"]);
      await s.ok("computer", { action: "key", text: "shift+Tab", tabId });
      state = await benchState(s, tabId);
      assertEquals(state.keys.at(-1), "Tab+shift");
    });

    await onBench("refs from find: click and scroll_to", async () => {
      const ref = async (query: string) => {
        const found = await s.ok("find", { query, tabId });
        const matches = plain(found)?.matches as { ref: string }[];
        assert(matches.length > 0, `find ${query}: ${s.text(found)}`);
        return matches[0].ref;
      };
      const field = await ref("Name field");
      await s.ok("computer", { action: "key", text: "Escape", tabId });
      const clicked = await s.ok("computer", { action: "triple_click", ref: field, tabId });
      assertEquals(
        (plain(clicked)?.receipt as { targetAssurance: string }).targetAssurance,
        "ref",
      );
      await s.ok("computer", { action: "type", text: "via ref", tabId });
      assertEquals((await benchState(s, tabId)).value, "via ref");

      const far = await ref("Far below");
      const scrolled = await s.ok("computer", { action: "scroll_to", ref: far, tabId });
      assertMatch(s.text(scrolled), /into view/);
      await benchUntil(s, tabId, (state) => state.scrollY > 1000, "the scroll to the element");

      assertMatch(
        await failure(s, { action: "left_click", ref: "ref_99999", tabId }),
        /ref_99999 was never given out for this tab/,
      );
      assertMatch(
        await failure(s, { action: "scroll_to", tabId }),
        /ref is required for scroll_to/,
      );
    });

    await onBench("left_click_drag presses, moves and releases", async () => {
      await s.ok("computer", {
        action: "left_click_drag",
        start_coordinate: [100, 500],
        coordinate: [400, 510],
        tabId,
      });
      const drag = (await benchState(s, tabId)).drag!;
      near(drag.from[0], 100, "drag start x");
      near(drag.to[0], 400, "drag end x");
      near(drag.to[1], 510, "drag end y");
    });

    await onBench("a click on a disabled button or a select reports the blocker", async () => {
      const result = await s.ok("computer", {
        action: "left_click",
        coordinate: [950, 485],
        tabId,
      });
      const receipt = plain(result)?.receipt as { blockers: { kind: string }[] };
      assertEquals(receipt.blockers.map((b) => b.kind), ["disabled"]);
      const select = await s.ok("computer", {
        action: "left_click",
        coordinate: [930, 535],
        tabId,
      });
      assertMatch(s.text(select), /Choose the option with form_input/);
      await s.ok("computer", { action: "key", text: "Escape", tabId });
    });

    await onBench(
      "an overlay on a ref's target and an alert are reported as blockers",
      async () => {
        const found = await s.ok("find", { query: "Covered target", tabId });
        const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
        const covered = await s.ok("computer", { action: "left_click", ref, tabId });
        const receipt = plain(covered)?.receipt as {
          blockers: { kind: string }[];
          target: { name: string };
        };
        assertEquals(receipt.blockers.map((b) => b.kind), ["overlay"]);
        assertEquals(receipt.target.name, "Covered target");
        assertMatch(s.text(covered), /div "Cookie banner" lies on top of ref_\d+/);

        const alerted = await s.ok("computer", {
          action: "left_click",
          coordinate: [700, 485],
          tabId,
        });
        const blockers = (plain(alerted)?.receipt as { blockers: { kind: string }[] })
          .blockers;
        assertEquals(blockers.map((b) => b.kind), ["dialog"]);
        assertMatch(s.text(alerted), /dialog says: "hi from the bench"/);
        assertMatch(
          await s.fail("navigate", { url: s.fixtures.url("/actions.html"), tabId }),
          /A JavaScript alert dialog is open/,
        );
        assertMatch(
          await failure(s, { action: "screenshot", tabId }),
          /alert dialog is open and freezes the page\. It says:\n<page-content-[^>]+>\nhi from the bench\n[\s\S]*key "Return"/,
        );
        assertMatch(
          s.text(await s.ok("computer", { action: "key", text: "Return", tabId })),
          /Accepted the alert dialog/,
        );
        await s.ok("computer", { action: "screenshot", tabId });

        // By ref, the lookup, the click and the receipt's read travel in one message, and the
        // alert holds the click: what the lookup found still comes back (decision 0239).
        const hi = await s.ok("find", { query: "Say hi button", tabId });
        const hiRef = (plain(hi)?.matches as { ref: string }[])[0].ref;
        const byRef = await s.ok("computer", { action: "left_click", ref: hiRef, tabId });
        const held = plain(byRef)?.receipt as {
          blockers: { kind: string }[];
          target: { name: string; ref: string };
        };
        assertEquals(held.blockers.map((b) => b.kind), ["dialog"]);
        assertEquals([held.target.name, held.target.ref], ["Say hi", hiRef]);
        assertMatch(
          s.text(byRef),
          /left_click at ref_\d+\.[\s\S]*dialog says: "hi from the bench"/,
        );
        await s.ok("computer", { action: "key", text: "Return", tabId });

        const asked = await s.ok("computer", {
          action: "left_click",
          coordinate: [820, 485],
          tabId,
        });
        assertMatch(s.text(asked), /dialog says: "Your name\?"/);
        assertMatch(
          s.text(await s.ok("computer", { action: "type", text: "Ada", tabId })),
          /Accepted the prompt dialog\. Another confirm dialog opened[\s\S]*"Keep it\?"/,
        );
        assertMatch(
          await failure(s, { action: "key", text: "Tab", tabId }),
          /confirm dialog is open; only Return \(accept\) or Escape \(dismiss\)/,
        );
        await s.ok("computer", { action: "key", text: "Escape", tabId });
        const answered = await benchState(s, tabId) as BenchState & {
          answer: string;
          confirmed: boolean;
        };
        assertEquals([answered.answer, answered.confirmed], ["Ada", false]);

        await s.ok("computer", { action: "left_click", coordinate: [700, 485], tabId });
        await s.ok("navigate", { url: s.fixtures.url("/actions.html"), force: true, tabId });
        assertEquals((await benchState(s, tabId)).events.length, 0);
      },
    );

    await onBench("scroll moves the page and returns a screenshot", async () => {
      const result = await s.ok("computer", {
        action: "scroll",
        scroll_direction: "down",
        scroll_amount: 5,
        tabId,
      });
      image(result);
      await benchUntil(s, tabId, (state) => state.scrollY === 500, "the page at y 500");
      await s.ok("computer", {
        action: "scroll",
        scroll_direction: "up",
        scroll_amount: 10,
        tabId,
      });
      await benchUntil(s, tabId, (state) => state.scrollY === 0, "the page back at the top");
    });

    await onBench("scroll over an inner scroller moves it, not the page", async () => {
      const result = await s.ok("computer", {
        action: "scroll",
        coordinate: [1100, 600],
        scroll_direction: "down",
        scroll_amount: 2,
        tabId,
      });
      assertMatch(s.text(result), /inside "Inner list", now at x 0, y 200; the page itself/);
      assertEquals((await benchState(s, tabId)).scrollY, 0);
      const end = await s.ok("computer", {
        action: "scroll",
        scroll_direction: "up",
        scroll_amount: 3,
        tabId,
      });
      assertMatch(s.text(end), /nothing moved/);
    });

    await onBench("zoom renders a region larger, under its own id", async () => {
      const result = await s.ok("computer", { action: "zoom", region: [0, 0, 200, 100], tabId });
      const size = image(result);
      assertEquals(size.width, 400, `zoom renders at twice the CSS size: ${size.width}`);
      near(size.width / size.height, 2, "aspect ratio");
    });

    await onBench("wait waits", async () => {
      const started = Date.now();
      await s.ok("computer", { action: "wait", duration: 0.3, tabId });
      assert(Date.now() - started >= 300, "waited at least the duration");
    });

    await onBench(
      "a popup and a target=_blank tab become the agent's, with a tab delta",
      async () => {
        const result = await s.ok("computer", {
          action: "left_click",
          coordinate: [760, 435],
          tabId,
        });
        const delta = (plain(result)?.receipt as {
          tabDelta?: { opened: { tabId: number }[] };
        }).tabDelta;
        assert(delta && delta.opened.length === 1, `a tab delta: ${s.text(result)}`);
        const popup = delta.opened[0].tabId;
        assertMatch(s.text(result), new RegExp(`Opened tab ${popup}`));
        const listed = await s.ok("tabs_context_mcp", {});
        const ids = (plain(listed) as { tabs: { tabId: number }[] }).tabs.map((t) => t.tabId);
        assert(ids.includes(popup), `the popup is listed: ${s.text(listed)}`);
        // The popup loads, logs and fetches on its own time, after the click's answer.
        await waitFor(
          async () =>
            /child says hello/.test(
              s.text(await s.ok("read_console_messages", { tabId: popup })),
            ),
          "the popup's console message",
        );
        const requests = await settledRequests(s, popup, "data.json?from=child");
        assertMatch(s.text(requests), /GET 200 http:\/\/127\.0\.0\.1:\d+\/data\.json\?from=child/);
        const closing = await s.ok("computer", {
          action: "left_click",
          coordinate: [60, 75],
          tabId: popup,
        });
        const closed = (plain(closing)?.receipt as { tabDelta?: { closed: number[] } })
          .tabDelta;
        assertEquals(closed?.closed, [popup]);

        const blank = await s.ok("computer", {
          action: "left_click",
          coordinate: [870, 428],
          tabId,
        });
        const opened = (plain(blank)?.receipt as {
          tabDelta?: { opened: { tabId: number }[] };
        }).tabDelta?.opened ?? [];
        assertEquals(opened.length, 1, s.text(blank));
        await waitFor(
          async () =>
            /Child page opened/.test(
              s.text(await s.ok("get_page_text", { tabId: opened[0].tabId })),
            ),
          "the new tab's page",
        );

        // The new tab is in front now: scrolling the opener brings it back first.
        const scrolled = await s.ok("computer", {
          action: "scroll",
          scroll_direction: "down",
          scroll_amount: 2,
          tabId,
        });
        assertMatch(s.text(scrolled), /the page is now at x 0, y 200/);
      },
    );

    await onBench("a click that navigates reports the new URL and title", async () => {
      const found = await s.ok("find", { query: "Home link", tabId });
      const ref = (plain(found)?.matches as { ref: string }[])[0].ref;
      const result = await s.ok("computer", { action: "left_click", ref, tabId });
      const after = (plain(result)?.receipt as {
        observedAfter: { urlChanged?: string; titleChanged?: string };
      }).observedAfter;
      assertEquals(after.urlChanged, s.fixtures.url("/index.html"));
      assertEquals(after.titleChanged, "Ghostlight fixture home");
      assertMatch(
        s.text(result),
        /Now at http:\/\/127\.0\.0\.1:\d+ <page-content-[\w-]+ [^>]*>\n\/index\.html\n<\/page-content/,
      );
    });

    await t.step("left_click_drag performs an HTML5 drag and drop", async () => {
      await freshPage(s, tabId, "/dnd.html");
      await s.ok("computer", { action: "screenshot", tabId });
      const result = await s.ok("computer", {
        action: "left_click_drag",
        start_coordinate: [70, 40],
        coordinate: [400, 70],
        tabId,
      });
      assertMatch(s.text(result), /changed: p "dropped item"/);
    });

    await onBench("resize_window resizes the real window", async () => {
      const real = await s.ok("resize_window", { width: 1000, height: 700, tabId });
      assertMatch(s.text(real), /The window of tab \d+ is 1000×700/);
      await benchUntil(
        s,
        tabId,
        (state) => (state as BenchState & { width: number }).width <= 1000,
        "the page's narrower viewport",
      );
      // The answer reports the viewport the page has now, and a screenshot at once agrees.
      const wide = await s.ok("resize_window", { width: 1280, height: 800, tabId });
      const reported = (plain(wide) as { viewport: { width: number } }).viewport;
      assert(reported.width > 1000, `the new viewport is reported: ${reported.width}`);
      const shot = await s.ok("computer", { action: "screenshot", tabId });
      const block = shot.content.find((b) => b.type === "image")!;
      const shotWidth = jpegSize(decodeBase64(block.data!))!.width;
      // The screenshot leaves out the page's scrollbar (at most ~20 px); the rest must agree.
      assert(
        shotWidth <= reported.width && shotWidth >= reported.width - 20,
        `screenshot ${shotWidth} px wide, reported viewport ${reported.width}`,
      );
    });

    await t.step("argument errors name the field and show a correct call", async () => {
      assertMatch(
        await failure(s, { action: "left_click", tabId }),
        /coordinate \(or ref\) is required for left_click[\s\S]*"coordinate":\[400,300\]/,
      );
      assertMatch(await failure(s, { action: "type", tabId }), /text is required for type/);
      assertMatch(
        await failure(s, { action: "key", text: "ctrl+Banana", tabId }),
        /unknown key name "Banana"/,
      );
      assertMatch(
        await failure(s, { action: "left_click_drag", coordinate: [1, 1], tabId }),
        /start_coordinate is required/,
      );
      assertMatch(
        await failure(s, { action: "scroll", tabId }),
        /scroll_direction is required for scroll/,
      );
      assertMatch(await failure(s, { action: "zoom", region: [5, 5, 1, 1], tabId }), /x1 > x0/);
      assertMatch(
        await failure(s, { action: "left_click", coordinate: [99999, 5], tabId }),
        /outside your latest screenshot/,
      );
      assertMatch(
        await failure(s, { action: "left_click", modifiers: "hyper", coordinate: [5, 5], tabId }),
        /modifiers: "hyper" is not a modifier/,
      );
      assertMatch(
        await failure(s, { action: "screenshot", tabId: tabId + 999 }),
        /is not one of your tabs/,
      );
    });
  } finally {
    await s.close();
  }
});
