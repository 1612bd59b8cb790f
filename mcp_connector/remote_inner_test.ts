import { assertEquals } from "../tests/support/assert.ts";
import { serverDelay, within } from "../tests/support/wait.ts";
import { answerThenClose } from "./remote_inner.ts";

/**
 * One open inner request the service would never end by itself (a call it does not stop on the
 * person's Stop): only the inner connector's end answers it, as `InnerConnector.end` answers its
 * pending requests. The binding's handler settles once a slow tunnel took that answer, a few
 * milliseconds later. Each step is written down in order.
 */
function openRequest(said: string[]) {
  const answer = Promise.withResolvers<string>();
  const inner = {
    end(why?: string) {
      said.push(`end: ${why}`);
      answer.resolve(why ?? "");
    },
  };
  const answering = answer.promise.then(async (why) => {
    await serverDelay(20);
    said.push(`answered: ${why}`);
  });
  const tunnel = { close: (why: string) => said.push(`close: ${why}`) };
  return { inner, answering, tunnel };
}

Deno.test("the person's Stop ends the inner requests, lets their answers out, then closes the tunnel", async () => {
  const said: string[] = [];
  const { inner, answering, tunnel } = openRequest(said);
  const halt = new AbortController();
  const ended = Promise.withResolvers<string>();
  const closing = answerThenClose(halt.signal, ended.promise, tunnel, () => [inner], () => [
    answering,
  ]);
  halt.abort("the person stopped this remote agent");
  const why = await within(closing, 10_000, "the Stop's close");
  assertEquals(why, "the person stopped this remote agent");
  assertEquals(said, [
    "end: Ghostlight: the person stopped this remote agent.",
    "answered: Ghostlight: the person stopped this remote agent.",
    "close: the person stopped this remote agent",
  ]);
});

Deno.test("a tunnel that ends before any Stop is left to its own end, and a later Stop closes nothing", async () => {
  const said: string[] = [];
  const { inner, answering, tunnel } = openRequest(said);
  const halt = new AbortController();
  const closing = answerThenClose(
    halt.signal,
    Promise.resolve("the gateway went away"),
    tunnel,
    () => [inner],
    () => [answering],
  );
  assertEquals(await within(closing, 10_000, "the tunnel's own end"), null);
  halt.abort("the person stopped this remote agent");
  await Promise.resolve();
  assertEquals(said, []);
});

Deno.test("a Stop given before the race still answers first, then closes", async () => {
  const said: string[] = [];
  const { inner, answering, tunnel } = openRequest(said);
  const halt = new AbortController();
  halt.abort("the service is stopping");
  const why = await within(
    answerThenClose(halt.signal, new Promise(() => {}), tunnel, () => [inner], () => [answering]),
    10_000,
    "the close",
  );
  assertEquals(why, "the service is stopping");
  assertEquals(said, [
    "end: Ghostlight: the service is stopping.",
    "answered: Ghostlight: the service is stopping.",
    "close: the service is stopping",
  ]);
});
