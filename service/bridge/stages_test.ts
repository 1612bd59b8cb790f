// A call's stages as one list (decision 0325): the list's order is the one the decision record
// gives, a stage that ends the call stops the rest, and a step of a multi-step call goes through
// the same list as a call made alone.

import type { Outcome } from "../../shared/bridge.ts";
import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { deniedTestWorkspace, tabAt } from "../../tests/support/bridge_harness.ts";
import { pollUntil, waitFor } from "../../tests/support/wait.ts";
import { CALL_STAGES } from "./call_stages.ts";
import { after, before, type CallRecord, compose, last } from "./stages.ts";

const RECORD = new URL("../../docs/decisions/0325-a-call-s-stages-in-one-list.md", import.meta.url);

Deno.test("the call's stages run in the order the decision record gives", async () => {
  const text = await Deno.readTextFile(RECORD);
  const listed = [...text.matchAll(/^\d+\. `([a-z]+)`/gm)].map((match) => match[1]);
  assert(listed.length > 0, "the record lists the stages");
  assertEquals(CALL_STAGES.map((stage) => stage.name), listed);
});

const SUCCESS: Outcome = { kind: "success", content: [] };
const REFUSED: Outcome = { kind: "denied", message: "no", next_step: "stop" };

Deno.test("a stage that ends the call stops the rest; the stages above it see its outcome", async () => {
  const seen: string[] = [];
  const pass = (name: string) =>
    before(name, (record) => {
      seen.push(name);
      return { record };
    });
  const run = compose([
    after("outer", (_record, ended) => {
      seen.push("outer saw " + ended.outcome.kind);
      return ended.outcome;
    }),
    pass("one"),
    before("refuse", () => {
      seen.push("refuse");
      return { outcome: REFUSED };
    }),
    pass("two"),
    last("handler", () => {
      seen.push("handler");
      return Promise.resolve(SUCCESS);
    }),
  ]);
  const record = { step: false } as unknown as CallRecord;
  const ended = await run(record);
  assertEquals(ended.outcome, REFUSED);
  assertEquals(seen, ["one", "refuse", "outer saw denied"]);
});

Deno.test("a stage hands the next one a new record and cannot change its own", async () => {
  const records: CallRecord[] = [];
  const run = compose([
    before("add", (record) => ({ record: { ...record, restrictions: [] } })),
    last("handler", (record) => {
      records.push(record);
      assert(Object.isFrozen(record), "the record a stage gets is frozen");
      return Promise.resolve(SUCCESS);
    }),
  ]);
  const first = { step: false } as unknown as CallRecord;
  const ended = await run(first);
  assertEquals(records[0].restrictions, []);
  assertEquals(first.restrictions, undefined, "the first record is as it was");
  assertEquals(ended.record, records[0], "the end names the furthest record");
});

/**
 * A session on a fake browser (declaring `features`) whose workspace owns native tab 5 on `url`;
 * `onCommand` runs before each command is answered.
 */
async function stepHarness(
  url: string,
  onCommand: (op: string) => void = () => {},
  features = ["tab_locations"],
) {
  const { deps, browser, session, workspace, close } = await deniedTestWorkspace(features);
  let answered = 0;
  let stop = false;
  const answering = (async () => {
    while (!stop) {
      await waitFor(() => Promise.resolve(stop || browser.commands.length > answered), "a cmd");
      for (const command of browser.commands.slice(answered)) {
        answered++;
        onCommand(command.op);
        const value = command.op === "tab.get" ? tabAt(url) : {};
        browser.say({ type: "result", id: command.id, ok: true, value, tab: tabAt(url) });
      }
    }
  })();
  let seq = 1;
  const call = async (tool: string, args: Record<string, unknown>) => {
    const context = session.context;
    session.send({
      type: "start",
      seq: ++seq,
      tool,
      arguments: args,
      workspace,
      context,
    });
    // A call waiting for the person tells its connector so (`ask`, `withdraw`) before it ends.
    let completed = await session.next();
    while (completed.type === "ask" || completed.type === "withdraw") {
      completed = await session.next();
    }
    assert(completed.type === "completed", JSON.stringify(completed));
    return completed.outcome;
  };
  const audit = async () =>
    (await Deno.readTextFile(`${deps.governance.dir}/audit.jsonl`)).trimEnd().split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    deps,
    browser,
    call,
    audit,
    async end() {
      stop = true;
      await answering;
      await close();
    },
  };
}

const READ = { name: "read_console_messages", input: { tabId: 5 } };
const text = (outcome: Outcome) =>
  outcome.kind === "success"
    ? outcome.content.map((block) => block.type === "text" ? block.text : "").join("\n")
    : outcome.message;

Deno.test("a step is refused by the policy as the same call alone is, and audited as one", async () => {
  const h = await stepHarness("https://denied.test/");
  try {
    const alone = await h.call("read_console_messages", { tabId: 5 });
    assertEquals(alone.kind, "denied");
    const batch = await h.call("browser_batch", { actions: [READ] });
    assertEquals(batch.kind, "denied");
    assertMatch(
      text(batch),
      /^action 1 \(read_console_messages\) failed, so nothing ran after it: /,
    );
    assert(text(batch).endsWith(text(alone)), text(batch));
    const records = await h.audit();
    const step = records.filter((record) => /^w\d+\.1$/.test(String(record.work)));
    assertEquals(
      step.map((record) => [record.kind, record.result, record.host]),
      [["decision", "denied", "denied.test"], ["outcome", "denied", "denied.test"]],
    );
  } finally {
    await h.end();
  }
});

Deno.test("a hold the person sets while a batch runs stops its next step at the hold stage", async () => {
  let holding: (() => void) | null = null;
  const h = await stepHarness("https://allowed.test/", () => holding?.());
  try {
    assertEquals((await h.call("read_console_messages", { tabId: 5 })).kind, "success");
    // Once the first step is in the browser, the person holds every agent.
    holding = () => void h.deps.governance.person.hold();
    const batch = await h.call("browser_batch", { actions: [READ, READ] });
    assertMatch(text(batch), /Stopped at action 2 of 2 \(read_console_messages\), which failed/);
    assertMatch(text(batch), /action 2: read_console_messages, [\d.]+ s\] FAILED \(held\)/);
    const records = await h.audit();
    const second = records.filter((record) => /^w\d+\.2$/.test(String(record.work)));
    assertEquals(second.map((record) => [record.kind, record.result]), [
      ["decision", "held"],
      ["outcome", "held"],
    ]);
  } finally {
    await h.end();
  }
});

Deno.test("the stop note counts the requests the browser reported blocked, not what the policy refuses", async () => {
  let onCdp: (() => void) | null = null;
  const h = await stepHarness("https://allowed.test/", (op) => {
    if (op === "cdp") onCdp?.();
  }, ["tab_locations", "network_rules"]);
  try {
    assertEquals((await h.call("read_console_messages", { tabId: 5 })).kind, "success");
    const event = (method: string, params: Record<string, unknown>) =>
      h.browser.say({ type: "cdp_event", tab_id: 5, method, params });
    const request = (id: string, url: string, ended: Record<string, unknown>) => {
      const at = { requestId: id, timestamp: 1 };
      event("Network.requestWillBeSent", { ...at, request: { url, method: "GET" }, type: "Fetch" });
      event(ended.errorText ? "Network.loadingFailed" : "Network.loadingFinished", {
        ...at,
        ...ended,
      });
    };
    onCdp = () => {
      onCdp = null;
      // While the call runs, the page sends three requests: one to the refused host that the
      // browser blocked, one to it that went through (a gap in the filter), and one to an allowed
      // host that another extension blocked.
      request("r1", "https://denied.test/blocked", { errorText: "net::ERR_BLOCKED_BY_CLIENT" });
      request("r2", "https://denied.test/through", { encodedDataLength: 10 });
      request("r3", "https://allowed.test/ad", { errorText: "net::ERR_BLOCKED_BY_CLIENT" });
    };
    const read = await h.call("read_console_messages", { tabId: 5 });
    assertEquals(read.kind, "success");
    assertMatch(text(read), /Ghostlight stopped 1 request from the tab while this call ran/);
  } finally {
    await h.end();
  }
});

Deno.test("a step on a quarantined tab is refused at the quarantine stage, as a call is", async () => {
  const h = await stepHarness("https://allowed.test/");
  try {
    h.deps.scheduler.quarantine.enter("tab:5", { executor: "e1", command: "c1" });
    const alone = await h.call("read_console_messages", { tabId: 5 });
    assertEquals(alone.kind, "not_dispatched");
    const batch = await h.call("browser_batch", { actions: [READ] });
    assertEquals(batch.kind, "not_dispatched");
    assert(text(batch).endsWith(text(alone)), text(batch));
    // Closing the tab, the way out of a quarantine, binds no tab: it is not held back.
    const closing = await h.call("browser_batch", {
      actions: [{ name: "tab_control", input: { action: "close", tabId: 5 } }],
    });
    assert(!/quarantined/.test(text(closing)), text(closing));
  } finally {
    await h.end();
  }
});

Deno.test("a yes that comes while the person holds the agent lets nothing through", async () => {
  const ops: string[] = [];
  const h = await stepHarness("https://ask.test/", (op) => ops.push(op));
  try {
    const { policy, person, questions, dir } = h.deps.governance;
    await Deno.writeTextFile(
      `${dir}/policy.jsonc`,
      `{ "default": "allow", "grants": [{ "hosts": ["ask.test"], "ask": ["read"] }] }`,
    );
    await policy.reload();
    const call = h.call("read_console_messages", { tabId: 5 });
    const [question] = await pollUntil(
      () => Promise.resolve(questions.questions()),
      (open) => open.length === 1,
      "the question",
    );
    const before = ops.length;
    // Held by a way that leaves the question open; the yes then comes.
    person.hold();
    questions.answer(question.number, "once", "the CLI");
    const outcome = await call;
    assertEquals(outcome.kind, "held");
    assertEquals(ops.slice(before), [], "nothing was sent to the browser after the yes");
    person.resume();
  } finally {
    await h.end();
  }
});
