/**
 * A one-time code never leaves the page in a receipt: clicking the field, typing into it and
 * setting it with form_input all describe it with the page runtime's one describer, whose
 * secret rule (the same read_page and find use) covers `autocomplete="one-time-code"`, not only
 * password fields. Neither the text nor the structured content of any answer holds the code.
 */

import { assert } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type CallResult, type E2ESession, startSession } from "./support/session.ts";

/** The code the fixture's field holds, and one form_input sets. */
const CODE = "493817";
const NEW_CODE = "271828";

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
  } finally {
    await s.close();
  }
});
