import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { bridgeSession, harnessDeps } from "../../tests/support/bridge_harness.ts";
import { pollUntil } from "../../tests/support/wait.ts";
import { BrowserHub } from "../browser/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";

Deno.test("a connector's answer to a question it was not asked is refused and audited", async () => {
  const deps = await harnessDeps(new BrowserHub(), new Scheduler(DEFAULT_SCHEDULER_OPTIONS));
  const { questions, dir } = deps.governance;
  // Another agent's call waits for the person.
  const workspace = deps.workspaces.open("other agent", "other");
  const asked = questions.ask({
    workspace,
    principal: "other",
    client: "other agent",
    capability: "write",
    host: "shop.test",
    call: "form_input on shop.test",
  }, new AbortController().signal);
  const session = bridgeSession(deps);
  try {
    await pollUntil(() => Promise.resolve(questions.questions()), (open) => open.length === 1, "q");
    session.send({ type: "answer", seq: 1, question: 1, answer: "once" });
    const refused = await pollUntil(
      async () =>
        (await Deno.readTextFile(`${dir}/audit.jsonl`)).trimEnd().split("\n").filter(Boolean)
          .map((line) => JSON.parse(line)),
      (lines) => lines.some((line) => line.result === "answer refused"),
      "the refused answer's record",
    );
    const record = refused.find((line) => line.result === "answer refused");
    assertEquals([record.principal, record.tool], ["unnamed", "asks"]);
    assertMatch(record.rule, /"once" to question 1 was not taken: this connector was not asked/);
    assertEquals(questions.questions().length, 1, "the question is still open");
    questions.answer(1, "deny", "the CLI");
    assertEquals((await asked).kind, "no");
  } finally {
    await session.end();
  }
});
