/**
 * Where a ref click lands (decision 0410): at a point of the element's own boxes that lies in
 * the viewport after scrolling, through every frame's transform, where a hit test finds the
 * element; a click that reaches something else says what it reached, and one that cannot reach
 * the viewport is refused. The shapes are the ones issue 28 saw missed, and the cases ported from
 * Playwright's own click tests (docs/playwright-cases.md), each driven through a real MCP client
 * with the page as witness.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { allText } from "./support/results.ts";
import { pollUntil } from "./support/wait.ts";
import {
  type CallResult,
  type E2ESession,
  freshPage,
  refOf,
  startSession,
} from "./support/session.ts";

interface Blocked {
  blockers: { kind: string; summary: string }[];
}

/** A value the page holds, read in its own world. */
async function inPage(s: E2ESession, tabId: number, expression: string): Promise<unknown> {
  const seen = await s.ok("javascript_tool", {
    action: "javascript_exec",
    text: expression,
    tabId,
  });
  return (plain(seen) as { result: unknown }).result;
}

/** The ref `find` gives first for `query`. */
async function refFor(s: E2ESession, tabId: number, query: string): Promise<string> {
  const found = await s.ok("find", { query, tabId });
  const matches = plain(found)?.matches as { ref: string }[];
  assert(matches.length > 0, `find ${query}: ${s.text(found)}`);
  return matches[0].ref;
}

/** A left click on what `find` names first; its answer, which must not be an error. */
async function clickOn(
  s: E2ESession,
  tabId: number,
  query: string,
  action = "left_click",
): Promise<CallResult> {
  return await s.ok("computer", { action, ref: await refFor(s, tabId, query), tabId });
}

function blockersOf(result: CallResult): string[] {
  return (plain(result)?.receipt as Blocked).blockers.map((b) => b.kind);
}

/** The clicks the aim fixture's page heard, in order. */
async function clicks(s: E2ESession, tabId: number): Promise<string[]> {
  return await inPage(s, tabId, "JSON.stringify(window.clicks)").then((v) => JSON.parse(String(v)));
}

Deno.test("aim in one browser: ref clicks and Playwright's click cases", async (t) => {
  const s = await startSession();
  try {
    await t.step("aim: a ref click lands on the element, or says what it reached", async (t) => {
      const tabId = await s.firstTab();
      let popupTab = 0;

      await t.step(
        "unaligned 1x1 elements are hit (their rounded box centre is outside them)",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=tiny");
          for (const name of ["Tiny one", "Tiny two", "Tiny three"]) {
            const clicked = await clickOn(s, tabId, name);
            assertEquals(blockersOf(clicked), [], s.text(clicked));
          }
          assertEquals(await clicks(s, tabId), ["Tiny one", "Tiny two", "Tiny three"]);
        },
      );

      await t.step(
        "an element half outside the viewport is clicked on its visible part",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=edges");
          for (const name of ["Half out", "Bottom edge", "Negative"]) {
            const clicked = await clickOn(s, tabId, name);
            assertEquals(blockersOf(clicked), [], s.text(clicked));
          }
          assertEquals(await clicks(s, tabId), ["right", "bottom", "left"]);
        },
      );

      await t.step(
        "an element no scroll brings into the viewport is refused, nothing sent",
        async () => {
          const refused = await s.fail("computer", {
            action: "left_click",
            ref: await refFor(s, tabId, "Far off"),
            tabId,
          });
          assertMatch(
            refused,
            /outside the viewport even after scrolling, so no left_click was sent/,
          );
          assertEquals(await clicks(s, tabId), ["right", "bottom", "left"]);
        },
      );

      await t.step(
        "a target under a fixed header is scrolled clear of it, then clicked",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=sticky");
          const clicked = await clickOn(s, tabId, "Row 9");
          assertEquals(blockersOf(clicked), [], s.text(clicked));
          assertEquals(await clicks(s, tabId), ["li9"]);
        },
      );

      await t.step(
        "an option below a list box's visible rows is scrolled to and chosen",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=select");
          const clicked = await clickOn(s, tabId, "Honeydew");
          assertEquals(blockersOf(clicked), [], s.text(clicked));
          assertEquals(
            await inPage(
              s,
              tabId,
              "[...document.getElementById('fruit').selectedOptions].map((o) => o.text).join()",
            ),
            "Honeydew",
          );
        },
      );

      await t.step("clicks inside a turned frame and a frame in a scaled frame land", async () => {
        await freshPage(s, tabId, "/aim.html?case=frames");
        for (const name of ["Turned", "Nested"]) {
          const clicked = await clickOn(s, tabId, name);
          assertEquals(blockersOf(clicked), [], s.text(clicked));
        }
        assertEquals(await clicks(s, tabId), ["Turned", "Nested"]);
      });

      await t.step(
        "in perspective: a leaning button is hit; in a leaning frame the click is refused",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=tilted");
          await pollUntil(
            () => s.ok("find", { query: "Tilted", tabId }).then((found) => s.text(found)),
            (text) => /Tilted/.test(text),
            "the frame's target to be found",
          );
          const leaning = await clickOn(s, tabId, "Leaning");
          assertEquals(blockersOf(leaning), [], s.text(leaning));
          const refused = await s.fail("computer", {
            action: "left_click",
            ref: await refFor(s, tabId, "Tilted"),
            tabId,
          });
          assertMatch(refused, /inside a frame the page shows in 3D perspective/);
          assertMatch(refused, /so no left_click was sent/);
          assertEquals(await clicks(s, tabId), ["Leaning"]);
        },
      );

      await t.step(
        "a target that takes no pointer input: the receipt names what was reached",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=ghost");
          const clicked = await clickOn(s, tabId, "Ghost");
          assertEquals(blockersOf(clicked), ["missed"], s.text(clicked));
          assertMatch(
            s.text(clicked),
            /reached div, which holds ref_\d+, not ref_\d+ itself: it takes no pointer input/,
          );
          assertEquals(await clicks(s, tabId), ["panel"]);
        },
      );

      await t.step(
        "clicks alternating between a page and the popup it opened are not held (issue 28)",
        async () => {
          await freshPage(s, tabId, "/popup_pair.html");
          const opened = await clickOn(s, tabId, "Open the other");
          const popup = (plain(opened)?.receipt as { tabDelta: { opened: { tabId: number }[] } })
            .tabDelta.opened[0].tabId;
          popupTab = popup;
          const refs = new Map([
            [tabId, await refFor(s, tabId, "Count")],
            [popup, await refFor(s, popup, "Count")],
          ]);
          // A flat hold per click (the issue saw ~5 s on most clicks in 4 of 6 fresh browsers)
          // makes half the clicks slow; a loaded machine makes one or two slow, not half.
          const slow: number[] = [];
          for (let i = 0; i < 8; i++) {
            const tab = i % 2 ? popup : tabId;
            const started = performance.now();
            const clicked = await s.ok("computer", {
              action: "left_click",
              ref: refs.get(tab)!,
              tabId: tab,
            });
            const took = performance.now() - started;
            assertMatch(s.text(clicked), /1 DOM change/);
            if (took > 4_500) slow.push(Math.round(took));
          }
          assert(slow.length < 4, `clicks held: ${slow.join(", ")} ms`);
          assertEquals(await inPage(s, tabId, "String(window.count)"), "4");
          assertEquals(await inPage(s, popup, "String(window.count)"), "4");
        },
      );

      await t.step(
        "clicks alternating between two tabs of one window each land once (0494)",
        async () => {
          const made = await s.ok("tabs_create_mcp", {});
          const other = (made.structuredContent as { tabs: { tabId: number }[] }).tabs
            .map((tab) => tab.tabId).find((id) => id !== tabId && id !== popupTab)!;
          await freshPage(s, tabId, "/popup_pair.html");
          await freshPage(s, other, "/popup_pair.html?child=1");
          const refs = new Map([
            [tabId, await refFor(s, tabId, "Count")],
            [other, await refFor(s, other, "Count")],
          ]);
          // The tab clicked is behind the other each time: brought to the front inside the click's
          // own message (its receipt and the page say the click landed there, once).
          for (let i = 0; i < 6; i++) {
            const tab = i % 2 ? other : tabId;
            const clicked = await s.ok("computer", {
              action: "left_click",
              ref: refs.get(tab)!,
              tabId: tab,
            });
            assertMatch(s.text(clicked), /1 DOM change/);
          }
          assertEquals(await inPage(s, tabId, "String(window.count)"), "3");
          assertEquals(await inPage(s, other, "String(window.count)"), "3");
        },
      );

      await t.step(
        "a click whose navigation brings no page (a download, one cancelled) is not held (0495)",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=leaves");
          const refs = [await refFor(s, tabId, "Save note"), await refFor(s, tabId, "Stay here")];
          // Each used to wait out the whole 5 s bound for a new document that never came; a
          // loaded machine makes one click slow, not most.
          const slow: number[] = [];
          for (let i = 0; i < 6; i++) {
            const started = performance.now();
            const clicked = await s.ok("computer", {
              action: "left_click",
              ref: refs[i % 2],
              tabId,
            });
            assertEquals(blockersOf(clicked), [], s.text(clicked));
            const took = performance.now() - started;
            if (took > 4_500) slow.push(Math.round(took));
          }
          assert(slow.length < 3, `clicks held: ${slow.join(", ")} ms`);
          assertEquals((await clicks(s, tabId)).join(), "save,stay,save,stay,save,stay");
          assertEquals(await inPage(s, tabId, "location.pathname"), "/aim.html");
        },
      );

      await t.step(
        "an open dialog's words are fenced with the origin of the page that opened it",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=press");
          await inPage(s, tabId, "setTimeout(() => alert('hold on'), 50); 'later'");
          const refused = await pollUntil(
            () => s.call("read_page", { tabId }),
            (result) => Boolean(result.isError),
            "read_page to meet the dialog",
          );
          const said = allText(refused);
          assertMatch(said, /dialog is open and freezes the page/);
          assert(said.includes(`origin="${s.fixtures.origin}" trust="untrusted">\nhold on`), said);
          await s.ok("computer", { action: "key", text: "Escape", tabId });
        },
      );

      await t.step("a mouse press carries a mouse's pressure (0.5)", async () => {
        await freshPage(s, tabId, "/aim.html?case=press");
        const pressed = await clickOn(s, tabId, "Press me");
        // The receipt's page words are fenced with the page's origin, which the service knows.
        const target = (pressed.structuredContent as { receipt: { target: { name: string } } })
          .receipt.target.name;
        assert(target.includes(`origin="${s.fixtures.origin}"`), target);
        assertEquals(await inPage(s, tabId, "JSON.stringify(window.presses)"), "[0.5]");
      });
    });

    await t.step("aim: Playwright's click cases, through our tools", async (t) => {
      const tabId = await s.firstTab();
      const clean = (kind: string, result: CallResult) =>
        assertEquals(blockersOf(result), [], `${kind}: ${s.text(result)}`);

      await t.step("a button, clicked and double clicked (input/button.html)", async () => {
        await freshPage(s, tabId, "/playwright/input/button.html");
        await clean("click", await clickOn(s, tabId, "Click target"));
        assertEquals(await global(s, tabId, "result"), "Clicked");
        await inPage(
          s,
          tabId,
          "window.double = false; document.querySelector('button')" +
            ".addEventListener('dblclick', () => { window.double = true; }); 'listening'",
        );
        await clean("double click", await clickOn(s, tabId, "Click target", "double_click"));
        assertEquals(await global(s, tabId, "double"), "true");
      });

      await t.step("a button turned over on its Y axis (input/rotatedButton.html)", async () => {
        await freshPage(s, tabId, "/playwright/input/rotatedButton.html");
        await clean("click", await clickOn(s, tabId, "Click target"));
        assertEquals(await global(s, tabId, "result"), "Clicked");
      });

      await t.step("a turned link broken over two lines (wrappedlink.html)", async () => {
        await freshPage(s, tabId, "/playwright/wrappedlink.html");
        await clean("click", await clickOn(s, tabId, "123321"));
        assertEquals(await global(s, tabId, "__clicked"), "true");
      });

      await t.step("buttons pushed past the right edge (offscreenbuttons.html)", async () => {
        await freshPage(s, tabId, "/playwright/offscreenbuttons.html");
        await inPage(
          s,
          tabId,
          "window.seen = []; for (const b of document.querySelectorAll('button')) " +
            "b.addEventListener('click', () => window.seen.push(b.textContent)); 'listening'",
        );
        for (let i = 0; i <= 10; i++) {
          await inPage(s, tabId, "scrollTo(0, 0); 'top'");
          const ref = await refFor(s, tabId, `button "${i}"`);
          await clean(`button ${i}`, await s.ok("computer", { action: "left_click", ref, tabId }));
        }
        assertEquals(
          await inPage(s, tabId, "window.seen.join()"),
          Array.from({ length: 11 }, (_, i) => i).join(),
        );
      });

      await t.step(
        "a button far down is scrolled to; a right click opens its menu (input/scrollable.html)",
        async () => {
          await freshPage(s, tabId, "/playwright/input/scrollable.html");
          await clean("click", await clickOn(s, tabId, "80: not clicked"));
          assertEquals(
            await inPage(s, tabId, "document.querySelector('#button-80').textContent"),
            "clicked",
          );
          await clean("right click", await clickOn(s, tabId, "8: not clicked", "right_click"));
          assertEquals(
            await inPage(s, tabId, "document.querySelector('#button-8').textContent"),
            "context menu",
          );
        },
      );

      await t.step("a checkbox and its label toggle it (input/checkbox.html)", async () => {
        await freshPage(s, tabId, "/playwright/input/checkbox.html");
        const box = await s.ok("find", { query: "Remember Me checkbox", tabId });
        const ref = (plain(box)?.matches as { ref: string }[])[0].ref;
        await clean("box", await s.ok("computer", { action: "left_click", ref, tabId }));
        assertEquals(await inPage(s, tabId, "String(result.check)"), "true");
        assertEquals(
          await inPage(s, tabId, "result.events.join()"),
          "mouseover,mouseenter,mousemove,mousedown,mouseup,click,input,change",
        );
        await clean("box again", await s.ok("computer", { action: "left_click", ref, tabId }));
        assertEquals(await inPage(s, tabId, "String(result.check)"), "false");
        // The label has a ref of its own; a click on it toggles its box (page-click "should click
        // on checkbox label and toggle").
        await freshPage(s, tabId, "/playwright/input/checkbox.html");
        const label = await refOf(s, tabId, /^\s*label "Remember Me"/);
        await clean("label", await s.ok("computer", { action: "left_click", ref: label, tabId }));
        assertEquals(await inPage(s, tabId, "String(result.check)"), "true");
        assertEquals(await inPage(s, tabId, "result.events.join()"), "click,input,change");
        await clean(
          "label again",
          await s.ok("computer", { action: "left_click", ref: label, tabId }),
        );
        assertEquals(await inPage(s, tabId, "String(result.check)"), "false");
      });

      await t.step(
        "an SVG shape, an empty span's generated text, a span split off screen",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=svg");
          await clean("circle", await clickOn(s, tabId, "circle"));
          assertEquals(await global(s, tabId, "__CLICKED"), "42");
          await freshPage(s, tabId, "/aim.html?case=inline");
          await clean("before", await clickOn(s, tabId, "Before"));
          await clean("split", await clickOn(s, tabId, "Split"));
          assertEquals(await clicks(s, tabId), ["before", "split"]);
        },
      );

      await t.step(
        "a label or text that takes no pointer input, inside its button or link",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=climb");
          await clean("button", await clickOn(s, tabId, "Inner label"));
          await clean("link", await clickOn(s, tabId, "Inner link"));
          assertEquals(await clicks(s, tabId), ["button", "link"]);
        },
      );

      await t.step("every checkable role toggles on a click", async () => {
        await freshPage(s, tabId, "/aim.html?case=roles");
        const roles = String(
          await inPage(
            s,
            tabId,
            "[...document.querySelectorAll('#stage [role]')].map((e) => e.getAttribute('role')).join()",
          ),
        ).split(",");
        assertEquals(roles.length, 7, roles.join());
        for (const role of roles) {
          await clean(role, await clickOn(s, tabId, `Toggle ${role}`));
          assertEquals(
            await inPage(
              s,
              tabId,
              `document.querySelector('[role=${role}]').getAttribute('aria-checked')`,
            ),
            "true",
            role,
          );
        }
      });

      await t.step(
        "find names the element called by its role's word first (CHECKBOX)",
        async () => {
          await freshPage(s, tabId, "/aim.html?case=named");
          const found = await s.ok("find", { query: "CHECKBOX", tabId });
          const first = (plain(found)?.matches as { ref: string; role: string }[])[0];
          assertEquals(first.role, "menuitemcheckbox", s.text(found));
          await clean(
            "item",
            await s.ok("computer", { action: "left_click", ref: first.ref, tabId }),
          );
          assertEquals(
            await inPage(s, tabId, "document.getElementById('item').getAttribute('aria-checked')"),
            "true",
          );
        },
      );

      await t.step("a page that is only a drawing gives its clickable shape a ref", async () => {
        await freshPage(s, tabId, "/drawing.html");
        const read = s.text(await s.ok("read_page", { tabId }));
        assert(!/shows nothing yet/.test(read), read);
        const shape = await refOf(s, tabId, /clickable/);
        assertEquals(await refFor(s, tabId, "circle"), shape);
        await clean("shape", await s.ok("computer", { action: "left_click", ref: shape, tabId }));
        assertEquals(await global(s, tabId, "dotted"), "true");
      });

      await t.step("a link holding only a block", async () => {
        await freshPage(s, tabId, "/aim.html?case=blocks");
        await clean("card", await clickOn(s, tabId, "Card"));
        assertEquals(await clicks(s, tabId), ["card"]);
      });

      await t.step("a 2x2 target in a frame with a border", async () => {
        await freshPage(s, tabId, "/aim.html?case=border");
        await clean("bordered", await clickOn(s, tabId, "Bordered"));
        assertEquals(await clicks(s, tabId), ["Bordered"]);
      });
    });
  } finally {
    await s.close();
  }
});

/** The page's global `name`, read in its own world. */
async function global(s: E2ESession, tabId: number, name: string): Promise<unknown> {
  return await inPage(s, tabId, `String(window[${JSON.stringify(name)}])`);
}
