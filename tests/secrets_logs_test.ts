/**
 * The values of a page's secret fields never come back through what the page does with them
 * (decision 0282): a password and a one-time code typed into a careless page that logs them,
 * sends them in request URLs and a body, and clears the code, appear in no console message and
 * no request, in text or structured content, and cannot be probed for with a pattern; a password
 * field the page's show-password toggle turned into a text field still hides its value.
 */

import { assert, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type CallResult, type E2ESession, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

const PHRASE = "Hunter 2@Fog!";
const CODE = "582046";
/** The phrase as a page's URL carries it: percent-encoded, and as the URL parser leaves it. */
const FORMS = [PHRASE, CODE, encodeURIComponent(PHRASE), "Hunter%202@Fog!", "Hunter+2"];

function assertHidden(s: E2ESession, result: CallResult, what: string): void {
  const text = s.text(result);
  const structured = JSON.stringify(plain(result) ?? {});
  for (const secret of FORMS) {
    assert(!text.includes(secret), `${what}: the text shows ${secret}: ${text}`);
    assert(!structured.includes(secret), `${what}: the structured content shows ${secret}`);
  }
}

Deno.test("secret values the page logs or sends, and a password shown by its toggle, stay hidden", async () => {
  const s = await startSession();
  try {
    const tabId = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/sign_in_logs.html"), tabId });
    await s.ok("computer", { action: "left_click", coordinate: [100, 92], tabId });
    assertHidden(s, await s.ok("computer", { action: "type", text: PHRASE, tabId }), "type");
    await s.ok("computer", { action: "left_click", coordinate: [100, 142], tabId });
    assertHidden(s, await s.ok("computer", { action: "type", text: CODE, tabId }), "type");

    // The show-password toggle makes the field a text field; it stays a secret field.
    await s.ok("computer", { action: "left_click", coordinate: [270, 94], tabId });
    const type = await s.ok("javascript_tool", {
      action: "javascript_exec",
      text: "document.getElementById('field-a').type",
      tabId,
    });
    assertMatch(s.text(type), /\btext\b/, "the page turned the field into a text field");
    assertHidden(s, await s.ok("read_page", { tabId }), "read_page");
    assertHidden(s, await s.ok("find", { query: "secret phrase field", tabId }), "find");
    assertHidden(s, await s.ok("get_page_text", { tabId }), "get_page_text");
    const shown = await s.ok("read_page", { tabId, filter: "interactive" });
    assertMatch(s.text(shown), /\[redacted\]/, "the field is there, its value hidden");

    // The page logs both values, sends them, and clears the code.
    await s.ok("computer", { action: "left_click", coordinate: [50, 194], tabId });
    const logged = await pollUntil(
      () => s.ok("read_console_messages", { tabId }),
      (result) => (s.text(result).match(/signing in with|phrase/g) ?? []).length >= 2,
      "the page's two log lines",
    );
    assertHidden(s, logged, "read_console_messages");
    assertMatch(s.text(logged), /signing in with \[redacted\] and \[redacted\]/);
    const sent = await pollUntil(
      () => s.ok("read_network_requests", { tabId }),
      (result) => (s.text(result).match(/\/api\/|data\.json\?who/g) ?? []).length >= 3,
      "the page's three requests",
    );
    assertHidden(s, sent, "read_network_requests");
    assertMatch(s.text(sent), /\/data\.json\?who=\[redacted\]&n=\[redacted\]/);

    // A pattern cannot probe for a hidden value.
    for (const probe of [CODE, "Hunter"]) {
      const console = await s.ok("read_console_messages", { tabId, pattern: probe });
      assertMatch(s.text(console), /^0 console messages matching/, `console pattern ${probe}`);
      const network = await s.ok("read_network_requests", { tabId, urlPattern: probe });
      assertMatch(s.text(network), /^0 requests with/, `network pattern ${probe}`);
    }

    // While a dialog keeps the page from saying which values are secret, what it logged since
    // it last did is withheld; what it logged before is still shown, redacted.
    await s.ok("computer", { action: "left_click", coordinate: [150, 194], tabId });
    const held = await pollUntil(
      () => s.ok("read_console_messages", { tabId }),
      (result) => /withheld/.test(s.text(result)),
      "the line logged under the dialog",
    );
    assertHidden(s, held, "read_console_messages under a dialog");
    assertMatch(s.text(held), /signing in with \[redacted\] and \[redacted\]/);
    assertMatch(s.text(held), /\[withheld: logged after the page last said which values/);
    await s.ok("dialog", { action: "accept", tabId });
    const after = await s.ok("read_console_messages", { tabId });
    assertMatch(s.text(after), /holding with \[redacted\]/, "once it answers, the line is shown");
    assertHidden(s, after, "read_console_messages after the dialog");
  } finally {
    await s.close();
  }
});
