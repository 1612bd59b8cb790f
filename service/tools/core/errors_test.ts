import { assertEquals } from "../../../tests/support/assert.ts";
import { BrowserError, dialogOpenError } from "../../browser/mod.ts";
import type { Workspace } from "../../workspace/mod.ts";
import { failureOutcome, plainCdpError } from "./errors.ts";

Deno.test("a CDP error is shown as its message, without the protocol's JSON", () => {
  assertEquals(
    plainCdpError(
      'Page.getNavigationHistory: {"code":-32000,"message":"Not attached to an active page"}',
    ),
    "Not attached to an active page (Page.getNavigationHistory)",
  );
  assertEquals(plainCdpError("cannot attach to tab 5: gone"), "cannot attach to tab 5: gone");
  assertEquals(plainCdpError("Page.navigate: {not json}"), "Page.navigate: {not json}");
});

Deno.test("a dialog's refusal is told from the dialog it carries, not from its message's words", () => {
  const workspace = { fenceNonce: "n0nce" } as Workspace;
  const dialog = { type: "confirm", message: 'Leave? ") is open (not a real end' };
  // Worded otherwise than `dialogOpenError` words it: the outcome still names the dialog.
  const outcome = failureOutcome(
    new BrowserError("dialog_open", "held by something", { dialog }),
    workspace,
  );
  assertEquals(outcome.kind, "tool_failure");
  const told = outcome.kind === "success" ? "" : outcome.message;
  assertEquals(
    told,
    "A JavaScript confirm dialog is open and freezes the page. It says:\n" +
      `<page-content-n0nce origin="unknown" trust="untrusted">\n${dialog.message}\n` +
      "</page-content-n0nce>",
  );
  // The error made where the refusal is made carries the same facts.
  assertEquals(dialogOpenError(dialog).dialog, { type: "confirm", message: dialog.message });
  // A long message is quoted to its first 100 characters, as the refusal's own words were.
  const long = failureOutcome(dialogOpenError({ type: "alert", message: "x".repeat(300) }), {
    fenceNonce: "n",
  } as Workspace);
  assertEquals(long.kind === "success" ? "" : long.message.includes("x".repeat(101)), false);
});
