// The gate with a browser that reports where its tabs stand (decision 0190): the look before a
// call and the landing check after it come from the link's table when it is fresh, from the
// browser (`tab.get`) when it is not, and the policy holds either way.

import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { type Command, deniedTestWorkspace, tabAt } from "../../tests/support/bridge_harness.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { InnerRefusals, MAX_INNER_RECORDS } from "./gate.ts";

/**
 * A session on a fake browser (declaring `features`) whose workspace owns native tab 5; the
 * browser answers every command at once, with the tab at `where()` as its tail when `tails`.
 */
async function gateHarness(features: string[]) {
  const { browser, session, workspace, close } = await deniedTestWorkspace(features);
  let where = tabAt("https://allowed.test/");
  let tails = features.includes("tab_locations");
  let answered = 0;
  let stop = false;
  const answering = (async () => {
    while (!stop) {
      await waitFor(
        () => Promise.resolve(stop || browser.commands.length > answered),
        "a command",
      );
      for (const command of browser.commands.slice(answered)) {
        answered++;
        const value = command.op === "tab.get"
          ? where
          : command.op === "cdp"
          ? { currentIndex: 0, entries: [] }
          : {};
        browser.say({
          type: "result",
          id: command.id,
          ok: true,
          value,
          ...tails ? { tab: where } : {},
        });
      }
    }
  })();
  let seq = 1;
  /**
   * Reads the console of tab 5 (the handler's CDP commands, {@linkcode HANDLER}, after
   * `tab.observe` the first time).
   */
  const read = async () => {
    const before = browser.commands.length;
    session.send({
      type: "start",
      seq: ++seq,
      tool: "read_console_messages",
      arguments: { tabId: 5 },
      workspace,
      context: session.context,
    });
    const completed = await session.next();
    assert(completed.type === "completed", JSON.stringify(completed));
    return { outcome: completed.outcome, sent: browser.commands.slice(before) };
  };
  return {
    browser,
    read,
    moveTo(url: string) {
      where = tabAt(url);
    },
    tails(on: boolean) {
      tails = on;
    },
    async end() {
      stop = true;
      await answering;
      await close();
    },
  };
}

const ops = (sent: Command[]) => sent.map((command) => command.op);
/** What the console read sends itself: its look at the tab, and its ask for the page's secrets. */
const HANDLER = ["cdp", "cdp"];
const said = (outcome: { kind: string; message?: string }) => outcome.message ?? "";

Deno.test("a tab that reports where it stands is not asked before or after a call", async () => {
  const h = await gateHarness(["tab_locations"]);
  try {
    // Unknown at first: the gate asks, and that answer makes it known.
    const first = await h.read();
    assertEquals(first.outcome.kind, "success", JSON.stringify(first.outcome));
    assertEquals(ops(first.sent)[0], "tab.get");
    const second = await h.read();
    assertEquals(second.outcome.kind, "success");
    // Only the handler's own commands: no look before, none after.
    assertEquals(ops(second.sent), HANDLER);
  } finally {
    await h.end();
  }
});

Deno.test("a tab reported on a denied host is refused before anything is sent", async () => {
  const h = await gateHarness(["tab_locations"]);
  try {
    assertEquals((await h.read()).outcome.kind, "success");
    h.moveTo("https://denied.test/");
    h.browser.say({ type: "tab_location", tab_id: 5, tab: tabAt("https://denied.test/") });
    const refused = await h.read();
    assertEquals(refused.outcome.kind, "denied");
    // The page chose where its tab is: its host is named only inside the fence.
    assertMatch(
      said(refused.outcome),
      /read capability on the page in its tab, which is refused \(grant 1 of [^\n]*\)\. The tab is on:\n<page-content-[\w-]+ origin="https:\/\/denied\.test" trust="untrusted">\ndenied\.test\n</,
    );
    assertEquals(refused.sent, []);
  } finally {
    await h.end();
  }
});

Deno.test("a call that leaves its tab on a denied host has its result withheld", async () => {
  const h = await gateHarness(["tab_locations"]);
  try {
    assertEquals((await h.read()).outcome.kind, "success");
    // The page moves while the call runs: the answers' tails say so.
    h.moveTo("https://denied.test/");
    const landed = await h.read();
    assertEquals(landed.outcome.kind, "denied");
    // The host is the page's choice (it moved there): named only inside the fence.
    assertMatch(
      said(landed.outcome),
      /the tab ended on a site where reading is refused [\s\S]*The tab is on:\n<page-content-[\w-]+ origin="https:\/\/denied\.test" trust="untrusted">\ndenied\.test\n<\/page-content-[\w-]+>/,
    );
    assertEquals(ops(landed.sent), HANDLER, "the tails said it: no look after");
  } finally {
    await h.end();
  }
});

Deno.test("answers without a tail: the gate asks the browser after the call", async () => {
  const h = await gateHarness(["tab_locations"]);
  try {
    assertEquals((await h.read()).outcome.kind, "success");
    // The table knows the tab, but the call's answers say nothing newer: it is not trusted.
    h.tails(false);
    h.moveTo("https://denied.test/");
    const landed = await h.read();
    assertEquals(landed.outcome.kind, "denied");
    assertMatch(said(landed.outcome), /The tab is on:\n<page-content-[^\n]*\ndenied\.test\n/);
    assertEquals(ops(landed.sent), [...HANDLER, "tab.get"]);
  } finally {
    await h.end();
  }
});

Deno.test("an extension without the feature: the gate asks before and after, as before", async () => {
  const h = await gateHarness([]);
  try {
    assertEquals(ops((await h.read()).sent), ["tab.get", "tab.observe", ...HANDLER, "tab.get"]);
    assertEquals(ops((await h.read()).sent), ["tab.get", ...HANDLER, "tab.get"]);
    h.moveTo("https://denied.test/");
    assertEquals((await h.read()).outcome.kind, "denied");
  } finally {
    await h.end();
  }
});

Deno.test("refusals inside a call's page are recorded once each, at most a bound, then counted", () => {
  const inner = new InnerRefusals();
  const refusal = (n: number) => ({
    result: "sacred",
    host: `h${n}.example`,
    capabilities: ["read"],
    rule: `withheld inside the call's page: rule ${n}`,
  });
  for (let n = 0; n < MAX_INNER_RECORDS + 4; n++) {
    inner.note(refusal(n));
    inner.note(refusal(n));
  }
  const records = inner.records();
  assertEquals(records.length, MAX_INNER_RECORDS);
  assertEquals(records[0], refusal(0));
  assertEquals(
    records.at(-1)!.rule,
    `withheld inside the call's page: rule ${
      MAX_INNER_RECORDS - 1
    } (and 8 more refused asks inside the page)`,
  );
});
