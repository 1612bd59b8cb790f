/**
 * A one-time code never leaves the page in a receipt: clicking the field, typing into it and
 * setting it with form_input all describe it with the page runtime's one describer, whose
 * secret rule (the same read_page and find use) covers `autocomplete="one-time-code"`, not only
 * password fields. Neither the text nor the structured content of any answer holds the code.
 */

import { assert, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type CallResult, type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** The code the fixture's field holds, and one form_input sets. */
const CODE = "493817";
const NEW_CODE = "271828";
/** Codes the later steps set: form_fill, act_on set_value. */
const FILLED_CODE = "314159";
const ACTED_CODE = "161803";

/** A script that reads the field's value, as javascript_tool's `text`. */
const READ_VALUE = "document.getElementById('verification').value";

function assertHidden(s: E2ESession, result: CallResult, what: string, secrets: string[]): void {
  const text = s.text(result);
  const structured = JSON.stringify(plain(result) ?? {});
  for (const secret of secrets) {
    assert(!text.includes(secret), `${what}: the text shows the code: ${text}`);
    assert(!structured.includes(secret), `${what}: the structured content shows it: ${structured}`);
  }
}

Deno.test("receipts never show a one-time code", async (t) => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/verify.html"), tabId });
    const found = await s.ok("find", { query: "verification code", tabId });
    assertHidden(s, found, "find", [CODE]);
    const field = (plain(found) as {
      matches: { ref: string; role: string; x: number; y: number }[];
    }).matches.find((match) => match.role === "textbox");
    assert(field, `find names the field: ${s.text(found)}`);

    await t.step("left_click on the field, by ref and by coordinate", async () => {
      const byRef = await s.ok("computer", { action: "left_click", ref: field.ref, tabId });
      assertHidden(s, byRef, "left_click by ref", [CODE]);
      const byPoint = await s.ok("computer", {
        action: "left_click",
        coordinate: [field.x, field.y],
        tabId,
      });
      assertHidden(s, byPoint, "left_click at the field", [CODE]);
      const receipt = plain(byPoint)?.receipt as {
        target?: { role: string; value?: string };
        observedAfter: { focus?: { value?: string } };
      };
      assert(receipt.target?.role === "textbox", `the click met the field: ${s.text(byPoint)}`);
      assert(receipt.target?.value === "[redacted]", `its value is redacted: ${s.text(byPoint)}`);
      assert(
        receipt.observedAfter.focus?.value === "[redacted]",
        `the focused field's value is redacted: ${s.text(byPoint)}`,
      );
    });

    await t.step("type into the field", async () => {
      await s.ok("computer", { action: "key", text: "End", tabId });
      const typed = await s.ok("computer", { action: "type", text: "5", tabId });
      assertHidden(s, typed, "type", [CODE]);
      const receipt = plain(typed)?.receipt as {
        observedAfter: { focus?: { value?: string }; changedElements?: unknown[] };
      };
      assert(
        receipt.observedAfter.focus?.value === "[redacted]",
        `the focused field's value is redacted: ${s.text(typed)}`,
      );
    });

    await t.step("form_input on the field", async () => {
      const set = await s.ok("form_input", { ref: field.ref, value: NEW_CODE, tabId });
      assertHidden(s, set, "form_input", [CODE, NEW_CODE]);
      const clicked = await s.ok("computer", { action: "left_click", ref: field.ref, tabId });
      assertHidden(s, clicked, "left_click after form_input", [CODE, NEW_CODE]);
    });

    await t.step("every tool that reads the page hides the code", async () => {
      const all = [CODE, NEW_CODE];
      assertHidden(s, await s.ok("read_page", { tabId }), "read_page", all);
      assertHidden(s, await s.ok("read_page", { tabId, filter: "interactive" }), "read_page", all);
      assertHidden(s, await s.ok("get_page_text", { tabId }), "get_page_text", all);
      assertHidden(s, await s.ok("find", { query: "verification code field", tabId }), "find", all);
      const js = (text: string) =>
        s.ok("javascript_tool", { action: "javascript_exec", text, tabId });
      assertHidden(s, await js(READ_VALUE), "javascript_tool .value", all);
      assertHidden(s, await js(`({ code: ${READ_VALUE} })`), "javascript_tool object", all);
      assertHidden(s, await js(`[${READ_VALUE}].join(",")`), "javascript_tool joined", all);
    });

    await t.step("form_fill and act_on set_value hide what they set", async () => {
      const filled = await s.ok("form_fill", {
        tabId,
        fields: { "Verification code": FILLED_CODE },
      });
      assertHidden(s, filled, "form_fill", [CODE, NEW_CODE, FILLED_CODE]);
      const acted = await s.ok("act_on", {
        tabId,
        target: { ref: field.ref },
        action: "set_value",
        value: ACTED_CODE,
      });
      assertHidden(s, acted, "act_on set_value", [CODE, NEW_CODE, FILLED_CODE, ACTED_CODE]);
    });

    await t.step("script and browser_batch results hide it", async () => {
      const read = { action: "javascript_exec", text: READ_VALUE };
      const scripted = await s.ok("script", {
        tabId,
        steps: [{ tool: "javascript_tool", args: read }, { tool: "get_page_text", args: {} }],
      });
      assertHidden(s, scripted, "script", [ACTED_CODE]);
      const batched = await s.ok("browser_batch", {
        actions: [{ name: "javascript_tool", input: { ...read, tabId } }, {
          name: "read_page",
          input: { tabId },
        }],
      });
      assertHidden(s, batched, "browser_batch", [ACTED_CODE]);
    });

    await t.step("a title the page sets from the field hides it", async () => {
      await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: `document.title = "Code " + ${READ_VALUE}; 1`,
        tabId,
      });
      assertHidden(s, await s.ok("tabs_context_mcp", {}), "tabs_context_mcp", [ACTED_CODE]);
      assertHidden(s, await s.ok("read_page", { tabId }), "read_page title", [ACTED_CODE]);
      assertHidden(s, await s.ok("get_page_text", { tabId }), "get_page_text title", [ACTED_CODE]);
      // While a dialog freezes the page it cannot hide the code itself: the title is withheld.
      await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "setTimeout(() => alert('frozen'), 0); 1",
        tabId,
      });
      try {
        await pollUntil(
          () => s.call("read_page", { tabId, filter: "interactive" }),
          (read) => read.isError === true,
          "the dialog to freeze the page",
        );
        const listed = await s.ok("tabs_context_mcp", {});
        assertHidden(s, listed, "tabs_context_mcp under a dialog", [ACTED_CODE]);
        assertMatch(s.text(listed), /title withheld/);
      } finally {
        await s.ok("computer", { action: "key", text: "Escape", tabId });
      }
      assertHidden(s, await s.ok("navigate", { url: "back", tabId }), "navigate", [ACTED_CODE]);
    });

    await t.step("a message quoting a code the same form_fill then replaced hides it", async () => {
      await s.ok("navigate", { url: s.fixtures.url("/code_message.html"), tabId });
      await s.ok("read_page", { tabId });
      // The reference's message quotes the code as it stands then; the code is set after it.
      const filled = await s.ok("form_fill", {
        tabId,
        fields: { "Reference": "R-1", "Access code": "111222" },
      });
      assertMatch(s.text(filled), /"Reference": [^\n]*marks it invalid \(its message is below\)/);
      assertMatch(s.text(filled), /must differ from the code \[redacted\]/);
      assertHidden(s, filled, "form_fill message", ["808042", "111222"]);
    });

    await t.step("a title copied from a field in a shadow root or a frame hides it", async () => {
      const [inShadow, inFrame] = ["SHADOW-5551", "FRAME-7772"];
      await s.ok("javascript_tool", {
        action: "javascript_exec",
        text: `const host = document.createElement("div");
          host.attachShadow({ mode: "open" }).innerHTML = '<input type="password" value="${inShadow}">';
          const frame = document.createElement("iframe");
          frame.srcdoc = '<input type="password" value="${inFrame}">';
          const loaded = new Promise((resolve) => frame.onload = resolve);
          document.body.append(host, frame);
          await loaded;
          document.title = "Codes ${inShadow} ${inFrame}";
          1`,
        tabId,
      });
      const listed = await s.ok("tabs_context_mcp", {});
      assertHidden(s, listed, "tabs_context_mcp", [inShadow, inFrame]);
      assertMatch(s.text(listed), /Codes \[redacted\] \[redacted\]/);
    });
  } finally {
    await s.close();
  }
});
