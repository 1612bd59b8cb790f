import { assert, assertEquals } from "../../tests/support/assert.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { Operations, type SequenceCommand } from "../../shared/browser_protocol.ts";
import { runSequence, type Sendable, type SendOutcome } from "./sequence.ts";

/**
 * A browser whose replies the test gives, recording each command as it is sent with the names
 * of the commands that had replied by then.
 */
function browser() {
  const sent: { name: string; replied: string[]; params: Record<string, unknown> }[] = [];
  const replied: string[] = [];
  const pending = new Map<string, (outcome: SendOutcome) => void>();
  const send = (command: Sendable) =>
    new Promise<SendOutcome>((resolve) => {
      const name = String(command.params.name);
      sent.push({ name, replied: [...replied], params: command.params });
      pending.set(name, resolve);
    });
  /** Replies to `name` once it was sent. */
  const reply = async (name: string, outcome: SendOutcome = { ok: true, result: { name } }) => {
    await waitFor(() => Promise.resolve(pending.has(name)), `${name} to be sent`);
    replied.push(name);
    pending.get(name)!(outcome);
    pending.delete(name);
  };
  const names = () => sent.map((command) => command.name);
  const when = (name: string) => sent.find((command) => command.name === name)?.replied;
  const params = (name: string) => sent.find((command) => command.name === name)?.params;
  return { send, reply, names, when, params };
}

const step = (name: string, extra: Partial<SequenceCommand> = {}): SequenceCommand => ({
  method: "Input.insertText",
  params: { name },
  ...extra,
});

Deno.test("a pipelined command after replies goes out only once every earlier command replied", async () => {
  const b = browser();
  const done = runSequence(
    [
      step("a"),
      step("b"),
      step("read", { afterReplies: true }),
      step("look", { afterReplies: true }),
    ],
    true,
    b.send,
  );
  for (const name of ["b", "a", "read", "look"]) await b.reply(name);
  assertEquals((await done).map((result) => result.name), ["a", "b", "read", "look"]);
  assertEquals(b.names(), ["a", "b", "read", "look"]);
  // The input went out together; each read waited for everything before it.
  assertEquals(b.when("b"), []);
  assertEquals(b.when("read")?.sort(), ["a", "b"]);
  assertEquals(b.when("look")?.sort(), ["a", "b", "read"]);
});

Deno.test("a command after replies answers its own failure; an earlier failure fails the sequence", async () => {
  for (const pipeline of [true, false]) {
    const b = browser();
    const done = runSequence([step("a"), step("read", { afterReplies: true })], pipeline, b.send);
    await b.reply("a");
    await b.reply("read", { ok: false, error: new Error("context gone") });
    assertEquals(await done, [{ name: "a" }, { failed: "context gone" }], `pipeline ${pipeline}`);

    const failing = browser();
    const failed = runSequence(
      [step("a"), step("read", { afterReplies: true })],
      pipeline,
      failing.send,
    ).catch((error) => error);
    await failing.reply("a", { ok: false, error: new Error("input refused") });
    assertEquals(((await failed) as Error).message, "input refused", `pipeline ${pipeline}`);
    assertEquals(failing.names(), ["a"], "the read after a failed input is not sent");
  }
});

Deno.test("an object reference still waits for its reply, and those after it go out after it", async () => {
  const b = browser();
  const done = runSequence(
    [step("find"), step("ask", { objectIdFrom: 1 }), step("after")],
    true,
    b.send,
  );
  await b.reply("find", { ok: true, result: { result: { objectId: "o1" } } });
  await b.reply("ask");
  await b.reply("after");
  const results = await done;
  assertEquals(results.length, 3);
  assertEquals(b.when("ask"), ["find"]);
  assertEquals(b.when("after"), ["find"]);
  assert(b.names().indexOf("after") > b.names().indexOf("ask"));
});

/** A press aimed at what `find` (n back) found, only in the document `look` (m back) shows. */
function aimed(name: string, find: number, look: number): SequenceCommand {
  return step(name, {
    sendIf: [
      { reply: find, path: ["result", "value", "visible"], equals: true },
      { reply: look, path: ["frameTree", "frame", "loaderId"], equals: "L1" },
    ],
    paramsFrom: [
      { reply: find, path: ["result", "value", "centre", "x"], param: "x" },
      { reply: find, path: ["result", "value", "centre", "y"], param: "y" },
    ],
  });
}

const FOUND = { result: { value: { visible: true, centre: { x: 12, y: 34 } } } };
const SHOWN = { frameTree: { frame: { loaderId: "L1" } } };

Deno.test("a command aimed by earlier replies waits for them and takes its parameters from them", async () => {
  for (const pipeline of [true, false]) {
    const b = browser();
    const done = runSequence(
      [step("find"), step("look"), aimed("press", 2, 1), aimed("release", 3, 2), step("read")],
      pipeline,
      b.send,
    );
    await b.reply("find", { ok: true, result: FOUND });
    await b.reply("look", { ok: true, result: SHOWN });
    await b.reply("press");
    await b.reply("release");
    await b.reply("read");
    assertEquals((await done).length, 5);
    assertEquals(b.names(), ["find", "look", "press", "release", "read"]);
    assertEquals(b.params("press"), { name: "press", x: 12, y: 34 }, `pipeline ${pipeline}`);
    assertEquals(b.params("release"), { name: "release", x: 12, y: 34 });
    assertEquals(b.when("press")?.sort(), ["find", "look"], "sent once both replied");
    if (pipeline) {
      // The two lookups went out together; the release did not wait for the press.
      assertEquals(b.when("look"), []);
      assertEquals(b.when("release")?.sort(), ["find", "look"]);
    }
  }
});

Deno.test("a command whose earlier replies do not hold what it needs is not sent", async () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["not visible", { result: { value: { visible: false, centre: { x: 1, y: 2 } } } }, SHOWN],
    ["another document", FOUND, { frameTree: { frame: { loaderId: "L2" } } }],
    ["the evaluation threw", { exceptionDetails: { text: "gone" } }, SHOWN],
    ["no point", { result: { value: { visible: true, centre: { x: "1" } } } }, SHOWN],
    ["a point that is not a value", { result: { value: { visible: true, centre: {} } } }, SHOWN],
    ["an inherited key", {
      result: { value: { visible: true, centre: Object.create({ x: 1, y: 2 }) } },
    }, SHOWN],
  ];
  for (const pipeline of [true, false]) {
    for (const [why, found, shown] of cases) {
      const b = browser();
      const done = runSequence(
        [step("find"), step("look"), aimed("press", 2, 1), step("after")],
        pipeline,
        b.send,
      );
      await b.reply("find", { ok: true, result: found });
      await b.reply("look", { ok: true, result: shown });
      await b.reply("after");
      const results = await done;
      assertEquals(b.names(), ["find", "look", "after"], `${why}, pipeline ${pipeline}`);
      assertEquals(results[2], {}, why);
    }
  }
});

Deno.test("a sequence's lead replies are handed on before the commands after them end", async () => {
  for (const pipeline of [true, false]) {
    const b = browser();
    const leads: string[][] = [];
    const lead = {
      count: 2,
      send: (results: Record<string, unknown>[]) => {
        leads.push(results.map((r) => String(r.name)));
        return true;
      },
    };
    const done = runSequence(
      [step("find"), step("look"), aimed("press", 2, 1), step("read", { afterReplies: true })],
      pipeline,
      b.send,
      lead,
    );
    await b.reply("find", { ok: true, result: { ...FOUND, name: "find" } });
    await b.reply("look", { ok: true, result: { ...SHOWN, name: "look" } });
    // The press is held (a dialog it opened): the lead is out all the same.
    await waitFor(() => Promise.resolve(leads.length === 1), `the lead, pipeline ${pipeline}`);
    assertEquals(leads, [["find", "look"]]);
    await b.reply("press");
    await b.reply("read");
    assertEquals((await done).length, 4);
    assertEquals(leads.length, 1, "handed on once");
  }
});

Deno.test("nothing waiting for earlier replies goes out after a lead that was withheld", async () => {
  // A dialog the service heard of before the lead held the lookup: the service answered without
  // it, so the input aimed by it must not land once the dialog is gone.
  for (const pipeline of [true, false]) {
    const b = browser();
    const done = runSequence(
      [step("find"), step("look"), aimed("press", 2, 1), step("read", { afterReplies: true })],
      pipeline,
      b.send,
      { count: 2, send: () => false },
    );
    await b.reply("find", { ok: true, result: FOUND });
    await b.reply("look", { ok: true, result: SHOWN });
    const results = await done;
    assertEquals(b.names(), ["find", "look"], `pipeline ${pipeline}`);
    assertEquals(results.slice(2), [{}, {}]);
  }
});

Deno.test("a lead with a failed command is not handed on; the sequence fails as before", async () => {
  for (const pipeline of [true, false]) {
    const b = browser();
    const leads: unknown[] = [];
    const done = runSequence(
      [step("find"), step("look"), aimed("press", 2, 1)],
      pipeline,
      b.send,
      {
        count: 2,
        send: (results) => {
          leads.push(results);
          return true;
        },
      },
    ).catch((error) => error);
    await b.reply("find", { ok: false, error: new Error("no such context") });
    if (pipeline) await b.reply("look", { ok: true, result: SHOWN });
    const failed = await done;
    assert(failed instanceof Error && failed.message === "no such context", String(failed));
    assertEquals(leads, [], `pipeline ${pipeline}`);
    assert(!b.names().includes("press"), "nothing aimed went out");
  }
});

Deno.test("a lead must name earlier commands and leave some after it", () => {
  const sequence = (lead: number) =>
    Operations["cdp.sequence"].params.safeParse({
      tab_id: 1,
      lead,
      commands: [step("find"), step("look"), step("press")],
    }).success;
  assertEquals([sequence(1), sequence(2), sequence(3), sequence(0)], [true, true, false, false]);
});

Deno.test("a command sent only when a list lacks an entry of a kind (sendIf lacks)", async () => {
  const KEYS = { field: "type", values: ["keydown", "keyup"] };
  const cases: [string, unknown, boolean][] = [
    ["no listeners", [], true],
    ["other listeners", [{ type: "click" }, { type: "input" }], true],
    ["a key listener", [{ type: "click" }, { type: "keydown" }], false],
    ["no list at all", undefined, false],
    ["not a list", { type: "click" }, false],
  ];
  for (const pipeline of [true, false]) {
    for (const [why, listeners, sent] of cases) {
      const b = browser();
      const done = runSequence(
        [
          step("ask"),
          step("insert", { sendIf: [{ reply: 1, path: ["listeners"], lacks: KEYS }] }),
          step("after"),
        ],
        pipeline,
        b.send,
      );
      await b.reply("ask", { ok: true, result: { listeners } });
      if (sent) await b.reply("insert");
      await b.reply("after");
      const results = await done;
      const names = sent ? ["ask", "insert", "after"] : ["ask", "after"];
      assertEquals(b.names(), names, `${why}, pipeline ${pipeline}`);
      assertEquals(results.length, 3);
    }
  }
});

Deno.test("a value taken into a field of an object parameter leaves the command's own params as they were", async () => {
  const capture: SequenceCommand = step("capture", {
    params: { name: "capture", clip: { scale: 0.5 } },
    paramsFrom: [
      { reply: 1, path: ["view", "x"], param: "clip.x" },
      { reply: 1, path: ["view", "y"], param: "clip.y" },
      { reply: 1, path: ["view", "x"], param: "origin.deep.x" },
    ],
  } as Partial<SequenceCommand>);
  const b = browser();
  const done = runSequence([step("metrics"), capture], true, b.send);
  await b.reply("metrics", { ok: true, result: { view: { x: 3, y: 4 } } });
  await b.reply("capture");
  await done;
  assertEquals(b.params("capture"), {
    name: "capture",
    clip: { scale: 0.5, x: 3, y: 4 },
    origin: { deep: { x: 3 } },
  });
  assertEquals(capture.params, { name: "capture", clip: { scale: 0.5 } }, "not changed");
  // A path through something other than an object: not sent.
  const blocked = browser();
  const run = runSequence(
    [
      step("metrics"),
      step("capture", {
        params: { name: "capture", clip: 7 },
        paramsFrom: [{ reply: 1, path: ["view", "x"], param: "clip.x" }],
      }),
      step("after"),
    ],
    true,
    blocked.send,
  );
  await blocked.reply("metrics", { ok: true, result: { view: { x: 3 } } });
  await blocked.reply("after");
  await run;
  assertEquals(blocked.names(), ["metrics", "after"]);
  // Names only: no prototype key can be written.
  for (const param of ["__proto__.x", "clip.__proto__", "constructor..x", "a.b.c.d.e", ".x"]) {
    const parsed = Operations["cdp.sequence"].params.safeParse({
      tab_id: 1,
      commands: [step("metrics"), {
        ...step("capture"),
        paramsFrom: [{ reply: 1, path: ["x"], param }],
      }],
    });
    assertEquals(parsed.success, false, param);
  }
});
