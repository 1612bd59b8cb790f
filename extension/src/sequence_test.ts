import { assert, assertEquals } from "../../tests/support/assert.ts";
import { waitFor } from "../../tests/support/wait.ts";
import type { SequenceCommand } from "../../shared/browser_protocol.ts";
import { runSequence, type Sendable, type SendOutcome } from "./sequence.ts";

/**
 * A browser whose replies the test gives, recording each command as it is sent with the names
 * of the commands that had replied by then.
 */
function browser() {
  const sent: { name: string; replied: string[] }[] = [];
  const replied: string[] = [];
  const pending = new Map<string, (outcome: SendOutcome) => void>();
  const send = (command: Sendable) =>
    new Promise<SendOutcome>((resolve) => {
      const name = String(command.params.name);
      sent.push({ name, replied: [...replied] });
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
  return { send, reply, names, when };
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
