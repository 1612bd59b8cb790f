import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { WorkspaceRegistry } from "../workspace/mod.ts";
import {
  type Asking,
  MAX_REMEMBERED,
  MAX_WAITING,
  NoSuchQuestion,
  Questions,
} from "./questions.ts";

function setUp(timeoutMs = 60_000) {
  const workspaces = new WorkspaceRegistry();
  const questions = new Questions({
    timeoutMs,
    live: (id) => workspaces.get(id) !== undefined,
  });
  const open = (principal: string) => workspaces.open(principal, principal);
  return { workspaces, questions, open };
}

function asking(workspace: Asking["workspace"], host = "shop.test"): Asking {
  return {
    workspace,
    principal: workspace.principal,
    client: "client 1.0",
    capability: "write",
    host,
    call: `form_input on ${host}`,
  };
}

/** Resolves once the broker has a question open for `workspace`. */
async function opened(questions: Questions, number: number): Promise<void> {
  if (questions.questions().some((q) => q.number === number)) return;
  await new Promise<void>((resolve) => {
    const stop = questions.onChange((event) => {
      if (event.opened?.number === number) {
        stop();
        resolve();
      }
    });
  });
}

Deno.test("allow once answers only that call; on the site is remembered for the workspace", async () => {
  const { questions, open } = setUp();
  const workspace = open("agent");
  const first = questions.ask(asking(workspace), new AbortController().signal);
  await opened(questions, 1);
  assertEquals(questions.questions().map((q) => [q.number, q.principal, q.host]), [[
    1,
    "agent",
    "shop.test",
  ]]);
  assertMatch(questions.answer(1, "once", "the CLI"), /allowed once/);
  assertEquals(await first, { kind: "yes", once: true, number: 1, by: "the CLI" });
  assertEquals(questions.remembered(workspace.id, "agent", "shop.test", "write"), null);
  let thrown: unknown;
  try {
    questions.answer(1, "deny", "the CLI");
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof NoSuchQuestion, "an answered question cannot be answered again");

  const second = questions.ask(asking(workspace), new AbortController().signal);
  await opened(questions, 2);
  questions.answer(2, "site", "the popup");
  assertEquals((await second).kind, "yes");
  assertEquals(questions.remembered(workspace.id, "agent", "shop.test", "write")?.by, "the popup");
  assertEquals(questions.remembered(workspace.id, "agent", "other.test", "write"), null);
  // Another agent working in the same workspace (it knows the id) is asked again.
  assertEquals(questions.remembered(workspace.id, "other-agent", "shop.test", "write"), null);
  const other = questions.ask(
    { ...asking(workspace), principal: "other-agent" },
    new AbortController().signal,
  );
  await opened(questions, 3);
  questions.answer(3, "deny", "the CLI");
  assertEquals((await other).kind, "no");
  assertEquals(questions.granted().map((g) => [g.principal, g.host]), [["agent", "shop.test"]]);
  assertMatch(questions.revoke(questions.granted()[0].number, "the CLI"), /asked again/);
  assertEquals(questions.remembered(workspace.id, "agent", "shop.test", "write"), null);
});

Deno.test("a yes ends with its workspace", async () => {
  const { questions, open, workspaces } = setUp();
  const workspace = open("agent");
  const asked = questions.ask(asking(workspace), new AbortController().signal);
  await opened(questions, 1);
  questions.answer(1, "site", "the CLI");
  await asked;
  workspaces.release(workspace.id);
  assertEquals(questions.remembered(workspace.id, "agent", "shop.test", "write"), null);
  assertEquals(questions.granted(), []);
});

Deno.test("nobody answering refuses at the bound; the call's end withdraws the question", async () => {
  const { questions, open } = setUp(50);
  const workspace = open("agent");
  assertEquals(await questions.ask(asking(workspace), new AbortController().signal), {
    kind: "unanswered",
    number: 1,
    ms: 50,
  });
  assertEquals(questions.questions(), []);
  const { questions: patient, open: openPatient } = setUp();
  const other = openPatient("agent");
  const controller = new AbortController();
  const withdrawn = patient.ask(asking(other), controller.signal);
  await opened(patient, 1);
  controller.abort();
  assertEquals(await withdrawn, { kind: "withdrawn", number: 1 });
  assertEquals(patient.questions(), []);
});

Deno.test("one question per workspace: the others wait behind it, bounded, and a yes covers them", async () => {
  const { questions, open } = setUp();
  const workspace = open("agent");
  const elsewhere = open("another");
  const signal = new AbortController().signal;
  const first = questions.ask(asking(workspace), signal);
  await opened(questions, 1);
  const behind = Array.from(
    { length: MAX_WAITING },
    () => questions.ask(asking(workspace), signal),
  );
  // One more than the bound is refused at once.
  assertEquals(await questions.ask(asking(workspace), signal), { kind: "busy" });
  // Another workspace asks at the same time.
  const theirs = questions.ask(asking(elsewhere), signal);
  await opened(questions, 2);
  assertEquals(questions.questions().map((q) => q.workspace), [1, 2]);
  questions.answer(1, "site", "the CLI");
  assertEquals((await first).kind, "yes");
  // The site's yes answers every call that waited behind it, without a question.
  for (const reply of await Promise.all(behind)) {
    assertEquals(reply, { kind: "yes", once: false, number: 1, by: "the CLI" });
  }
  assertEquals(questions.denyOpen(undefined, "the CLI's hold"), 1);
  assertEquals(await theirs, { kind: "no", number: 2, by: "the CLI's hold" });
});

Deno.test("a wait behind another question ends with it, or with the waiting call", async () => {
  const { questions, open } = setUp(50);
  const workspace = open("agent");
  const first = questions.ask(asking(workspace), new AbortController().signal);
  const gone = new AbortController();
  const abandoned = questions.clear(workspace.id, gone.signal);
  gone.abort();
  assert(!(await abandoned), "the waiting call's end ends its wait");
  // The open question is never older than the bound, so a wait behind it ends by then.
  assert(await questions.clear(workspace.id, new AbortController().signal));
  assertEquals((await first).kind, "unanswered");
});

Deno.test("the yeses one workspace keeps are bounded", async () => {
  const { questions, open } = setUp();
  const workspace = open("agent");
  const signal = new AbortController().signal;
  for (let i = 1; i <= MAX_REMEMBERED + 1; i++) {
    const asked = questions.ask(asking(workspace, `site${i}.test`), signal);
    await opened(questions, i);
    questions.answer(i, "site", "the CLI");
    await asked;
  }
  assertEquals(questions.granted().length, MAX_REMEMBERED);
  assertEquals(questions.remembered(workspace.id, "agent", "site1.test", "write"), null);
});

Deno.test("a call that asks again waits within the deadline of its first ask, not a new one", async () => {
  const { questions, open } = setUp(60_000);
  const workspace = open("agent");
  const call = new AbortController();
  const first = questions.ask(asking(workspace, "shop.test"), call.signal);
  await opened(questions, 1);
  const firstExpires = questions.questions()[0].expires;
  // The clock moves on (a spin, not a timer) so that a fresh bound would end later.
  const asked = Date.now();
  while (Date.now() < asked + 5) { /* spin */ }
  questions.answer(1, "once", "the CLI");
  assertEquals((await first).kind, "yes");
  // The same call needs another site: its second question ends when its first would have.
  const second = questions.ask(asking(workspace, "pay.test"), call.signal);
  await opened(questions, 2);
  assertEquals(questions.questions()[0].expires, firstExpires);
  // Another call's question has a bound of its own.
  call.abort();
  assertEquals((await second).kind, "withdrawn");
  const other = questions.ask(asking(workspace, "pay.test"), new AbortController().signal);
  await opened(questions, 3);
  assert(questions.questions()[0].expires > firstExpires, "a new call gets a new bound");
  questions.denyOpen(undefined, "the CLI");
  assertEquals((await other).kind, "no");
});
