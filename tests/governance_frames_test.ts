/**
 * Decisions per frame and per listed tab, end to end through a real MCP client, the three
 * processes and headless Chromium: an allowed page on 127.0.0.1 frames a page on `localhost`
 * (another site, run out of process) that the policy marks sacred or refuses. Nothing of the
 * frame is read, none of its elements gets a ref, input that would land in it is refused before
 * it is sent, and a tab showing a sacred site is listed as withheld. Also: an IPv4-mapped IPv6
 * address is the IPv4 address it reaches, and `policy explain` names a host as enforcement does.
 *
 * The tab's request filter (decision 0275) stops a refused frame from loading at all, so where a
 * frame must be withheld the tests load it while the policy allows its host and then refuse the
 * host, the page staying open: the policy reloads, the filter stops only new requests, and what
 * has already loaded is withheld by the per-frame decisions alone.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { makeTestEnv } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { openFramed, usePolicy } from "./support/framed.ts";
import { pollUntil } from "./support/wait.ts";

/** The service rereads its policy file often, so a test waits little for a change to apply. */
const QUICK_RELOAD = { GHOSTLIGHT_POLICY_RELOAD_MS: "100" };
/** The policy each case of the shared session starts from. */
const ALLOW = `{ "default": "allow" }`;

/** The framed page's own words: none may reach the agent. */
const FRAMED_WORDS = /Vault|48,213|Account number|Sign in to the vault/;

/** The checkout page on 127.0.0.1, framing the sign-in page from `localhost`. */
function checkoutUrl(s: E2ESession): string {
  const framed = s.fixtures.origin.replace("127.0.0.1", "localhost");
  return s.fixtures.url(`/framed_checkout.html?frame=${encodeURIComponent(framed)}`);
}

/** Runs `text` in the tab's page and returns what it answers. */
async function run(s: E2ESession, tabId: number, text: string): Promise<string> {
  return s.text(await s.ok("javascript_tool", { action: "javascript_exec", text, tabId }));
}

/**
 * Once the policy refuses the frame's host, the tab's filter stops a new load of the frame: the
 * frame's server receives no further request for it. Waits first until the filter stops a probe
 * to that host (the filter follows the reload on its own time).
 */
async function assertNewLoadStopped(
  s: E2ESession,
  tabId: number,
  opened: number,
): Promise<void> {
  const probe = `${s.fixtures.origin.replace("127.0.0.1", "localhost")}/probe`;
  await pollUntil(
    () =>
      run(
        s,
        tabId,
        `await fetch("${probe}", { mode: "no-cors" }).then(() => "reached", () => "blocked")`,
      ),
    (answer) => /blocked/.test(answer),
    "the tab's filter to stop requests to the refused host",
  );
  const loads = s.fixtures.requests("/framed_sign_in.html");
  assertEquals(loads, opened + 1, "the frame loaded once, while its host was allowed");
  assertMatch(
    await run(
      s,
      tabId,
      `await new Promise((done) => { const frame = document.getElementById("pay");
         frame.addEventListener("load", () => done("reloaded"), { once: true });
         frame.src = frame.src + "?again"; })`,
    ),
    /reloaded/,
  );
  assertEquals(s.fixtures.requests("/framed_sign_in.html"), loads, "the new load never left");
}

/** How many times the checkout page's frame has been loaded so far. */
function frameLoads(s: E2ESession): number {
  return s.fixtures.requests("/framed_sign_in.html");
}

/** Puts `policy` in force, opens the checkout page and waits until its frame has loaded. */
async function openCheckout(s: E2ESession, policy = ALLOW): Promise<number> {
  await usePolicy(s, policy);
  return await openFramed(s, checkoutUrl(s));
}

Deno.test("frames and tabs the policy withholds: one browser, each case putting its own policy in force", async (t) => {
  const s = await startSession({ policy: `{ "default": "allow" }`, env: QUICK_RELOAD });
  try {
    await t.step(
      "a sacred frame inside an allowed page is withheld: no text, no refs, no input",
      async () => {
        const opened = frameLoads(s);
        const tabId = await openCheckout(s);
        await usePolicy(s, `{ "default": "allow", "sacred": ["localhost"] }`);
        const why =
          /shows a site Ghostlight never touches whatever the policy says \("sacred" in \S*policy\.jsonc names localhost\)/;

        const read = s.text(await s.ok("read_page", { tabId }));
        assertMatch(read, /heading "Checkout"/);
        assertMatch(read, /textbox "Order note" \[ref_\d+\]/);
        const frameRef = /iframe "Payment" \[(ref_\d+)\]/.exec(read)?.[1];
        assert(frameRef, read);
        assertMatch(
          read,
          new RegExp(`Frames withheld: ${frameRef} ${why.source}\\. Nothing inside`),
        );
        assert(!FRAMED_WORDS.test(read), read);
        // The withheld note is outside the fence; the frame's host is not in it.
        const note = read.split("\n").find((line) => line.startsWith("Frames withheld"))!;
        assert(!/localhost:\d/.test(note), note);
        const refs = [...read.matchAll(/\[(ref_\d+)\]/g)].map((match) => match[1]);

        const interactive = s.text(await s.ok("read_page", { tabId, filter: "interactive" }));
        assert(!FRAMED_WORDS.test(interactive), interactive);
        // Reading the frame's subtree by the iframe's ref reads nothing inside it either.
        const under = s.text(await s.ok("read_page", { tabId, ref_id: frameRef }));
        assert(!FRAMED_WORDS.test(under), under);
        assertMatch(under, /Frames withheld/);

        const text = s.text(await s.ok("get_page_text", { tabId }));
        assertMatch(text, /Checkout/);
        assertMatch(text, /\[a frame withheld by Ghostlight\]/);
        assertMatch(text, new RegExp(`1 frame was withheld .*: a site Ghostlight never touches`));
        assert(!FRAMED_WORDS.test(text), text);

        const found = await s.ok("find", { query: "sign in button", tabId });
        assert(!FRAMED_WORDS.test(s.text(found)), s.text(found));
        assertMatch(s.text(found), /Frames withheld/);
        const matches = (plain(found)?.matches ?? []) as { ref: string }[];
        for (const match of matches) assert(refs.includes(match.ref) || match.ref === frameRef);

        // A click at a point inside the frame is refused before anything is sent, and so is a click
        // on the iframe element's own ref (its centre is inside the frame).
        const box = (plain(await s.ok("find", { query: "Payment iframe", tabId }))?.matches as {
          ref: string;
          x: number;
          y: number;
        }[]).find((match) => match.ref === frameRef)!;
        assert(box, "the iframe itself is found");
        const before = s.fixtures.submissions().length;
        assertMatch(
          await s.fail("computer", { action: "left_click", coordinate: [box.x, box.y], tabId }),
          /That point is inside a frame Ghostlight withholds: it shows a site Ghostlight never touches/,
        );
        assertMatch(
          await s.fail("computer", { action: "left_click", ref: frameRef, tabId }),
          /inside a frame Ghostlight withholds/,
        );
        // A click on the page itself still works.
        const noteRef = /textbox "Order note" \[(ref_\d+)\]/.exec(read)![1];
        await s.ok("computer", { action: "left_click", ref: noteRef, tabId });

        // form_fill finds no field inside the frame, says why, and submits nothing.
        const filled = await s.ok("form_fill", {
          tabId,
          fields: { "Account number": "1234 5678" },
          submit: true,
        });
        assertMatch(
          s.text(filled),
          /Frames withheld: ref_\d+ shows a site Ghostlight never touches/,
        );
        assertEquals((plain(filled) as { filled: unknown[] }).filled.length, 0);
        assertEquals(s.fixtures.submissions().length, before, "nothing was posted");

        // The frame's own requests are listed without their addresses, and cannot be probed for.
        const requests = await s.ok("read_network_requests", { tabId });
        assertMatch(
          s.text(requests),
          /GET 200 \(withheld: a site this call may not read\) \[document/,
        );
        assert(!/framed_sign_in/.test(s.text(requests)), s.text(requests));
        assertMatch(
          s.text(await s.ok("read_network_requests", { tabId, urlPattern: "framed_sign_in" })),
          /^0 requests with "framed_sign_in" in the URL, of \d+,/,
        );

        // Keys typed while the page has put the focus in the frame are refused before they are sent.
        const focused = await s.ok("javascript_tool", {
          action: "javascript_exec",
          text: "document.getElementById('pay').focus(); document.activeElement.id",
          tabId,
        });
        assertMatch(s.text(focused), /pay/);
        for (
          const keys of [{ action: "type", text: "hunter2" }, { action: "key", text: "Return" }]
        ) {
          assertMatch(
            await s.fail("computer", { ...keys, tabId }),
            /^Denied: The focused element is inside a frame Ghostlight withholds: it shows a site Ghostlight never touches/,
          );
        }
        assertEquals(s.fixtures.submissions().length, before, "nothing was posted");

        await assertNewLoadStopped(s, tabId, opened);
      },
    );

    await t.step(
      "a frame on a host the policy denies is withheld for what the call needs there",
      async () => {
        const opened = frameLoads(s);
        const tabId = await openCheckout(s);
        await usePolicy(
          s,
          `{ "default": "allow",
         "grants": [{ "hosts": ["localhost"], "deny": ["read", "action", "write", "execute"] }] }`,
        );
        const read = s.text(await s.ok("read_page", { tabId }));
        assertMatch(
          read,
          /Frames withheld: ref_\d+ shows a site where read is refused \(grant 1 of \S*policy\.jsonc \(localhost\) denies read\)/,
        );
        assert(!FRAMED_WORDS.test(read), read);
        const text = s.text(await s.ok("get_page_text", { tabId }));
        assert(!FRAMED_WORDS.test(text), text);

        await assertNewLoadStopped(s, tabId, opened);
      },
    );

    await t.step(
      "a frame readable but not writable: its refs are read, writing by them is refused",
      async () => {
        const tabId = await openCheckout(
          s,
          `{ "default": "allow", "grants": [{ "hosts": ["localhost"], "deny": ["write"] }] }`,
        );
        const read = s.text(await s.ok("read_page", { tabId }));
        const account = /textbox "Account number" \[(ref_\d+)\]/.exec(read)?.[1];
        assert(account, read);
        assertMatch(
          await s.fail("form_input", { ref: account, value: "1234", tabId }),
          /^Denied: ref_\d+ is inside a frame Ghostlight withholds: it shows a site where write is refused \(grant 1 of \S*policy\.jsonc \(localhost\) denies write\)/,
        );
        // form_fill decides each frame for what it does there (read and write): the frame is withheld.
        const filled = await s.ok("form_fill", { tabId, fields: { "Account number": "1234" } });
        assertMatch(s.text(filled), /Frames withheld: ref_\d+ shows a site where write is refused/);
        assertEquals((plain(filled) as { filled: unknown[] }).filled.length, 0);
        const after = s.text(await s.ok("read_page", { tabId }));
        assertMatch(after, /textbox "Account number" \[ref_\d+\]\n/, "the field is still empty");
      },
    );

    await t.step(
      "an IPv4-mapped IPv6 address of a refused address is refused like it",
      async () => {
        await usePolicy(s, `{ "default": "allow", "sacred": ["127.0.0.2"] }`);
        const tabId = await s.firstTab();
        const port = new URL(s.fixtures.origin).port;
        for (const host of ["[::ffff:127.0.0.2]", "[::FFFF:7f00:2]"]) {
          assertMatch(
            await s.fail("navigate", { url: `http://${host}:${port}/index.html`, tabId }),
            /^Denied: navigate would touch 127\.0\.0\.2, which Ghostlight never touches/,
            host,
          );
        }
      },
    );

    await t.step(
      "a tab on a sacred site is listed as withheld, without its title or address",
      async () => {
        await usePolicy(s, ALLOW);
        const tabId = await s.firstTab();
        // The tab goes to the site while the policy allows it, and is listed as it is.
        const site = s.fixtures.url("/framed_sign_in.html").replace("127.0.0.1", "localhost");
        await s.ok("navigate", { url: site, tabId });
        assertMatch(s.text(await s.ok("tabs_context_mcp", {})), /framed_sign_in/);
        // Then the person makes the site sacred; the page stays open.
        await usePolicy(s, `{ "default": "allow", "sacred": ["localhost"] }`);
        const listed = await s.ok("tabs_context_mcp", {});
        const text = s.text(listed);
        assertMatch(
          text,
          new RegExp(
            `- tabId ${tabId}: withheld: it shows a site Ghostlight never touches whatever the ` +
              `policy says \\("sacred" in \\S*policy\\.jsonc names localhost\\); its title and ` +
              "address are not shown",
          ),
        );
        assert(!/Vault|framed_sign_in/.test(text), text);
        const tabs = (plain(listed)?.tabs ?? []) as Record<string, unknown>[];
        const entry = tabs.find((tab) => tab.tabId === tabId)!;
        assertEquals(Object.keys(entry).sort(), ["tabId", "withheld"]);
      },
    );
  } finally {
    await s.close();
  }
});

Deno.test("policy explain names a host as enforcement does: case, trailing dot, IDN", async () => {
  const testEnv = await makeTestEnv();
  const file = `${testEnv.home}/explained.jsonc`;
  try {
    await Deno.writeTextFile(
      file,
      `{ "default": "allow", "sacred": ["bücher.example", "127.0.0.2"],
         "grants": [{ "hosts": ["shop.example"], "deny": ["write"] }] }`,
    );
    for (const name of ["BÜCHER.Example.", "xn--bcher-kva.example."]) {
      const out = await ghostlight(testEnv, ["policy", "explain", file, "--host", name]);
      assertEquals(out.code, 0, out.stderr);
      assertMatch(out.stdout, /On xn--bcher-kva\.example \(as .* is matched\), for any principal:/);
      assertMatch(out.stdout, /\n {2}read +sacred +xn--bcher-kva\.example is a sacred site/);
    }
    const shop = await ghostlight(testEnv, ["policy", "explain", file, "--host", "SHOP.example."]);
    assertMatch(shop.stdout, /\n {2}write +denied +grant 1 of /);
    const mapped = await ghostlight(testEnv, [
      "policy",
      "explain",
      file,
      "--host",
      "[::ffff:127.0.0.2]",
    ]);
    assertMatch(mapped.stdout, /\n {2}read +sacred +127\.0\.0\.2 is a sacred site/);
    const bad = await ghostlight(testEnv, ["policy", "explain", file, "--host", "http://x/"]);
    assertEquals(bad.code, 1);
    assertMatch(bad.stderr, /"http:\/\/x\/" is not a host/);
  } finally {
    await testEnv.dispose();
  }
});
