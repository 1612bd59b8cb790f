import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { bridgeSession, harnessDeps } from "../../tests/support/bridge_harness.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { Questions } from "../asks/mod.ts";
import { BrowserHub } from "../browser/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS, Scheduler } from "../scheduler/mod.ts";
import type { SessionDeps } from "./session.ts";

/** A session bound to remote `agent` (or a local one), over real questions with a short bound. */
async function shoreSession(remote: boolean, timeoutMs: number) {
  const deps: SessionDeps = await harnessDeps(
    new BrowserHub(),
    new Scheduler(DEFAULT_SCHEDULER_OPTIONS),
  );
  deps.governance.questions = new Questions({ timeoutMs, live: () => true });
  const session = bridgeSession(
    deps,
    remote
      ? {
        principal: "remote:agent",
        remote: { name: "agent", host: "127.0.0.1:9", pin: new Set<string>() },
      }
      : {},
  );
  return { deps, ...session };
}

const REQUEST = { title: "Run `make clean`", kind: "execute", canAllow: true };

Deno.test("an agent host's request unanswered within the bound ends as unanswered; a local connector's is refused", async () => {
  const local = await shoreSession(false, 60_000);
  local.send({ type: "agent_permission", seq: 1, request: REQUEST });
  const refused = await local.next();
  assertEquals(refused.type === "agent_permission_answer" && refused.answer, "deny");
  assertEquals(local.deps.governance.questions.questions(), []);
  await local.end();

  const shore = await shoreSession(true, 300);
  shore.send({ type: "agent_permission", seq: 7, request: REQUEST });
  await waitFor(
    () => Promise.resolve(shore.deps.governance.questions.questions().length === 1),
    "the question to open",
  );
  const [open] = shore.deps.governance.questions.questions();
  assertEquals([open.principal, open.workspace, open.agent], ["remote:agent", null, REQUEST]);
  const ended = await shore.next();
  assertEquals(ended.type, "agent_permission_answer");
  if (ended.type !== "agent_permission_answer") return;
  assertEquals([ended.seq, ended.answer], [7, "unanswered"]);
  assertMatch(ended.said, /did not answer within 0.3 s/);
  assertEquals(shore.deps.governance.questions.questions(), []);
  await shore.end();
});

Deno.test("the shore's cancel withdraws the question; a hold of every agent answers it no", async () => {
  const shore = await shoreSession(true, 60_000);
  const { questions } = shore.deps.governance;
  shore.send({ type: "agent_permission", seq: 1, request: REQUEST });
  await waitFor(
    () => Promise.resolve(questions.questions().length === 1),
    "the first question to open",
  );
  shore.send({ type: "cancel", seq: 1 });
  const withdrawn = await shore.next();
  assertEquals(withdrawn.type === "agent_permission_answer" && withdrawn.answer, "withdrawn");
  shore.send({ type: "agent_permission", seq: 2, request: REQUEST });
  await waitFor(
    () => Promise.resolve(questions.questions().length === 1),
    "the second question to open",
  );
  // A hold of one workspace does not reach it (it has none); a hold of all does.
  assertEquals(questions.denyOpen(3, "the CLI's hold"), 0);
  assertEquals(questions.denyOpen(undefined, "the CLI's hold"), 1);
  const denied = await shore.next();
  assertEquals(denied.type === "agent_permission_answer" && denied.answer, "deny");
  await shore.end();
});
