/**
 * The tools that finish a workflow in few calls, end to end: a real MCP client, all three
 * processes and headless Chromium. form_fill completes a 15-field framework-controlled form and
 * the server receives every value; script chains steps through references and dry-runs;
 * browser_batch stops at its first failure; act_on refuses to guess; narrate, tab_control and
 * explain do what they say.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { ORDER_FIELDS, ORDER_RECEIVED } from "./support/order_form.ts";
import { allText } from "./support/results.ts";
import { freshPage, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

Deno.test("workflow tools finish real work in few calls", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();

    await t.step(
      "form_fill fills 15 controlled fields and submits; the server gets all",
      async () => {
        await freshPage(s, tabId, "/order.html");
        const result = await s.ok("form_fill", { tabId, fields: ORDER_FIELDS, submit: true });
        const structured = plain(result) as {
          filled: { field: string }[];
          unmatched: unknown[];
          skipped: unknown[];
          submitted: { receipt: unknown };
        };
        assertEquals(structured.unmatched, []);
        assertEquals(structured.skipped, []);
        assertEquals(structured.filled.length, 15);
        assert(structured.submitted?.receipt, "the submit click has a receipt");
        assertMatch(allText(result), /Filled 15 of 15 fields[\s\S]*Submitted with ref_\d+/);
        // A value the page took as given is not repeated; a label names its ref.
        assert(!allText(result).includes("Analytical Engines"), allText(result));
        assertMatch(allText(result), /"Company" \[ref_\d+\]/);
        const received = await pollUntil(
          () => Promise.resolve(s.fixtures.submissions()),
          (list) => list.length === 1,
          "the order to reach the server",
        );
        assertEquals(received[0], { json: ORDER_RECEIVED });
      },
    );

    await t.step("form_fill reports what it could not match and does not submit", async () => {
      await freshPage(s, tabId, "/order.html");
      const result = await s.ok("form_fill", {
        tabId,
        fields: { "First name": "Ada", "Fax number": "0", "Country": "Atlantis" },
        submit: true,
      });
      const structured = plain(result) as {
        filled: unknown[];
        unmatched: { field: string }[];
        skipped: { field: string; reason: string }[];
        submitted: boolean;
      };
      assertEquals(structured.filled.length, 1);
      assertEquals(structured.unmatched.map((u) => u.field), ["Fax number"]);
      assertEquals(structured.skipped.map((u) => u.field), ["Country"]);
      assertMatch(structured.skipped[0].reason, /no option[\s\S]*"Norway"/);
      assertEquals(structured.submitted, false);
      assertMatch(allText(result), /Not submitted: 2 fields were not filled/);
      assertEquals(s.fixtures.submissions().length, 1, "nothing more was sent");
    });

    await t.step("script: a value read in step 1 is used in step 3", async () => {
      await freshPage(s, tabId, "/workflow.html");
      const steps = [
        {
          tool: "javascript_tool",
          args: { action: "javascript_exec", text: "document.getElementById('code').textContent" },
        },
        { tool: "find", args: { query: "Voucher field" } },
        { tool: "form_input", args: { ref: "$prev.matches.0.ref", value: "$1.result" } },
      ];
      const dry = await s.ok("script", { tabId, steps, dry_run: true });
      const planned = plain(dry) as {
        wouldRun: boolean;
        steps: { needs: string[]; filledAtRunTime?: string[] }[];
      };
      assertEquals(planned.wouldRun, true);
      assertEquals(planned.steps.map((step) => step.needs), [["execute"], ["read"], ["write"]]);
      assertEquals(planned.steps[2].filledAtRunTime, ["ref", "value"]);
      assertMatch(allText(dry), /Dry run: nothing was done\. The script would run all 3 steps/);
      assertMatch(
        allText(dry),
        /the policy decides each step for the page it touches when it runs/,
      );
      const ran = await s.ok("script", { tabId, steps });
      assertEquals(plain(ran)?.ran, 3);
      assertMatch(allText(ran), /Ran all 3 steps[\s\S]*Set textbox \[ref_\d+\] to "ZX-4471"\./);
      const value = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "document.getElementById('voucher').value",
        tabId,
      });
      assertEquals(plain(value)?.result, "ZX-4471");
    });

    await t.step("script refuses a bad step before running any, and never nests", async () => {
      const bad = await s.fail("script", {
        tabId,
        steps: [
          { tool: "navigate", args: { url: s.fixtures.url("/index.html") } },
          { tool: "computer", args: { action: "fly" } },
        ],
      });
      assertMatch(bad, /Nothing ran: step 2 \(computer\): .*"action" must be one of/);
      const dry = await s.ok("script", {
        tabId,
        dry_run: true,
        steps: [{ tool: "get_page_text", args: {} }, { tool: "computer", args: { action: "fly" } }],
      });
      assertEquals(plain(dry)?.wouldRun, false);
      assertMatch(allText(dry), /would not run: step 2 cannot[\s\S]*2\. computer .*WOULD NOT RUN/);
      const nested = await s.fail("script", {
        steps: [{ tool: "browser_batch", args: { actions: [] } }],
      });
      assertMatch(nested, /never nest/);
      const dangling = await s.ok("script", {
        tabId,
        steps: [
          { tool: "get_page_text", args: {} },
          { tool: "form_input", args: { ref: "$1.nothing", value: "x" } },
        ],
      });
      assertMatch(allText(dangling), /Stopped at step 2[\s\S]*\$1 has no "nothing"/);
    });

    await t.step("browser_batch stops at the first failing call and says which", async () => {
      await freshPage(s, tabId, "/workflow.html");
      const result = await s.ok("browser_batch", {
        actions: [
          { name: "computer", input: { action: "screenshot", tabId } },
          { name: "form_input", input: { ref: "ref_99999", value: "x", tabId } },
          { name: "navigate", input: { url: s.fixtures.url("/index.html"), tabId } },
        ],
      });
      const text = allText(result);
      assertMatch(text, /Stopped at action 2 of 3 \(form_input\), which failed, after action 1/);
      assertMatch(text, /action 3 did not run/);
      assert(result.content.some((block) => block.type === "image"), "the screenshot is kept");
      assertEquals(plain(result)?.ran, 2);
      const page = await s.ok("get_page_text", { tabId });
      assert(allText(page).includes("Keeper"), "the third call never ran");
    });

    await t.step(
      "act_on with an ambiguous target returns candidates and acts on nothing",
      async () => {
        await freshPage(s, tabId, "/workflow.html");
        const refused = await s.fail("act_on", {
          tabId,
          target: { query: "Remove" },
          action: "left_click",
        });
        assertMatch(refused, /matches 2 elements about equally well, so nothing was done/);
        const refs = [...refused.matchAll(/\[(ref_\d+)\]/g)].map((m) => m[1]);
        assertEquals(new Set(refs).size, 2);
        const page = allText(await s.ok("get_page_text", { tabId }));
        assert(page.includes("nothing yet"), "no button was clicked");
        const acted = await s.ok("act_on", {
          tabId,
          target: { ref: refs[1] },
          action: "left_click",
          expect: { text: "deleted", timeout_ms: 3_000 },
        });
        assertEquals(plain(acted)?.expectMet, true);
        assertMatch(allText(acted), /Expected text "deleted" visible: held/);
      },
    );

    await t.step("act_on names what it acted on, not the words it was asked for", async () => {
      await freshPage(s, tabId, "/workflow.html");
      const acted = await s.ok("act_on", {
        tabId,
        target: { query: "Prepare shipment soon" },
        action: "left_click",
      });
      const text = allText(acted);
      assertMatch(text, /Best match for "Prepare shipment soon": ref_\d+/);
      assert(!/Found "Prepare shipment soon"/.test(text), text);
      assertMatch(text, /target: button "Prepare shipment"/);
    });

    await t.step("narrate shows a caption that takes no click and is never read", async () => {
      await freshPage(s, tabId, "/workflow.html");
      await s.ok("narrate", { tabId, text: "Checking the lamp log", position: "bottom" });
      const probe = await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "const c = document.querySelector('ghostlight-caption'); const r = " +
          "c.getBoundingClientRect(); [!!c, document.elementFromPoint(innerWidth / 2, " +
          "innerHeight - 20) !== c, r.height > 0].join()",
        tabId,
      });
      assertEquals(plain(probe)?.result, "true,true,true");
      for (const tool of ["read_page", "get_page_text"]) {
        const read = allText(await s.ok(tool, { tabId }));
        assert(!read.includes("Checking the lamp log"), `${tool} read the caption back:\n${read}`);
      }
      const found = await s.ok("find", { tabId, query: "Checking the lamp log" });
      const names = (plain(found)?.matches as { name: string }[]).map((m) => m.name);
      assert(!names.some((name) => name.includes("Checking")), `find found it: ${names}`);
    });

    await t.step("tab_control focuses, reloads and closes an owned tab", async () => {
      const opened = await s.ok("tabs_create_mcp", {});
      const other = (plain(opened) as { tabs: { tabId: number }[] }).tabs
        .map((tab) => tab.tabId).find((id) => id !== tabId)!;
      const focus = await s.ok("tab_control", { tabId, action: "focus" });
      assertEquals(
        (plain(focus)?.tabDelta as { activeTabId: number }).activeTabId,
        tabId,
      );
      const reload = await s.ok("tab_control", { tabId, action: "reload" });
      assertEquals(plain(reload)?.loaded, true);
      const closed = await s.ok("tab_control", { tabId: other, action: "close" });
      assertEquals((plain(closed)?.tabDelta as { closed: number[] }).closed, [other]);
      assertMatch(await s.fail("navigate", { tabId: other, url: "about:blank" }), /is gone/);
    });

    await t.step(
      "explain lists every action's capability and says there is no policy (none is set here)",
      async () => {
        const result = await s.ok("explain", {});
        const text = allText(result);
        assertMatch(text, /Policy: none is set, so every action below is allowed/);
        assertMatch(text, /computer — .*screenshot.*: read/);
        assertMatch(text, /form_fill — read\+write; submit: read\+write\+action/);
        const tools = plain(result)?.tools as { name: string }[];
        assertEquals(tools.at(-1)?.name, "explain");
      },
    );
  } finally {
    await s.close();
  }
});
