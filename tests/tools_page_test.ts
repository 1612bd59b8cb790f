/**
 * The page-understanding tools end to end: a real MCP client, all three processes and headless
 * Chromium on the fixture site. Every action is checked against the page's real state
 * afterwards (through javascript_tool or a fresh read), not against the tool's own report.
 */

import { decomposeTabId } from "../service/browser/mod.ts";
import { unpackWalk } from "../service/tools/page/collect.ts";
import { WORLD_NAME } from "../service/tools/page/frames.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { connectCdp, evaluateInExtension, inTabWorld, watchExtension } from "./support/cdp.ts";
import { plain } from "./support/fence.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { type CallResult, type E2ESession, freshPage, startSession } from "./support/session.ts";
import { waitFor } from "./support/wait.ts";

interface Match {
  ref: string;
  role: string;
  name: string;
  box: { x: number; y: number; width: number; height: number };
  x: number;
  y: number;
}

async function js(s: E2ESession, tabId: number, text: string): Promise<string> {
  const result = await s.ok("javascript_tool", { action: "javascript_exec", text, tabId });
  return (plain(result) as { result: string }).result;
}

async function findOne(s: E2ESession, tabId: number, query: string): Promise<Match> {
  const result = await s.ok("find", { query, tabId });
  const matches = (plain(result) as { matches: Match[] }).matches;
  assert(matches.length > 0, `find "${query}" matched nothing`);
  return matches[0];
}

function refIn(text: string, line: RegExp): string {
  const found = text.split("\n").find((l) => line.test(l));
  assert(found, `no line matching ${line} in:\n${text.slice(0, 3000)}`);
  return /\[(ref_\d+)\]/.exec(found)![1];
}

/**
 * The expression that starts counting, in the world it runs in, the calls of each method named
 * (`"Element.getAttribute"`: the prototype and method) into `globalThis.__asked[key]`, the reads
 * of each property named in `reads` (`"Node.firstChild"`) likewise, and the reads of `Element`'s
 * `tagName` and `shadowRoot` into `__asked.tags` and `__asked.shadows`.
 */
function counting(calls: Record<string, string>, reads: Record<string, string> = {}): string {
  const getters = {
    ...reads,
    tags: "Element.tagName",
    shadows: "Element.shadowRoot",
  };
  return `(() => {
    const count = globalThis.__asked = {};
    for (const [key, at] of ${JSON.stringify(Object.entries(calls))}) {
      const [type, name] = at.split(".");
      const proto = globalThis[type].prototype;
      const own = proto[name];
      count[key] = 0;
      proto[name] = function (...args) { count[key]++; return own.apply(this, args); };
    }
    for (const [key, at] of ${JSON.stringify(Object.entries(getters))}) {
      const [type, name] = at.split(".");
      const proto = globalThis[type].prototype;
      const own = Object.getOwnPropertyDescriptor(proto, name);
      count[key] = 0;
      Object.defineProperty(proto, name, {
        configurable: true,
        get() { count[key]++; return own.get.call(this); },
      });
    }
    return true;
  })()`;
}

function errorText(result: CallResult): string {
  assert(result.isError, `expected an error, got ${JSON.stringify(result).slice(0, 500)}`);
  return result.content.map((block) => block.text ?? "").join("\n");
}

Deno.test("read_page, find, form_input and javascript_tool on the fixture site", async (t) => {
  const s = await startSession({
    fixtureHeaders: {
      "/csp.html": { "content-security-policy": "default-src 'none'; script-src 'none'" },
    },
    // The runtime's own world is looked into over DevTools (how often find walks the page).
    launchArgs: ["--remote-debugging"],
  });
  const cdp = await connectCdp(s.browser.ready.devtools!);
  // A second server on another origin; "localhost" is another site than 127.0.0.1, so
  // Chromium runs its frame out of process.
  const other = serveFixtures();
  try {
    const tabId = await s.firstTab();
    // Every step loads its own page, whatever the last one left there (an open dialog, too).
    const go = (path: string) => freshPage(s, tabId, path);
    // The runtime's own world in the tab, where it counts what a call asks of the page.
    const world = (expression: string) =>
      evaluateInExtension<unknown>(
        cdp,
        inTabWorld(decomposeTabId(tabId)!.native, WORLD_NAME, expression),
      );

    await t.step("read_page outlines the form with refs and redacts secrets", async () => {
      await go("/signup.html");
      const text = s.text(await s.ok("read_page", { tabId }));
      assertMatch(text, /trust="untrusted"/);
      assertMatch(text, /textbox "Email address" \[ref_\d+\] placeholder="you@example.com"/);
      assertMatch(text, /combobox "Country" \[ref_\d+\] value="Choose one"/);
      assert(!text.includes("/join"), "a visibility: hidden menu is not read");
      assertMatch(text, /radio "Beacon plan" \[ref_\d+\] unchecked/);
      assertMatch(text, /button "Cancel" \[ref_\d+\] disabled/);
      assertMatch(text, /textbox "Referral code" \[ref_\d+\] disabled/);
      assertMatch(text, /textbox "Password" \[ref_\d+\] value="\[redacted\]"/);
      assert(!text.includes("hunter2"), "the password value never leaves the page");
      assert(!text.includes("sk_live_4eC39"), "an API key in page text is redacted");
      const again = s.text(await s.ok("read_page", { tabId }));
      assertEquals(
        refIn(again, /button "Create account"/),
        refIn(text, /button "Create account"/),
        "the same element keeps its ref across reads",
      );
      const interactive = s.text(await s.ok("read_page", { tabId, filter: "interactive" }));
      assert(!/^\s*text "/m.test(interactive), "interactive filter drops text");
      assert(!/^ {2}/m.test(interactive.split("\n").slice(2, -1).join("\n")), "flat list");
      assertMatch(interactive, /checkbox "Send me the almanac"/);
      const promo = refIn(interactive, /clickable "Apply promo code"/);
      await s.ok("computer", { action: "left_click", ref: promo, tabId });
      assertEquals(
        await js(s, tabId, "document.getElementById('promo').textContent"),
        "Promo applied",
      );
      const shallow = s.text(await s.ok("read_page", { tabId, depth: 2 }));
      assertMatch(shallow, /group "Who you are" \[ref_\d+\]/);
      assert(!shallow.includes("Email address"), "depth 2 stops above the fields");
      assert(!shallow.includes("Framework state"), "depth 2 hides deeper text too");
      assertMatch(shallow, /deeper parts hidden by depth 2/);
      const form = refIn(text, /form "Sign up"/);
      const sub = s.text(await s.ok("read_page", { tabId, ref_id: form }));
      assertMatch(sub, /under ref_\d+/);
      assert(!sub.includes("Join the Keepers' Guild\" [ref"), "ref_id reads only the subtree");
    });

    await t.step("find ranks elements and gives boxes that match the page", async () => {
      await go("/signup.html");
      const email = await findOne(s, tabId, "email field");
      assertEquals(email.role, "textbox");
      assertEquals(email.name, "Email address");
      const record = plain(await s.ok("find", { query: "email field", tabId })) as {
        provenance: { pageSourced: boolean; untrusted: boolean; topOrigin: string };
      };
      assertEquals(record.provenance.untrusted, true);
      assertEquals(record.provenance.topOrigin, s.fixtures.origin);
      const real = JSON.parse(
        await js(
          s,
          tabId,
          "const r = document.getElementById('email').getBoundingClientRect(); JSON.stringify([Math.round(r.x), Math.round(r.y)])",
        ),
      );
      assertEquals([email.box.x, email.box.y], real, "find's box is the element's real box");
      assertEquals(email.x, Math.round(email.box.x + email.box.width / 2));
      const submit = await findOne(s, tabId, "create account button");
      assertEquals(submit.name, "Create account");
      // A hidden duplicate earlier in the page (an off-canvas menu's link) loses to the visible one.
      const visible = await findOne(s, tabId, "create account");
      assertEquals(visible.role, "button");
      const login = await findOne(s, tabId, "register");
      assertEquals(login.name, "Create account", "synonyms reach the button's own words");
      const fallback = await s.ok("find", { query: "zebra checkbox", tabId });
      assertMatch(
        s.text(fallback),
        /no element [\s\S]* has the words of "zebra checkbox"; here are its checkbox/i,
      );
      assertMatch(s.text(fallback), /checkbox "Send me the almanac"/);
      const nothing = await s.ok("find", { query: "zebra crossing", tabId });
      assertMatch(s.text(nothing), /Nothing on tab/);
      // A word every object answers for ("constructor") is an ordinary word, in the page's
      // ranking as in the service's.
      await js(
        s,
        tabId,
        "const a = document.createElement('a'); a.href = '#standings'; " +
          "a.textContent = 'Constructor standings'; document.body.append(a); 1",
      );
      const standings = await findOne(s, tabId, "constructor standings");
      assertEquals([standings.role, standings.name], ["link", "Constructor standings"]);
    });

    await t.step("form_input sets every kind of field and the page sees it", async () => {
      await go("/signup.html");
      const text = s.text(await s.ok("read_page", { tabId }));
      const ref = (pattern: RegExp) => refIn(text, pattern);

      const set = async (target: string, value: string | boolean) =>
        s.text(await s.ok("form_input", { ref: target, value, tabId }));

      const email = ref(/textbox "Email address"/);
      assertEquals(
        await set(email, "keeper@example.com"),
        `Set textbox [${email}] to "keeper@example.com".`,
      );
      assertEquals(
        await js(s, tabId, "document.getElementById('email').value"),
        "keeper@example.com",
      );

      // The framework-style input ignores a plain assignment plus input event...
      assertEquals(
        await js(
          s,
          tabId,
          "const el = document.getElementById('username'); el.value = 'direct'; " +
            "el.dispatchEvent(new Event('input', { bubbles: true })); window.frameworkState.username",
        ),
        "",
      );
      // ...but form_input's native setter and events reach its state.
      await set(ref(/textbox "Username/), "skerry");
      assertEquals(await js(s, tabId, "window.frameworkState.username"), "skerry");
      assertEquals(
        await js(s, tabId, "document.getElementById('username-state').textContent"),
        "Framework state: skerry",
      );

      await set(ref(/textbox "Full name"/), "Ada Keeper");
      await set(ref(/combobox "Country"/), "Ireland");
      await set(ref(/checkbox "Send me the almanac"/), true);
      await set(ref(/radio "Lamp plan"/), true);
      assertEquals(
        await js(s, tabId, "document.querySelector('input[name=plan]:checked').value"),
        "lamp",
      );
      // A group with a radio's label chooses that radio.
      assertMatch(
        await set(ref(/group "Plan"/), "Beacon plan"),
        /^Chose radio \[ref_\d+\] for "Beacon plan"\.$/,
      );
      await set(ref(/textbox "About your lighthouse"/), "Granite, 31 m, white light");
      await set(ref(/textbox "Keeper's story"/), "Forty winters on the rock");
      const state = JSON.parse(
        await js(
          s,
          tabId,
          `JSON.stringify({
          name: document.getElementById('full-name').value,
          country: document.getElementById('country').value,
          news: document.getElementById('news').checked,
          plan: document.querySelector('input[name=plan]:checked')?.value,
          bio: document.getElementById('bio').value,
          story: document.getElementById('story').textContent,
          events: document.getElementById('events').textContent,
        })`,
        ),
      );
      assertEquals(state.name, "Ada Keeper");
      assertEquals(state.country, "ie");
      assertEquals(state.news, true);
      assertEquals(state.plan, "beacon");
      assertEquals(state.bio, "Granite, 31 m, white light");
      assertEquals(state.story, "Forty winters on the rock");
      for (
        const event of ["full-name:input", "full-name:change", "country:change", "news:change"]
      ) {
        assert(state.events.includes(event), `${event} fired: ${state.events}`);
      }
      const unchecked = await s.ok("form_input", {
        ref: ref(/checkbox "Send me the almanac"/),
        value: false,
        tabId,
      });
      assertEquals(
        (plain(unchecked) as { target: { states: string[] } }).target.states,
        [
          "unchecked",
        ],
      );
      assertEquals(await js(s, tabId, "document.getElementById('news').checked"), "false");
      await set(ref(/checkbox "Send me the almanac"/), "yes");
      assertEquals(await js(s, tabId, "document.getElementById('news').checked"), "true");
      assertMatch(
        errorText(
          await s.call("form_input", { ref: ref(/checkbox "Send me/), value: "maybe", tabId }),
        ),
        /"value" must be true or false[\s\S]*"value": true/,
      );
      await set(ref(/checkbox "Send me the almanac"/), false);

      await set(ref(/textbox "First watch"/), "2026-12-01");
      await s.ok("form_input", { ref: ref(/slider "Lamp brightness"/), value: 7, tabId });
      assertEquals(
        await js(
          s,
          tabId,
          "document.getElementById('start').value + ' ' + document.getElementById('bright').value",
        ),
        "2026-12-01 7",
      );
      // A change handler that opens a dialog freezes the page: form_input says so at once.
      const station = await s.call("form_input", {
        ref: ref(/textbox "Lighthouse name"/),
        value: "Skerry",
        tabId,
      });
      assertMatch(
        errorText(station),
        /opened a JavaScript alert dialog[\s\S]*Station Skerry saved/,
      );
      await s.ok("computer", { action: "key", text: "Return", tabId });
      assertEquals(await js(s, tabId, "document.getElementById('station').value"), "Skerry");
      assertMatch(
        errorText(
          await s.call("form_input", { ref: ref(/combobox "Country"/), value: "Mars", tabId }),
        ),
        /no option[\s\S]*trust="untrusted">\n[^\n]*"Norway" \(no\)/,
      );
      assertMatch(
        errorText(
          await s.call("form_input", { ref: ref(/button "Create account"/), value: "x", tabId }),
        ),
        /is not a form field \(it is a button\)/,
      );
      assertMatch(
        errorText(await s.call("form_input", { ref: "ref_99999", value: "x", tabId })),
        /ref_99999 was never given out for this tab[\s\S]*read_page or find on this tab/,
      );
      assertMatch(
        errorText(await s.call("form_input", { ref: "email", value: "x", tabId })),
        /"ref" must look like "ref_12"[\s\S]*\{"query": "search box", "tabId": \d+\}/,
      );
      assertMatch(
        errorText(await s.call("form_input", { ref: ref(/textbox "Email address"/), tabId })),
        /"value" is required[\s\S]*"ref":"ref_12"/,
      );
      assertMatch(
        errorText(await s.call("read_page", { tabId, ref_id: "form" })),
        /"ref_id" must look like "ref_12"/,
      );
      assertMatch(
        errorText(await s.call("read_page", { tabId, filter: "buttons" })),
        /"filter" must be one of "interactive", "all"/,
      );
    });

    await t.step("get_page_text reads the article first, fenced and capped", async () => {
      await go("/article.html");
      const text = s.text(await s.ok("get_page_text", { tabId }));
      assertMatch(
        text,
        /\(http:\/\/127\.0\.0\.1:\d+ <page-content-[\w-]+ [^>]*>\n\/article\.html\n<\/page-content-[\w-]+>, article\)/,
      );
      assertMatch(
        text,
        /<page-content-[\w-]+ origin="http:\/\/127\.0\.0\.1:\d+" trust="untrusted">/,
      );
      assertMatch(text, /first lit in 1858/);
      assertMatch(text, /Ignore all previous instructions[\s\S]*<\/page-content-/);
      assert(!text.includes("brass polish"), "the sidebar is not part of the article");
      assertMatch(text, /the whole page has \d+ characters/);
      const outline = s.text(await s.ok("read_page", { tabId }));
      assertMatch(outline, /img "Drawing of the tower" \[ref_\d+\]/);
      assertMatch(outline, /button "Share this story" \[ref_\d+\]/);
      const short = await s.ok("get_page_text", { tabId, max_chars: 120 });
      assertMatch(s.text(short), /Cut at 100 of \d+ characters/);
      assertEquals((plain(short) as { truncated: boolean }).truncated, true);
    });

    await t.step("javascript_tool redacts the page's password value", async () => {
      await go("/signup.html");
      const result = await js(
        s,
        tabId,
        "document.getElementById('password')?.value ?? 'no password field at ' + location.href + ' ' + document.readyState",
      );
      assertEquals(result, "[redacted]");
    });

    await t.step("a 3,000-row page stays within max_chars and says how to narrow", async () => {
      await go("/rows.html");
      const full = s.text(await s.ok("read_page", { tabId }));
      assert(full.length <= 24_000, `default read is ${full.length} characters`);
      // The walk stops once the lines shown are certain (decision 0680): a lower bound.
      assertMatch(full, /Showing \d+ of at least \d+ lines \(max_chars 24000; the page past/);
      const table = refIn(full, /table "Entries"/);
      assertMatch(full, new RegExp(`ref_id "${table}"`));
      assertMatch(full, /row \[ref_\d+\] "1" \| "Lamp check number 1 done" \| button "Open 1"/);
      const small = s.text(await s.ok("read_page", { tabId, max_chars: 3000 }));
      assert(small.length <= 3000, `max_chars 3000 gave ${small.length}`);
      assertMatch(small, /find with a description/);
      const text = s.text(await s.ok("get_page_text", { tabId, max_chars: 5000 }));
      assert(text.length <= 5000, `get_page_text with max_chars 5000 gave ${text.length}`);
      assertMatch(text, /Lamp check number 1 done[\s\S]*Cut at \d+ of \d+ characters/);
      const late = await findOne(s, tabId, "Open 2500 button");
      assertEquals(late.name, "Open 2500");

      // diff: after one click, only what changed.
      await s.ok("read_page", { tabId, diff: true });
      const toggle = refIn(full, /button "Show weather panel"/);
      await s.ok("computer", { action: "left_click", ref: toggle, tabId });
      assertEquals(await js(s, tabId, "document.getElementById('panel').hidden"), "false");
      const diff = s.text(await s.ok("read_page", { tabId, diff: true }));
      assertMatch(diff, /~ button "Hide weather panel" \[ref_\d+\] expanded/);
      assertMatch(diff, /\+ region "Weather" \[ref_\d+\]/);
      assertMatch(diff, /\+ text "Gale warning/);
      assert(!diff.includes("Lamp check"), "unchanged rows are not repeated");
      assert(diff.length < 1500, `diff is ${diff.length} characters`);
      const none = s.text(await s.ok("read_page", { tabId, diff: true }));
      assertMatch(none, /No changes/);
      // A read with another filter in between does not disturb the diff of the full outline.
      await s.ok("read_page", { tabId, filter: "interactive", max_chars: 2000 });
      await s.ok("computer", { action: "left_click", ref: toggle, tabId });
      const back = s.text(await s.ok("read_page", { tabId, diff: true }));
      assertMatch(back, /~ button "Show weather panel" \[ref_\d+\] collapsed/);
      assertMatch(back, /- region "Weather"/);
      // After a reload every element is new: the whole outline is more useful than a diff.
      await go("/rows.html");
      const reloaded = s.text(await s.ok("read_page", { tabId, diff: true, max_chars: 3000 }));
      assertMatch(reloaded, /Most of the page changed since your last read/);
      assertMatch(reloaded, /row \[ref_\d+\] "1" \|/);
    });

    await t.step("a read cut in the page shows what the whole outline shows", async () => {
      await go("/rows.html");
      // A diff after a cut read compares nothing: it answers the whole outline, cut in the
      // service as before; its note leaves room for a line or two fewer (`slack`; more where the
      // lines are short).
      const same = async (args: Record<string, unknown>, slack = 2) => {
        const cut = await s.ok("read_page", { tabId, ...args });
        const whole = await s.ok("read_page", { tabId, ...args, diff: true });
        assertMatch(s.text(whole), /last read of this tab [^\n]* was cut at max_chars/);
        const [cutLines, wholeLines] = [cut, whole].map((result) =>
          /<page-content-[\s\S]*<\/page-content-[\w-]+>/.exec(s.text(result))![0].split("\n")
            .slice(0, -1)
        );
        assert(
          cutLines.length - wholeLines.length <= slack,
          `${cutLines.length} vs ${wholeLines.length}`,
        );
        const differs = wholeLines.findIndex((line, i) => line !== cutLines[i]);
        assertEquals(differs < 0 ? null : [differs, cutLines[differs], wholeLines[differs]], null);
        const total = (text: string) => {
          const [, atLeast, count] = /Showing \d+ of (at least )?(\d+) lines/.exec(text) ?? [];
          return { atLeast: !!atLeast, count: Number(count) };
        };
        const counts = (result: CallResult) => {
          const { lines, elements, truncated, countedToEnd } = plain(result) as Record<
            string,
            number | boolean | undefined
          >;
          return { lines, elements, truncated, countedToEnd };
        };
        const [cutTotal, wholeTotal] = [total(s.text(cut)), total(s.text(whole))];
        if (!cutTotal.atLeast) {
          assertEquals(cutTotal, wholeTotal);
          assertEquals(counts(cut), counts(whole));
          return s.text(cut);
        }
        // A walk that stopped once the lines shown were certain (decision 0680) counts what it
        // walked: no more than the whole outline has, and says so.
        assert(cutTotal.count <= wholeTotal.count, `${cutTotal.count} vs ${wholeTotal.count}`);
        const [part, all] = [counts(cut), counts(whole)];
        assertEquals(part.countedToEnd, false);
        assertEquals(all.countedToEnd, undefined);
        assertEquals(part.truncated, all.truncated);
        assert((part.lines as number) <= (all.lines as number), `${part.lines} vs ${all.lines}`);
        assert((part.elements as number) <= (all.elements as number), "elements");
        return s.text(cut);
      };
      assertMatch(await same({}), /Showing \d+ of at least \d+ lines/);
      assertMatch(await same({ max_chars: 3000 }), /row \[ref_\d+\] "1" \|/);
      assertMatch(await same({ filter: "interactive", max_chars: 2000 }), /button "Open 1"/);
      // Lines that depend on more than roles and depths (a list item's name and states, names
      // from content that are empty, text around hidden blocks): the page counts them without
      // describing them, and must count them as the whole outline does (decision 0500).
      await go("/outline_shapes.html");
      for (const max_chars of [1000, 1700, 2600, 5000]) {
        const shown = /Showing \d+ of (at least )?\d+ lines/;
        assertMatch(await same({ max_chars }, 6), shown);
        assertMatch(await same({ filter: "interactive", max_chars }, 6), shown);
      }
      // Cells of one letter draw fewer characters per node than the walk first counts on, so
      // the nodes it first walks all fit: it walks further until the lines shown are certain.
      await js(
        s,
        tabId,
        'document.body.innerHTML = "<table>" + Array.from({ length: 400 }, () => "<tr>" + ' +
          '[..."abcdefghijkl"].map((c) => "<td>" + c + "</td>").join("") + "</tr>").join("") + ' +
          '"</table>"; 1',
      );
      assertMatch(await same({ max_chars: 3000 }, 4), /Showing \d+ of at least \d+ lines/);
    });

    await t.step("a read of the 3,000-row page reads each element's tag once", async () => {
      await go("/rows.html");
      // The runtime's world is made at the load: count, in it, what one read asks of the page.
      await world(
        counting(
          { attributes: "Element.getAttribute", looks: "Element.checkVisibility" },
          { firstChildren: "Node.firstChild", texts: "CharacterData.data" },
        ),
      );
      const read = s.text(await s.ok("read_page", { tabId }));
      assertMatch(read, /row \[ref_\d+\] "1" \| "Lamp check number 1 done" \| button "Open 1"/);
      const asked = await world("globalThis.__asked") as Record<string, number>;
      const elements = await world("document.body.getElementsByTagName('*').length") as number;
      // Each element the walk enters is looked at once and its tag read once (the title's
      // redaction reads it again, and the lines described a few times more); an element without
      // attributes has none looked up, and rows, cells and buttons cannot host a shadow root.
      // Before decision 0600: 15.6 tag reads, 5.6 attribute looks and 2.7 shadow root looks per
      // element; now about 2.7, 0.2 and none.
      assert(asked.looks <= elements, `${asked.looks} looks for ${elements} elements`);
      // The walk stopped once the lines max_chars shows were certain (decision 0680): about a
      // fifth of the page's elements, where it walked all ~15,000 before.
      assert(asked.looks < elements / 3, `the read looked at ${asked.looks} of ${elements}`);
      // The title's redaction reads every element's tag once (a walk of the whole page for secret
      // fields), the walk each element it enters once, and each line described once more; a
      // description is handed the tag and whether there are attributes (decision 0800). Main read
      // 29,147 tags and looked up 3,033 attributes (two states of each line sent); now 20,429 and
      // 31 (the page's own few attributes).
      assert(asked.tags < elements * 1.5, `${asked.tags} tag reads for ${elements} elements`);
      assert(asked.attributes < elements / 100, `${asked.attributes} attribute looks`);
      assert(asked.shadows < 100, `${asked.shadows} shadow root looks`);
      // Whether a cell or a button has words, and the words of each line described, are told
      // from its text content, and the walk steps through only the elements of what is named by
      // its content: no object is made in the runtime's world for each of their text nodes
      // (decision 0800). Main stepped to a first child 6,303 times and read a text's data 2,715
      // times, now 1,205 and 14.
      assert(
        asked.firstChildren < elements / 10,
        `${asked.firstChildren} first children for ${elements} elements`,
      );
      assert(asked.texts < 100, `${asked.texts} texts' data read`);
    });

    await t.step("an exact match stands alone, wherever its name comes from", async () => {
      await go("/rows.html");
      const find = async (query: string) =>
        plain(await s.ok("find", { query, tabId })) as { matches: Match[]; exact: boolean };
      const alone = await find("Open 2500");
      assertEquals(alone.matches.map((m) => m.name), ["Open 2500"], "not 19 other Open buttons");
      assertEquals(alone.exact, true);
      await js(
        s,
        tabId,
        `document.querySelector("main").insertAdjacentHTML("afterbegin", ` +
          `'<p id="harbour">Harbour light</p><button aria-labelledby="harbour">*</button>' + ` +
          `'<a href="#keeper"><img alt="Keeper log" width="20" height="20"></a>' + ` +
          `'<label for="beacon">Beacon code</label><input id="beacon">' + ` +
          `'<div id="host"></div><div>Storm <div hidden>warning</div>signal</div>'); ` +
          `document.getElementById("host").attachShadow({ mode: "open" }).innerHTML = ` +
          `"<section><button>Tide table</button></section>"; 1`,
      );
      const named = async (query: string) =>
        (await find(query)).matches.map((m) => `${m.role} ${m.name}`);
      assertEquals(await named("Harbour light button"), ["button Harbour light"]);
      assertEquals(await named("Keeper log link"), ["link Keeper log"]);
      assertEquals(await named("Beacon code field"), ["textbox Beacon code"]);
      assertEquals(await named("Tide table"), ["button Tide table"]);
      // A hidden block inside a line of text does not end it: "signal" alone names nothing.
      const signal = await find("signal");
      assertEquals(signal.exact, false);
      assertEquals(signal.matches[0].name, "Storm signal");
    });

    await t.step("find for one row's button walks the page once", async () => {
      await go("/rows.html");
      // The runtime's world is made at the load: count, in it, what find asks of the document.
      await world(counting({
        walks: "Document.createTreeWalker",
        queries: "Document.querySelectorAll",
        looks: "Element.checkVisibility",
      }));
      const found = plain(await s.ok("find", { query: "Open 1234", tabId })) as {
        matches: Match[];
      };
      assertEquals(found.matches.map((m) => m.name), ["Open 1234"]);
      const asked = await world("globalThis.__asked") as Record<string, number>;
      // One pass over the elements finds what is named otherwise and the shadow hosts; the title
      // is not redacted for a find that shows none (decision 0540): one walk, no query.
      assertEquals({ walks: asked.walks, queries: asked.queries }, { walks: 1, queries: 0 });
      // Only the rows that hold the query's words are entered and looked at.
      assert(asked.looks < 50, `find looked at the visibility of ${asked.looks} elements`);
    });

    await t.step("one find is one round trip to the browser", async () => {
      // The last step's page and world: the walk's read is current, no screenshot was taken.
      const native = decomposeTabId(tabId)!.native;
      // Each command the service sends the extension for this tab, as it arrives.
      const trips = await watchExtension(
        cdp,
        "handle(message, config",
        `message?.type === "command" && message.params?.tab_id === ${native} ? [message.op, ` +
          "...(message.params.commands ?? [message.params]).map((c) => c.method)].join(' ') " +
          ": undefined",
      );
      try {
        const found = plain(await s.ok("find", { query: "Open 1234", tabId })) as {
          matches: Match[];
        };
        assertEquals(found.matches.map((m) => m.name), ["Open 1234"]);
        const seen = await trips.seen() as string[];
        // The screenshot scale travels with the walk (decision 0590): one trip, not two.
        assertEquals(seen.length, 1, `one find sent ${JSON.stringify(seen)}`);
        assertMatch(seen[0], /Runtime\.evaluate.*Page\.getLayoutMetrics/);
      } finally {
        await trips.stop();
      }
    });

    await t.step(
      "a find on an unchanged page keeps the last find's pass, and no longer",
      async () => {
        await go("/rows.html");
        await world(counting({ walks: "Document.createTreeWalker" }));
        // Each find's names, and how many walks over the page it made.
        const find = async () => {
          await world("globalThis.__asked.walks = 0");
          const found = plain(await s.ok("find", { query: "Open 1234", tabId })) as {
            matches: Match[];
          };
          const walks = (await world("globalThis.__asked.walks")) as number;
          return { names: found.matches.map((m) => `${m.role} ${m.name}`).sort(), walks };
        };
        const button = "button Open 1234";
        assertEquals(await find(), { names: [button], walks: 1 });
        // Nothing changed: neither a second find nor one after a read walks again (decision 0770).
        assertEquals(await find(), { names: [button], walks: 0 });
        await s.ok("read_page", { tabId });
        assertEquals(await find(), { names: [button], walks: 0 });
        // A text that changes (a clock's tick) changes no mark: the pass is kept.
        await js(s, tabId, `document.querySelector("h1").textContent = "Logbook at noon"; 1`);
        assertEquals(await find(), { names: [button], walks: 0 });
        // An attribute that names an element, set on one already there.
        await js(
          s,
          tabId,
          `document.querySelector("h1").setAttribute("aria-label", "Open 1234"); 1`,
        );
        const heading = "heading Open 1234";
        assertEquals(await find(), { names: [button, heading], walks: 1 });
        // A shadow root given to an element already there changes no element the page's
        // observer sees: a custom element's definition, or attachShadow on a div.
        await js(
          s,
          tabId,
          `const dock = document.createElement("div"); dock.id = "dock"; ` +
            `document.querySelector("h1").after(document.createElement("x-tide"), dock); 1`,
        );
        assertEquals(await find(), { names: [button, heading], walks: 1 });
        await js(
          s,
          tabId,
          `customElements.define("x-tide", class extends HTMLElement { constructor() { super(); ` +
            `this.attachShadow({ mode: "open" }).innerHTML = "<button>Open 1234</button>"; } }); 1`,
        );
        assertEquals((await find()).names, [button, button, heading]);
        await js(
          s,
          tabId,
          `document.getElementById("dock").attachShadow({ mode: "open" }).innerHTML = ` +
            `"<button>Open 1234</button>"; 1`,
        );
        assertEquals((await find()).names, [button, button, button, heading]);
        // A same-origin frame that shows another document than the one the pass walked.
        await js(
          s,
          tabId,
          `const f = document.createElement("iframe"); f.id = "tide"; ` +
            `f.srcdoc = "<p>Harbour</p>"; document.querySelector("h1").after(f); 1`,
        );
        const shows = (expression: string) =>
          waitFor(
            async () =>
              (await js(s, tabId, `String(!!document.getElementById("tide").${expression})`)) ===
                "true",
            "the frame's document",
          );
        await shows(`contentDocument?.querySelector("p")`);
        // It walks again (the frame's document as well as the page's).
        assert((await find()).walks > 0, "the find with a new frame walks again");
        // srcdoc is no attribute the observer watches: the frame's new document tells.
        await js(
          s,
          tabId,
          `document.getElementById("tide").srcdoc = ` +
            `'<button aria-label="Open 1234">Sail</button>'; 1`,
        );
        await shows(`contentDocument?.querySelector("button")`);
        const framed = await find();
        assert(framed.walks > 0, "the frame's new document is walked");
        assertEquals(framed.names.filter((name) => name === button).length, 4);
        // A change inside a shadow root or a frame's document is seen as well as the page's.
        const sail = `'<button aria-label="Open 1234">Sail</button>'`;
        const count = async () => (await find()).names.filter((name) => name === button).length;
        await js(s, tabId, `document.getElementById("dock").shadowRoot.innerHTML += ${sail}; 1`);
        assertEquals(await count(), 5);
        await js(
          s,
          tabId,
          `document.getElementById("tide").contentDocument.body.innerHTML += ${sail}; 1`,
        );
        assertEquals(await count(), 6);
        // A naming attribute set with a namespace is read as the name all the same.
        await js(
          s,
          tabId,
          `document.querySelector("h1").after(document.createElement("button")); 1`,
        );
        assertEquals(await count(), 6);
        await js(
          s,
          tabId,
          `document.querySelector("h1 + button").setAttributeNS("urn:x", "title", "Open 1234"); 1`,
        );
        assertEquals(await count(), 7);
      },
    );

    await t.step("a read of the 3,000-row page crosses from the page packed", async () => {
      // The runtime's packed walk unpacks into the very nodes of its walk, on a page of every
      // kind of line (values, placeholders, states, a redacted password) and on the rows.
      for (const path of ["/signup.html", "/rows.html"]) {
        await go(path);
        const [packed, plainWalk] = JSON.parse(
          await world(
            "(() => { const walk = globalThis.__ghostlight.snapshot({ filter: 'all', hints: true, " +
              "limit: 20000 }); return JSON.stringify([globalThis.__ghostlight.packWalk(walk), " +
              "JSON.stringify(walk)]); })()",
          ) as string,
        ) as [string, string];
        assertEquals(unpackWalk(JSON.parse(packed)), JSON.parse(plainWalk), path);
      }
      const native = decomposeTabId(tabId)!.native;
      // The size of each sequence's answer the extension sends the service for this tab.
      const answers = await watchExtension(
        cdp,
        "send(frame, lane)",
        `frame?.type === "result" && Array.isArray(frame.value?.results) && lane === ${native} ` +
          "? JSON.stringify(frame).length : undefined",
      );
      try {
        const read = s.text(await s.ok("read_page", { tabId }));
        assertMatch(read, /row \[ref_\d+\] "1" \| "Lamp check number 1 done" \| button "Open 1"/);
        assertMatch(read, /Showing \d+ of at least \d+ lines/);
        const sizes = await answers.seen() as number[];
        assertEquals(sizes.length, 1, `one read sent ${JSON.stringify(sizes)}`);
        // The walk's nodes as arrays and its roles named once, not objects naming every field
        // on every node (decision 0620): the answer for the first 24,000 characters of outline
        // crossed as 97,833 characters before, 34,431 after.
        assert(sizes[0] < 49_000, `the read's answer crossed as ${sizes[0]} characters`);
      } finally {
        await answers.stop();
      }
    });

    await t.step("refs from a page that navigated away are refused clearly", async () => {
      await go("/rows.html");
      const before = s.text(await s.ok("read_page", { tabId, filter: "interactive" }));
      const toggle = refIn(before, /button "Show weather panel"/);
      await go("/csp.html");
      assertMatch(
        errorText(await s.call("form_input", { ref: toggle, value: "x", tabId })),
        new RegExp(`${toggle} is not on this page any more`),
      );
    });

    await t.step("javascript_tool works under a strict CSP", async () => {
      await go("/csp.html");
      assertEquals(
        await js(
          s,
          tabId,
          "const tag = document.createElement('script'); tag.textContent = 'window.injected = 1'; " +
            "document.head.append(tag); window.injected === undefined ? 'inline blocked' : 'ran'",
        ),
        "inline blocked",
        "the page's policy is really in force",
      );
      assertEquals(
        await js(s, tabId, "Number(document.getElementById('data').dataset.count) + 1"),
        "42",
      );
      assertEquals(
        await js(s, tabId, "await new Promise((r) => setTimeout(() => r('late'), 50))"),
        "late",
      );
      assertEquals(await js(s, tabId, "return document.title"), "Strict policy page");
      assertEquals(
        await js(s, tabId, "new Promise((r) => setTimeout(() => r(7 * 6), 20))"),
        "42",
        "a promise as the last value is awaited",
      );
      const object = JSON.parse(
        await js(s, tabId, "({ heading: document.querySelector('h1'), list: [1, 2], n: null })"),
      );
      assertEquals(object.list, [1, 2]);
      assertMatch(object.heading, /^<h1>Strict policy/);
      const jwt = await js(
        s,
        tabId,
        "'session ' + 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
      );
      assertEquals(jwt, "session [redacted]");
      const alerted = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "alert('Lamp lit'); 'after'",
        tabId,
      });
      assertMatch(s.text(alerted), /opened a JavaScript alert dialog[\s\S]*Lamp lit/);
      await s.ok("computer", { action: "key", text: "Return", tabId });
      assertEquals(await js(s, tabId, "document.title"), "Strict policy page");
      assertMatch(
        errorText(
          await s.call("javascript_tool", {
            action: "javascript_exec",
            text: "throw new Error('boom')",
            tabId,
          }),
        ),
        /The script threw:\n<page-content-[^>]+ trust="untrusted">\nError: boom/,
      );
      assertMatch(
        errorText(await s.call("javascript_tool", { action: "run", text: "1", tabId })),
        /"action" must be "javascript_exec"[\s\S]*"text": "document.title"/,
      );
      assertMatch(s.text(await s.ok("get_page_text", { tabId })), /No scripts may run here/);
      const read = s.text(await s.ok("read_page", { tabId }));
      assertMatch(read, /searchbox "Search the archive" \[ref_\d+\] placeholder="Search"/);
      const search = refIn(read, /searchbox "Search the archive"/);
      await s.ok("form_input", { ref: search, value: "gale", tabId });
      assertEquals(await js(s, tabId, "document.getElementById('q').value"), "gale");
    });

    await t.step("shadow roots and same- and cross-origin iframes are read and used", async () => {
      const cross = other.origin.replace("127.0.0.1", "localhost");
      await go(`/frames.html?cross=${cross}&site=${other.origin}`);
      // frames.html also fakes window.__ghostlight and breaks DOM methods in its own world.
      const text = s.text(await s.ok("read_page", { tabId }));
      assertMatch(text, /heading "Shadow keeper"[\s\S]*text "Slotted lamp note"/);
      assertMatch(text, /iframe "Cross-origin log" \[ref_\d+\] src="http:\/\/localhost:\d+\//);
      assertMatch(text, /iframe "Same-origin log" \[ref_\d+\][^\n]*\n\s+heading "Same log"/);
      assertMatch(text, /iframe "Cross-origin log" \[ref_\d+\][^\n]*\n\s+heading "Cross log"/);

      const pageText = s.text(await s.ok("get_page_text", { tabId }));
      assertMatch(
        pageText,
        /Shadow keeper[\s\S]*Slotted lamp note[\s\S]*Same log[\s\S]*Cross log[\s\S]*Site log/,
      );
      const note = await findOne(s, tabId, "shadow note");
      await s.ok("form_input", { ref: note.ref, value: "in the shadow", tabId });
      assertEquals(
        await js(
          s,
          tabId,
          "document.querySelector('keeper-card').shadowRoot.getElementById('shadow-note').value",
        ),
        "in the shadow",
      );
      // A page with frames of its own takes form_fill's outline-first path (decision 0220); the
      // second call finds the page remembered as framed and goes that way at once.
      for (const value of ["filled here", "filled again"]) {
        const filled = await s.ok("form_fill", { tabId, fields: { "Shadow note": value } });
        assertEquals((plain(filled) as { filled: unknown[] }).filled.length, 1, s.text(filled));
        assertEquals(
          await js(
            s,
            tabId,
            "document.querySelector('keeper-card').shadowRoot.getElementById('shadow-note').value",
          ),
          value,
        );
      }
      await s.ok("form_input", { ref: note.ref, value: "in the shadow", tabId });

      const lines = text.split("\n");
      const crossAt = lines.findIndex((line) => /iframe "Cross-origin log"/.test(line));
      const crossEntry = refIn(lines.slice(crossAt).join("\n"), /textbox "Log entry"/);
      const sameEntry = refIn(text, /textbox "Log entry"/);
      await s.ok("form_input", { ref: sameEntry, value: "same value", tabId });
      assertEquals(
        await js(
          s,
          tabId,
          "document.getElementById('same').contentDocument.getElementById('entry').value",
        ),
        "same value",
      );
      await s.ok("form_input", { ref: crossEntry, value: "cross value", tabId });
      const crossFrame = refIn(text, /iframe "Cross-origin log"/);
      // The same-site, cross-origin frame runs in the page's process: reached in the same session.
      assertMatch(text, /iframe "Same-site log" \[ref_\d+\][^\n]*\n\s+heading "Site log"/);
      const siteAt = lines.findIndex((line) => /iframe "Same-site log"/.test(line));
      const siteEntry = refIn(lines.slice(siteAt).join("\n"), /textbox "Log entry"/);
      await s.ok("form_input", { ref: siteEntry, value: "site value", tabId });
      const siteFrame = refIn(text, /iframe "Same-site log"/);
      assertMatch(
        s.text(await s.ok("read_page", { tabId, ref_id: siteFrame })),
        /textbox "Log entry" \[ref_\d+\] value="site value"/,
      );
      const inside = s.text(await s.ok("read_page", { tabId, ref_id: crossFrame }));
      assertMatch(inside, /textbox "Log entry" \[ref_\d+\] value="cross value"/);

      // The cross-origin frame's boxes are in top-level viewport pixels: inside the iframe.
      const frameBox = JSON.parse(
        await js(
          s,
          tabId,
          "const r = document.getElementById('cross').getBoundingClientRect(); JSON.stringify({ x: r.x, y: r.y, w: r.width, h: r.height })",
        ),
      );
      const heading = plain(await s.ok("find", { query: "Cross log heading", tabId })) as {
        matches: Match[];
      };
      assertEquals(heading.matches[0].name, "Cross log");
      assertEquals(heading.matches[0].box.x, Math.round(frameBox.x + 5 + 8), "border 5 + margin 8");
      assert(heading.matches[0].y > frameBox.y && heading.matches[0].y < frameBox.y + frameBox.h);

      // Below the fold, a frame's elements are out of view even though they are inside their
      // own frame's viewport; scroll_to on a ref there brings it into view.
      await js(
        s,
        tabId,
        "const spacer = document.createElement('div'); spacer.style.height = '3000px'; " +
          "document.getElementById('cross-holder').before(spacer); 1",
      );
      const low = (plain(await s.ok("find", { query: "Cross log heading", tabId })) as {
        matches: (Match & { inViewport: boolean })[];
      }).matches[0];
      assertEquals(low.inViewport, false, "a frame's element below the fold is out of view");
      await s.ok("computer", { action: "scroll_to", ref: low.ref, tabId });
      const raised = (plain(await s.ok("find", { query: "Cross log heading", tabId })) as {
        matches: (Match & { inViewport: boolean })[];
      }).matches[0];
      assertEquals(raised.inViewport, true, "scroll_to reaches into the out-of-process frame");

      // A click on a ref inside the out-of-process frame lands on it.
      const crossStamp = refIn(lines.slice(crossAt).join("\n"), /button "Stamp entry"/);
      await s.ok("computer", { action: "left_click", ref: crossStamp, tabId });
      const stamped = s.text(await s.ok("read_page", { tabId, ref_id: crossFrame }));
      assertMatch(stamped, /text "Stamped: cross value"/);

      // The page broke Element.prototype.getAttribute in its own world; a receipt reads the
      // page from Ghostlight's isolated world and is not fooled.
      const receipt = s.text(
        await s.ok("computer", { action: "left_click", ref: note.ref, tabId }),
      );
      assert(!/tampered/.test(receipt), `the receipt is the page's own: ${receipt}`);
      assertMatch(receipt, /in the shadow/);
    });
  } finally {
    cdp.close();
    await other.close();
    await s.close();
  }
});
