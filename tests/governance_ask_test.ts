/**
 * The policy's `ask`, end to end through real MCP clients, the three processes and headless
 * Chromium, answered from the CLI (issue 29): a form_input on an ask grant waits for the
 * person; `allow N` lets exactly that call through and the next asks again; `allow N --site`
 * lets this agent's later calls through while another agent is still asked; `deny`, `hold` and
 * no answer within the bound refuse with the reason and nothing reaches the page; every question
 * and answer is in the audit; stopping the agent forgets its yes.
 */

import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { PersonGrant, PersonQuestion } from "../shared/person.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { executable } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";
import { type CallResult, type E2ESession, refOf, startSession } from "./support/session.ts";
import { pollUntil } from "./support/wait.ts";

/** A comment in the person's policy file, which saving a yes there keeps. */
const NOTE = "// Ask me before filling forms on the fixture site.";

/** Filling forms on the fixture site asks the person; everything else is allowed. */
const ASK_WRITE = `{
  "default": "allow",
  "grants": [{ "hosts": ["127.0.0.1"], "ask": ["write"] }]
}`;

async function run(s: E2ESession, args: string[]): Promise<string> {
  const out = await ghostlight(s.testEnv, args);
  assertEquals(out.code, 0, `ghostlight ${args.join(" ")}: ${out.stderr}`);
  return out.stdout;
}

async function questions(s: E2ESession): Promise<PersonQuestion[]> {
  return JSON.parse(await run(s, ["asks", "--json"]));
}

/** The question that opens once a call is waiting, after `after` (a question's number). */
async function nextQuestion(s: E2ESession, after = 0): Promise<PersonQuestion> {
  const open = await pollUntil(
    () => questions(s),
    (list) => list.some((q) => q.number > after),
    "a question to be open",
  );
  return open.find((q) => q.number > after)!;
}

/** A tab on the sign-up form, and the ref of its email field. */
async function signUpForm(s: E2ESession): Promise<{ tab: number; email: string }> {
  const tab = await s.firstTab();
  await s.ok("navigate", { url: s.fixtures.url("/signup.html"), tabId: tab });
  return { tab, email: await refOf(s, tab, /textbox "Email address"/) };
}

/** The value of the email field, as the page's own script sees it. */
async function emailValue(s: E2ESession, tabId: number): Promise<string> {
  const result = await s.ok("javascript_tool", {
    action: "javascript_exec",
    text: "document.getElementById('email').value",
    tabId,
  });
  // The value is the last fenced block of the answer.
  const blocks = [...s.text(result).matchAll(/trust="untrusted">\n([^]*?)\n?<\/page-content-/g)];
  return blocks.at(-1)?.[1] ?? "(no value)";
}

/** A call left waiting while the test answers: a failure before it is awaited is not lost. */
function waiting<T>(call: Promise<T>): Promise<T> {
  call.catch(() => {});
  return call;
}

function errorText(result: CallResult): string {
  assert(result.isError, `expected a refusal: ${JSON.stringify(result.content).slice(0, 500)}`);
  return result.content.map((block) => block.text ?? "").join("\n");
}

interface Line {
  kind: string;
  result: string;
  tool: string;
  principal: string;
  host: string | null;
  rule: string | null;
}

/** The session's paths (`ghostlight paths --json`), asked once: they do not change. */
const pathsOf = new WeakMap<E2ESession, Promise<{ auditFile: string; policyFile: string }>>();
function paths(s: E2ESession): Promise<{ auditFile: string; policyFile: string }> {
  if (!pathsOf.has(s)) pathsOf.set(s, run(s, ["paths", "--json"]).then(JSON.parse));
  return pathsOf.get(s)!;
}

async function auditLines(s: E2ESession): Promise<Line[]> {
  const text = await Deno.readTextFile((await paths(s)).auditFile);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

/** ASK_WRITE, and reading a page on localhost (the fixture server's other name) asks too. */
const ASK_WRITE_AND_LOCALHOST = `{
  "default": "allow",
  "grants": [
    { "hosts": ["127.0.0.1"], "ask": ["write"] },
    { "hosts": ["localhost"], "ask": ["read"] }
  ]
}`;

Deno.test("a question nobody answers refuses the call at the bound, and nothing reaches the page", async () => {
  const s = await startSession({
    policy: ASK_WRITE_AND_LOCALHOST,
    env: { GHOSTLIGHT_ASK_TIMEOUT_MS: "1500" },
  });
  try {
    const { tab, email } = await signUpForm(s);
    const refused = await s.fail("form_input", {
      ref: email,
      value: "late@example.com",
      tabId: tab,
    });
    assertMatch(refused, /refused \(the person did not answer question 1 within 1\.5 s\)/);
    // The attention circuit counts it as a refusal (an allowed call ends the run).
    const status = JSON.parse(await run(s, ["status", "--json"]));
    assertEquals(status.person.workspaces[0].denials, 1);
    assertEquals(await emailValue(s, tab), "", "nothing reached the page");
    assertEquals(await questions(s), [], "the question is gone");
    const lines = await auditLines(s);
    assert(
      lines.some((l) => l.result === "denied" && /did not answer question 1/.test(l.rule ?? "")),
      "the unanswered question is audited",
    );

    // Witnessed at the fixture server: an unanswered navigation never asks it for the page.
    const away = s.fixtures.url("/article.html").replace("127.0.0.1", "localhost");
    assertMatch(
      await s.fail("navigate", { url: away, tabId: tab }),
      /the person did not answer question 2 within 1\.5 s/,
    );
    assertEquals(s.fixtures.requests("/article.html"), 0, "the page was never requested");
  } finally {
    await s.close();
  }
});

/** A 1.x SDK client of the session's instance, with every message it receives noted. */
async function spiedClient(
  s: E2ESession,
  name: string,
  elicit?: (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>,
): Promise<{ client: Client; received: { method?: string; params?: unknown }[] }> {
  const { command, args } = executable(s.testEnv, "mcp-connector", [
    "--instance",
    s.testEnv.instance,
  ]);
  const client = new Client(
    { name, version: "1.0.0" },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (elicit) {
    client.setRequestHandler(
      ElicitRequestSchema,
      (request: ElicitRequest, extra: { signal: AbortSignal }) => elicit(request, extra.signal),
    );
  }
  const transport = new StdioClientTransport({ command, args, env: s.testEnv.env, stderr: "pipe" });
  await client.connect(transport);
  const received: { method?: string; params?: unknown }[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage) => {
    received.push(message as { method?: string });
    deliver(message);
  };
  return { client, received };
}

/** Something that calls tools as a client does (1.x or 2.x). */
type Caller = {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
};

/**
 * A client's own tab on the sign-up form, and the email field's ref; `workspace` is the
 * `workspaceId` a `2026-07-28` client passes (the first call mints it).
 */
async function clientForm(
  s: E2ESession,
  client: Caller,
  modern = false,
): Promise<{ tab: number; ref: string; workspace: Record<string, string> }> {
  let workspace: Record<string, string> = {};
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({
      name,
      arguments: { ...args, ...workspace },
    }) as CallResult;
    assert(!result.isError, `${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result;
  };
  const listed = await call("tabs_context_mcp", { createIfEmpty: true });
  const minted = listed.structuredContent as { tabs: { tabId: number }[]; workspaceId?: string };
  if (modern) workspace = { workspaceId: minted.workspaceId! };
  const tab = minted.tabs[0].tabId;
  await call("navigate", { url: s.fixtures.url("/signup.html"), tabId: tab });
  const outline = (await call("read_page", { tabId: tab, filter: "all" })).content[0].text!;
  const ref =
    /textbox "Email address"[^\n]*\[(ref_\d+)\]|\[(ref_\d+)\][^\n]*textbox "Email address"/
      .exec(outline);
  assert(ref, "the client finds the email field");
  return { tab, ref: ref[1] ?? ref[2], workspace };
}

/** The email field's value in a client's own tab, as the page's script sees it. */
async function clientEmail(
  client: Caller,
  form: { tab: number; workspace: Record<string, string> },
): Promise<string> {
  const result = await client.callTool({
    name: "javascript_tool",
    arguments: {
      action: "javascript_exec",
      text: "document.getElementById('email').value",
      tabId: form.tab,
      ...form.workspace,
    },
  }) as CallResult;
  const text = result.content.map((block) => block.text ?? "").join("\n");
  const blocks = [...text.matchAll(/trust="untrusted">\n([^]*?)\n?<\/page-content-/g)];
  return blocks.at(-1)?.[1] ?? "(no value)";
}

/**
 * The call deadline of the `2026-07-28` client's connector: short, so a parked call outlives it
 * while its question (bound 90 s) is still open; long enough for its ordinary calls under load.
 */
const MODERN_DEADLINE_MS = 10_000;

/**
 * A 2.x client pinned to `2026-07-28`, with a form handler when `elicit` is given (it then
 * declares form elicitation on every request).
 */
async function modernClient(
  s: E2ESession,
  name: string,
  elicit?: (message: string) => Promise<{ action: "accept" | "decline"; answer?: string }>,
  env: Record<string, string> = {},
): Promise<Client2> {
  const { command, args } = executable(s.testEnv, "mcp-connector", [
    "--instance",
    s.testEnv.instance,
  ]);
  const client = new Client2({ name, version: "2.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
  });
  if (elicit) {
    client.setRequestHandler("elicitation/create", async (request) => {
      const said = await elicit(String((request.params as { message?: unknown }).message));
      return said.action === "accept"
        ? { action: "accept", content: { answer: said.answer! } }
        : { action: "decline" };
    });
  }
  await client.connect(
    new Stdio2({ command, args, env: { ...s.testEnv.env, ...env }, stderr: "pipe" }),
  );
  assertEquals(client.getNegotiatedProtocolVersion(), "2026-07-28");
  return client;
}

/**
 * From the CLI: once, on the site, no, hold, saved in the policy file, revoked, forgotten with the
 * workspace. Returns the number of the last question it asked.
 */
async function answeredFromTheCli(s: E2ESession): Promise<number> {
  const { tab, email } = await signUpForm(s);
  const fill = (value: string) => waiting(s.call("form_input", { ref: email, value, tabId: tab }));

  // Allow once: exactly that call goes through.
  const first = fill("once@example.com");
  const asked = await nextQuestion(s);
  assertEquals(
    [asked.workspace, asked.principal, asked.capability, asked.host, asked.call],
    [1, "unnamed", "write", "127.0.0.1", "form_input on 127.0.0.1"],
  );
  assertEquals(asked.client, "ghostlight-test");
  // The element it aims at, as the read that gave the ref named it, fenced as the page's words.
  assertEquals(asked.target, { role: "textbox", name: "Email address" });
  const listed = await run(s, ["asks"]);
  assertMatch(
    listed,
    new RegExp(
      `${asked.number}\\. unnamed .* asks to write on 127\\.0\\.0\\.1.*\n   It aims at the ` +
        `textbox the page names "Email address" \\(page text\\)\\.\n`,
    ),
  );
  assert(!listed.includes("once@example.com"), "a question never shows a value");
  assertMatch(await run(s, ["allow", String(asked.number)]), /allowed once/);
  const allowed = await first;
  assert(!allowed.isError, JSON.stringify(allowed.content));
  assertEquals(await emailValue(s, tab), "once@example.com");
  assertEquals(await questions(s), []);

  // The next one asks again; no refuses it with the reason, and nothing reaches the page.
  const second = fill("denied@example.com");
  const again = await nextQuestion(s, asked.number);
  const unknown = await ghostlight(s.testEnv, ["allow", "999"]);
  assertEquals(unknown.code, 1);
  assertMatch(unknown.stderr, /there is no open question 999/);
  assertMatch(await run(s, ["deny", String(again.number)]), /denied/);
  assertMatch(
    errorText(await second),
    new RegExp(
      `form_input needs the write capability on the page in its tab, which is refused \\(the ` +
        `person said no \\(question ${again.number}, answered from the CLI\\)\\)`,
    ),
  );
  assertEquals(await emailValue(s, tab), "once@example.com", "nothing reached the page");

  // Hold answers the open question with no. A password field's name is shown, its value never.
  const password = await refOf(s, tab, /textbox "Password"/);
  const third = waiting(
    s.call("form_input", { ref: password, value: "held-Secret-2", tabId: tab }),
  );
  const held = await nextQuestion(s, again.number);
  assertEquals(held.target, { role: "textbox", name: "Password" });
  const shownHeld = JSON.stringify(held) + await run(s, ["asks"]);
  for (const secret of ["hunter2-very-secret", "held-Secret-2", "once@example.com"]) {
    assert(!shownHeld.includes(secret), `the question shows ${secret}`);
  }
  await run(s, ["hold"]);
  assertMatch(
    errorText(await third),
    /the person said no \(question \d+, answered from the CLI's hold\)/,
  );
  await run(s, ["resume"]);
  assertEquals(await emailValue(s, tab), "once@example.com");

  // On this site for this agent: the later calls go through without a question.
  const fourth = fill("site@example.com");
  const site = await nextQuestion(s, again.number + 1);
  assertMatch(await run(s, ["allow", "--site", String(site.number)]), /until its workspace ends/);
  assert(!(await fourth).isError);
  await s.ok("form_input", { ref: email, value: "later@example.com", tabId: tab });
  assertEquals(await emailValue(s, tab), "later@example.com");
  const granted: PersonGrant[] = JSON.parse(await run(s, ["asks", "--granted", "--json"]));
  assertEquals(
    granted.map((g) => [g.workspace, g.principal, g.capability, g.host, g.by]),
    [[1, "unnamed", "write", "127.0.0.1", "the CLI"]],
  );

  // Another agent on the same site is still asked.
  const other = await s.connectClient("other-client", {}, ["--principal", "other-agent"]);
  try {
    const listedTabs = await other.callTool({
      name: "tabs_context_mcp",
      arguments: { createIfEmpty: true },
    }) as CallResult;
    const own = (listedTabs.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    const navigated = await other.callTool({
      name: "navigate",
      arguments: { url: s.fixtures.url("/signup.html"), tabId: own },
    }) as CallResult;
    assert(!navigated.isError, JSON.stringify(navigated.content));
    const read = await other.callTool({
      name: "read_page",
      arguments: { tabId: own, filter: "all" },
    }) as CallResult;
    const line = read.content[0].text!.split("\n").find((l) => /textbox "Email address"/.test(l));
    const otherRef = /\[(ref_\d+)\]/.exec(line ?? "")?.[1];
    assert(otherRef, "the other agent finds the field");
    const theirs = waiting(
      other.callTool({
        name: "form_input",
        arguments: { ref: otherRef, value: "other@example.com", tabId: own },
      }) as Promise<CallResult>,
    );
    const theirQuestion = await nextQuestion(s, site.number);
    assertEquals(theirQuestion.principal, "other-agent");
    // Allowed and saved in the policy file: a grant for that agent on that site, the file's
    // comments kept, more specific than the file's own ask, so its next call is not asked
    // (decision 0482), while nothing of it is kept in memory.
    assertMatch(
      await run(s, ["allow", "--persist", String(theirQuestion.number)]),
      /saved in .*policy\.jsonc as a grant/,
    );
    assert(!(await theirs).isError);
    const { policyFile } = await paths(s);
    const saved = await Deno.readTextFile(policyFile);
    assert(saved.includes(NOTE), `the file's comment is kept:\n${saved}`);
    assertMatch(
      saved,
      /"principals": \[\s*"other-agent"\s*\],\s*"hosts": \[\s*"127\.0\.0\.1"\s*\],\s*"allow": \[\s*"write"\s*\]/,
    );
    let ended = false;
    const next = waiting(
      (other.callTool({
        name: "form_input",
        arguments: { ref: otherRef, value: "saved@example.com", tabId: own },
      }) as Promise<CallResult>).finally(() => ended = true),
    );
    const opened = await pollUntil(
      async () => ended ? [] : await questions(s),
      (open) => ended || open.length > 0,
      "the saved agent's next call to end, or to ask",
    );
    assertEquals(opened, [], "the saved grant let the next call through unasked");
    assert(!(await next).isError);
    const kept: PersonGrant[] = JSON.parse(await run(s, ["asks", "--granted", "--json"]));
    assertEquals(kept.filter((g) => g.principal === "other-agent"), [], "none kept in memory");
  } finally {
    await other.close();
  }

  // Every question and answer is in the audit, with where it was answered.
  const lines = await auditLines(s);
  const decisions = lines.filter((l) => l.kind === "decision" && l.tool === "form_input");
  assertEquals(
    decisions.map((l) => l.result),
    [
      "ask",
      "allowed",
      "allowed",
      "ask",
      "denied",
      "ask",
      "denied",
      "ask",
      "allowed",
      "allowed",
      "allowed",
      "ask",
      "allowed",
      "allowed",
      "allowed",
    ],
  );
  assertMatch(
    decisions[0].rule!,
    /^the person is asked: grant 1 of .* asks the person before write/,
  );
  assertMatch(decisions[1].rule!, /allowed it once \(question \d+, answered from the CLI\)/);
  assertMatch(decisions[2].rule!, /allowed write for this call/);
  assertMatch(decisions[10].rule!, /allowed write on this site for this agent/);
  assertEquals(decisions[12].principal, "other-agent");
  assertMatch(decisions[12].rule!, /answered from the CLI, saved in the policy file/);
  assertMatch(decisions[14].rule!, /grant 2 of .* allows write, more specific than its ask/);

  // Revoking the yes asks again, and is an audit record.
  assertMatch(await run(s, ["asks", "--revoke", String(granted[0].number)]), /asked again/);
  const forgotten = () => auditLines(s).then((all) => all.filter((l) => l.result === "forgotten"));
  assertMatch(
    (await forgotten())[0]?.rule ?? "(none)",
    new RegExp(
      `yes ${granted[0].number} to write on this site for this agent \\(question ` +
        `${site.number}, answered from the CLI\\) was forgotten: revoked from the CLI`,
    ),
  );
  const fifth = fill("fifth@example.com");
  const again2 = await nextQuestion(s, site.number + 1);
  await run(s, ["allow", "--site", String(again2.number)]);
  assert(!(await fifth).isError);

  // Stopping the agent forgets its yes, and the audit says so.
  await run(s, ["stop", "1"]);
  assertEquals(JSON.parse(await run(s, ["asks", "--granted", "--json"])), []);
  const lapsed = (await forgotten())[1];
  assertEquals([lapsed?.principal, lapsed?.host], ["unnamed", "127.0.0.1"]);
  assertMatch(
    lapsed.rule!,
    /\(question \d+, answered from the CLI\) was forgotten: its workspace ended/,
  );
  return again2.number;
}

/**
 * From a client that declared elicitation, in both revisions, and from the CLI while the
 * client is asked; `before` is the number of the last question asked before it. Ends by killing
 * the service.
 */
async function answeredInTheClient(s: E2ESession, before: number): Promise<void> {
  const forms: { message: string; answer: "once" | "hold" }[] = [];
  let withdrawn = 0;
  const asking = await spiedClient(s, "eliciting-client", async (request, signal) => {
    const message = String(request.params.message);
    // The second form is left for the CLI to answer: the client's is then taken back.
    const answer = forms.length === 0 ? "once" : "hold";
    forms.push({ message, answer });
    if (answer === "once") return { action: "accept", content: { answer: "once" } };
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
    withdrawn++;
    return { action: "cancel" };
  });
  const silent = await spiedClient(s, "plain-client");
  try {
    const mine = await clientForm(s, asking.client);
    const fill = (value: string) =>
      waiting(
        asking.client.callTool({
          name: "form_input",
          arguments: { ref: mine.ref, value, tabId: mine.tab },
        }) as Promise<CallResult>,
      );
    const allowed = await fill("client@example.com");
    assert(!allowed.isError, JSON.stringify(allowed.content));
    assertEquals(forms.length, 1);
    assertMatch(
      forms[0].message,
      /asks to write on 127\.0\.0\.1: form_input on 127\.0\.0\.1, aiming at the textbox the page names "Email address" \(page text\)\./,
    );
    assert(!forms[0].message.includes("client@example.com"), "the form never shows a value");
    assertEquals(await questions(s), [], "answered in the client, the question is gone");
    const lines = await auditLines(s);
    assert(
      lines.some((l) =>
        new RegExp(`allowed it once \\(question ${before + 1}, answered from the client\\)`)
          .test(l.rule ?? "")
      ),
      "the client's answer is audited as the client's",
    );

    // Answered from the CLI first: the client's form is withdrawn.
    const second = fill("second@example.com");
    const open = await nextQuestion(s, before + 1);
    await pollUntil(
      () => Promise.resolve(forms.length),
      (n) => n === 2,
      "the second form to be shown",
    );
    await run(s, ["deny", String(open.number)]);
    assertMatch(
      errorText(await second),
      /the person said no \(question \d+, answered from the CLI\)/,
    );
    await pollUntil(
      () => Promise.resolve(withdrawn),
      (n) => n === 1,
      "the client's form to be withdrawn",
    );

    // A client that declared no elicitation is never sent one; the CLI still answers it.
    const theirs = await clientForm(s, silent.client);
    const plain = waiting(
      silent.client.callTool({
        name: "form_input",
        arguments: { ref: theirs.ref, value: "plain@example.com", tabId: theirs.tab },
      }) as Promise<CallResult>,
    );
    const plainQuestion = await nextQuestion(s, open.number);
    await run(s, ["deny", String(plainQuestion.number)]);
    assertMatch(errorText(await plain), /the person said no/);
    assertEquals(silent.received.filter((m) => m.method === "elicitation/create"), []);
    assertEquals(
      asking.received.filter((m) => m.method === "elicitation/create").length,
      2,
      "the eliciting client was sent one form per question",
    );

    // 2026-07-28: the form comes in an input_required result, the answer with the retry.
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    let outwaited!: () => void;
    const pastDeadline = new Promise<void>((resolve) => outwaited = resolve);
    const shown: string[] = [];
    const modern = await modernClient(s, "modern-client", async (message) => {
      shown.push(message);
      // The second form is answered only after the CLI answered its question, the third only
      // after the connector's call deadline has passed.
      if (shown.length === 2) await held;
      if (shown.length === 3) await pastDeadline;
      return { action: "accept", answer: "once" };
    }, { GHOSTLIGHT_CALL_DEADLINE_MS: String(MODERN_DEADLINE_MS) });
    const plainModern = await modernClient(s, "plain-modern-client");
    try {
      const form = await clientForm(s, modern, true);
      const fillModern = (value: string) =>
        waiting(
          modern.callTool({
            name: "form_input",
            arguments: { ref: form.ref, value, tabId: form.tab, ...form.workspace },
          }) as Promise<CallResult>,
        );
      const before = (await questions(s)).length;
      assertEquals(before, 0);
      const yes = await fillModern("modern@example.com");
      assert(!yes.isError, JSON.stringify(yes.content));
      assertEquals(shown.length, 1);
      assertMatch(shown[0], /asks to write on 127\.0\.0\.1: form_input on 127\.0\.0\.1/);
      assertEquals(await clientEmail(modern, form), "modern@example.com");
      const answered = (await auditLines(s)).filter((l) =>
        /allowed it once \(question \d+, answered from the client\)/.test(l.rule ?? "")
      );
      assertEquals(answered.length, 2, "the 2026 client's answer is audited as the client's");

      // The CLI answers first: the client's late answer is dropped; the retry gets the no.
      const late = fillModern("late@example.com");
      const cliFirst = await nextQuestion(s, plainQuestion.number);
      await pollUntil(() => Promise.resolve(shown.length), (n) => n === 2, "the second form");
      await run(s, ["deny", String(cliFirst.number)]);
      release();
      assertMatch(
        errorText(await late),
        new RegExp(`the person said no \\(question ${cliFirst.number}, answered from the CLI\\)`),
      );
      assertEquals(await clientEmail(modern, form), "modern@example.com", "nothing reached it");

      // A 2026 request that declared no elicitation is never answered input_required (its
      // client has no handler and would fail the call); the CLI answers it.
      const plainForm = await clientForm(s, plainModern, true);
      const plainCall = waiting(
        plainModern.callTool({
          name: "form_input",
          arguments: {
            ref: plainForm.ref,
            value: "plain2026@example.com",
            tabId: plainForm.tab,
            ...plainForm.workspace,
          },
        }) as Promise<CallResult>,
      );
      const plainAsked = await nextQuestion(s, cliFirst.number);
      await run(s, ["deny", String(plainAsked.number)]);
      assertMatch(
        errorText(await plainCall),
        /the person said no \(question \d+, answered from the CLI\)/,
      );
      assertEquals(shown.length, 2);

      // A parked call waits for the person within the question's bound (90 s here), not the
      // connector's call deadline: a call behind the question is answered at that deadline,
      // and the parked one, answered after it, still goes through (decision 0480).
      const patient = fillModern("patient@example.com");
      await pollUntil(() => Promise.resolve(shown.length), (n) => n === 3, "the third form");
      const behind = await modern.callTool({
        name: "get_page_text",
        arguments: { tabId: form.tab, ...form.workspace },
      }) as CallResult;
      assertMatch(
        errorText(behind),
        new RegExp(`did not finish this call within ${MODERN_DEADLINE_MS / 1000} s`),
      );
      outwaited();
      const through = await patient;
      assert(!through.isError, JSON.stringify(through.content));
      assertEquals(await clientEmail(modern, form), "patient@example.com");
    } finally {
      await modern.close();
      await plainModern.close();
    }

    // A broken service link ends the call without a withdraw: its form is taken back anyway
    // (else each such form counted against the connection's 8 until it never asked again).
    const broken = fill("broken@example.com");
    await pollUntil(() => Promise.resolve(forms.length), (n) => n === 3, "the third form");
    await s.service!.kill("SIGKILL");
    assertMatch(errorText(await broken), /The connection to the Ghostlight service broke/);
    await pollUntil(
      () => Promise.resolve(withdrawn),
      (n) => n === 2,
      "the form of the call the broken link ended to be withdrawn",
    );
  } finally {
    await asking.client.close();
    await silent.client.close();
  }
}

Deno.test("the person answers an ask from the CLI, or from a client that declared elicitation", async (t) => {
  // One session for both: the same policy (the CLI case's comment is only a comment) and the
  // same ask bound. The client case ends by killing the service, so it comes last.
  const s = await startSession({
    policy: ASK_WRITE.replace("{", `{\n  ${NOTE}`),
    env: { GHOSTLIGHT_ASK_TIMEOUT_MS: "90000" },
    // The client case kills the service: apart from the browser's launcher, so the browser is
    // still stopped at the end.
    serviceApart: true,
  });
  try {
    let asked = 0;
    const cli = await t.step(
      "an ask holds form_input until the person answers from the CLI: once, on the site, no, hold",
      async () => {
        asked = await answeredFromTheCli(s);
      },
    );
    if (!cli) return;
    await t.step(
      "a client that declared elicitation is asked too, in both revisions; the first answer wins and the other is withdrawn or dropped; a client without it is never sent one",
      () => answeredInTheClient(s, asked),
    );
  } finally {
    await s.close();
  }
});
